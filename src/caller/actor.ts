import { createParamDecorator, type ExecutionContext } from '@nestjs/common';

/** Who is calling an admin route: the bootstrap ADMIN_TOKEN, or a named operator token. */
export type OperatorIdentity = { kind: 'admin' } | { kind: 'operator'; id: string; name: string };

/** A client's own people: signed in to the dashboard (a session), or asking for a sign-in link by e-mail (no session yet); or its system, with a token. */
export type ClientIdentity = { kind: 'client'; clientId: string; sessionId: string | null; token?: { id: string; prefix: string | null } };

/**
 * Someone not signed in at all: a request for a sign-in link by e-mail (the only write anyone may
 * cause), or a request to the admin API whose credential was refused (recorded as refused, `name`).
 */
export type AnonymousIdentity = { kind: 'anonymous'; name?: string };

/** Who did a write, and in which request: what the audit trail records. */
export interface Actor {
  operator: OperatorIdentity | ClientIdentity | AnonymousIdentity;
  /** The request id (`X-Request-Id`), null outside a request. */
  requestId: string | null;
}

/** Where the guard stores the caller of an admin route on the request (the rate limiter may key on it). */
export const AUTHENTICATED_OPERATOR = Symbol('authenticatedOperator');

/** Where the guard stores the console session of a console page's operator (its CSRF tokens are bound to it). */
export const OPERATOR_SESSION = Symbol('operatorSession');

export type RequestWithOperator = { [AUTHENTICATED_OPERATOR]?: OperatorIdentity; [OPERATOR_SESSION]?: string; id?: unknown };

/** The actor of an admin route (`AdminApi()`) or a console page (`OperatorPage()`): its operator identity and the request id. */
export const CurrentActor = createParamDecorator((_data: unknown, context: ExecutionContext): Actor => {
  const req = context.switchToHttp().getRequest<RequestWithOperator>();
  const operator = req[AUTHENTICATED_OPERATOR];
  // Only reachable through a programming error: @CurrentActor() on a route that is not AdminApi().
  if (!operator) throw new Error('@CurrentActor() used on a route that is not authenticated as the operator');
  return { operator, requestId: typeof req.id === 'string' ? req.id : null };
});
