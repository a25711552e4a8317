import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import { audienceOf } from './audience.js';
import { Problem } from '../common/problem/problem.js';
import { FailedAuthentications } from '../rate-limit/failed-authentications.js';
import { AdminCredential } from './admin-credential.js';
import { REALM, REJECTION_DESCRIPTIONS } from './bearer-challenge.js';
import { AUTHENTICATED_CLIENT, type AuthenticatedClient, type RequestWithClient } from './current-client.decorator.js';
import { AUTHENTICATED_OPERATOR, type OperatorIdentity, type RequestWithOperator } from './operators/current-operator.decorator.js';
import { OperatorsService } from './operators/operators.service.js';
import { OPERATOR_TOKEN_PREFIX, parseToken } from '../common/token-format.js';
import { SessionsService } from './sessions/sessions.service.js';
import { TokensService } from './tokens.service.js';


const BARE_CHALLENGE = `Bearer realm="${REALM}"`;

function invalidToken(description: string): Problem {
  return new Problem('invalid_token', description, {
    headers: { 'WWW-Authenticate': `${BARE_CHALLENGE}, error="invalid_token", error_description="${description}"` },
  });
}

function missingToken(detail: string): Problem {
  // RFC 6750 §3.1: no error code when the request carries no (bearer) credential at all.
  return new Problem('missing_token', detail, { headers: { 'WWW-Authenticate': BARE_CHALLENGE } });
}

/**
 * The bearer token of an Authorization header. The scheme is case-insensitive (RFC 9110 §11.1);
 * a request without a bearer credential gets the bare challenge, an empty or garbled one `invalid_token`.
 */
export function bearerToken(header: string | undefined): string {
  if (header === undefined || header.trim() === '') {
    throw missingToken('This route needs a token: send "Authorization: Bearer <token>".');
  }
  const match = /^\s*([A-Za-z0-9!#$%&'*+.^_`|~-]+)(?:\s+([\s\S]*))?$/.exec(header);
  const scheme = match?.[1];
  if (!scheme || scheme.toLowerCase() !== 'bearer') {
    // Name the scheme only when it looks like one: a bare token pasted without "Bearer" must not be echoed back.
    const named = scheme && /^[A-Za-z][A-Za-z-]{0,19}$/.test(scheme) ? `the ${scheme} scheme` : 'this Authorization header';
    throw missingToken(`This API does not accept ${named}; send "Authorization: Bearer <token>".`);
  }
  const token = (match?.[2] ?? '').trim();
  if (token === '') throw invalidToken('The bearer token is empty.');
  return token;
}

/**
 * The global guard (APP_GUARD): deny by default.
 * - `Public()` routes are open;
 * - `DashboardPage()` routes need a live dashboard session (cookie), and reach its client only;
 * - `AdminApi()` routes need ADMIN_TOKEN or a named operator token (and answer 403 when no ADMIN_TOKEN is
 *   configured); the operator identity is left on the request (`AUTHENTICATED_OPERATOR`);
 * - every other route, including one without any audience metadata, needs a client token.
 * Authenticated responses are `Cache-Control: no-store`. An address with too many failed
 * authentications this minute gets 429 before its token is read (FailedAuthentications).
 *
 * Not passport: the header is parsed here (RFC 6750 challenges, scheme case-insensitive, tokens
 * never from the query or body as passport-http-bearer would also take them), and verifying is
 * one call to TokensService.
 */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(
    private readonly admin: AdminCredential,
    private readonly tokens: TokensService,
    private readonly operators: OperatorsService,
    private readonly failures: FailedAuthentications,
    private readonly sessions: SessionsService,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const audience = audienceOf(context);
    if (audience === 'public') return true;
    const http = context.switchToHttp();
    const req = http.getRequest<Request & RequestWithClient & RequestWithOperator>();
    const res = http.getResponse<Response>();
    res.setHeader('Cache-Control', 'no-store');
    // Node keeps the first of several Authorization headers; which one a proxy or client meant is unknowable.
    if ((req.headersDistinct?.authorization?.length ?? 0) > 1) {
      throw new Problem('bad_request', 'Send one Authorization header, not several.');
    }
    if (audience === 'session') {
      // A dashboard page: the session cookie, never a bearer token (a page is not an API route).
      const session = await this.sessions.resolve((req as Request & { cookies?: Record<string, unknown> }).cookies?.[this.sessions.cookies.session]);
      if (!session) throw new Problem('session_required', 'Sign in to the dashboard to see this page.');
      req[AUTHENTICATED_CLIENT] = { clientId: session.clientId, tokenId: null, sessionId: session.sessionId, account: session.account };
      req.clientId = session.clientId;
      return true;
    }
    this.failures.refuseIfOverLimit(req, res);
    try {
      if (audience === 'admin') {
        req[AUTHENTICATED_OPERATOR] = await this.authenticateAdmin(req.headers.authorization);
        return true;
      }
      const client = await this.authenticateClient(req.headers.authorization);
      req[AUTHENTICATED_CLIENT] = client;
      req.clientId = client.clientId; // for the request log line
      return true;
    } catch (error) {
      if (error instanceof Problem && error.status === 401) this.failures.record(req);
      throw error;
    }
  }

  private async authenticateAdmin(header: string | undefined): Promise<OperatorIdentity> {
    if (!this.admin.enabled) {
      throw new Problem(
        'admin_api_disabled',
        'The admin API is disabled because ADMIN_TOKEN is not configured. Set ADMIN_TOKEN (a secret of at least 32 characters) in the environment of the service and restart it to enable the admin API.',
      );
    }
    const token = bearerToken(header);
    if (this.admin.matches(token)) return { kind: 'admin' };
    if (parseToken(token, OPERATOR_TOKEN_PREFIX).ok) {
      const outcome = await this.operators.verify(token);
      if (outcome.ok) return outcome.operator;
      throw invalidToken(outcome.reason === 'revoked' ? 'The operator token was revoked.' : 'The operator token is not recognised.');
    }
    // A working client token is a credential, only not for this route: 403. Anything else: 401.
    const result = await this.tokens.verify(token, { recordUse: false });
    if (result.ok) {
      throw new Problem('insufficient_scope', 'Client tokens cannot call the admin API; it needs ADMIN_TOKEN or an operator token.', {
        headers: {
          'WWW-Authenticate': `${BARE_CHALLENGE}, error="insufficient_scope", error_description="The admin API needs the operator token.", scope="admin"`,
        },
      });
    }
    throw invalidToken('The token is not the admin token.');
  }

  private async authenticateClient(header: string | undefined): Promise<AuthenticatedClient> {
    const token = bearerToken(header);
    // Shape and checksum before any database read (and before hashing: the admin token is not client-shaped).
    const parsed = parseToken(token);
    if (!parsed.ok) {
      if (this.admin.matches(token) || parseToken(token, OPERATOR_TOKEN_PREFIX).ok) {
        throw invalidToken('The admin token is not valid on the client API; use a client token issued by the operator.');
      }
      throw invalidToken(REJECTION_DESCRIPTIONS[parsed.reason === 'checksum' ? 'checksum' : 'malformed']);
    }
    const result = await this.tokens.verify(token);
    if (!result.ok) throw invalidToken(REJECTION_DESCRIPTIONS[result.reason]);
    return result.client;
  }
}
