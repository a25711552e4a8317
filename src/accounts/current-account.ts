import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { Account } from './account.js';

/** Where the global guard leaves the caller's account, read together with its credential (one query). */
export const REQUEST_ACCOUNT = Symbol('requestAccount');

export type RequestWithAccount = { [REQUEST_ACCOUNT]?: Account };

/** The account of the client calling a client route or a dashboard page. */
export const CurrentAccount = createParamDecorator((_data: unknown, context: ExecutionContext): Account => {
  const account = context.switchToHttp().getRequest<RequestWithAccount>()[REQUEST_ACCOUNT];
  // Only reachable through a programming error: @CurrentAccount() on a public or admin route.
  if (!account) throw new Error('@CurrentAccount() used on a route that is not authenticated as a client');
  return account;
});
