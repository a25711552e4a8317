import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { Account } from '../accounts/account.js';

/** Who is calling a client route: set by the global AuthGuard once the token is verified. */
export interface AuthenticatedClient {
  clientId: string;
  /** Id of the token used (never the token itself); null for a dashboard session. */
  tokenId: string | null;
  /** Id of the dashboard session (never its cookie), for the dashboard's pages. */
  sessionId?: string;
  /** The client's account, read with the token (one query). */
  account: Account;
}

/** Where the guard stores the caller on the request. */
export const AUTHENTICATED_CLIENT = Symbol('authenticatedClient');

export type RequestWithClient = { [AUTHENTICATED_CLIENT]?: AuthenticatedClient; clientId?: string };

/** The authenticated client of a client route (`ClientApi()`, or a route without audience metadata) or a dashboard page. */
export const CurrentClient = createParamDecorator((_data: unknown, context: ExecutionContext): AuthenticatedClient => {
  const client = context.switchToHttp().getRequest<RequestWithClient>()[AUTHENTICATED_CLIENT];
  // Only reachable through a programming error: @CurrentClient() on a public or admin route.
  if (!client) throw new Error('@CurrentClient() used on a route that is not authenticated with a client token');
  return client;
});
