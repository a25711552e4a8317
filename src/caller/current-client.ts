import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { TokenMode } from '../common/token-format.js';

/**
 * Who is calling a client route or a dashboard page: set by the global guard once the credential
 * is verified (credentials live in auth/; this is only what they establish).
 */
export interface AuthenticatedClient {
  clientId: string;
  /** Id of the token used (never the token itself); null for a dashboard session. */
  tokenId: string | null;
  /** Id of the dashboard session (never its cookie), for the dashboard's pages. */
  sessionId?: string;
  /**
   * Which of the client's data the caller reaches: `live` (its real declarations) or `test` (its
   * sandbox, with an `eprt_` token). Every client query is scoped by client AND mode.
   */
  mode: TokenMode;
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
