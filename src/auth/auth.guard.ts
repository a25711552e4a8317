import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { AuthGuard as PassportGuard } from '@nestjs/passport';
import type { Request, Response } from 'express';
import { REQUEST_ACCOUNT, type RequestWithAccount } from '../accounts/current-account.js';
import { AUTHENTICATED_OPERATOR, OPERATOR_SESSION, type OperatorIdentity, type RequestWithOperator } from '../caller/actor.js';
import { audienceOf } from '../caller/audience.js';
import { AUTHENTICATED_CLIENT, type RequestWithClient } from '../caller/current-client.js';
import { Problem } from '../common/problem/problem.js';
import { RefusedActions } from '../audit/refused-actions.js';
import { FailedAuthentications } from '../rate-limit/failed-authentications.js';
import {
  accountSuspended,
  bearerToken,
  invalidToken,
  isB64Token,
  missingToken,
  NOT_FOR_CLIENTS,
  refuseSeveralAuthorizations,
  refuseTokenOutsideHeader,
  REJECTION_DESCRIPTIONS,
} from './bearer/bearer-header.js';
import { ClientBearerStrategy } from './bearer/client-bearer.strategy.js';
import { OperatorBearerStrategy } from './bearer/operator-bearer.strategy.js';
import { AdminCredential } from './operators/admin-credential.js';
import { OperatorSessionsService } from './operators/operator-sessions.service.js';
import { SessionsService } from './sessions/sessions.service.js';
import type { VerifiedClient } from './verified-client.js';

type AuthenticatedRequest = Request & RequestWithClient & RequestWithOperator & RequestWithAccount & { cookies?: Record<string, unknown> };

/** Where a bearer strategy's answer is left on the request for the global guard. */
const PASSPORT_USER = Symbol('passportUser');
/** The bearer token the global guard read from the Authorization header, for the passport guard. */
const BEARER_TOKEN = Symbol('bearerToken');

/**
 * @nestjs/passport's guard for one passport-http-bearer strategy, with this API's answers: a
 * strategy's refusal is the problem its `validate` threw (RFC 6750 challenges included), not
 * passport's bare 401. passport sees only the Authorization header, as the global guard read it
 * (RFC 9110 allows several spaces after the scheme, which passport-http-bearer's parser does not):
 * never the query string (refused before, with 400) nor a body (not read before authentication).
 */
function bearerGuard(strategy: string) {
  return class BearerGuard extends PassportGuard(strategy) {
    override getRequest(context: ExecutionContext) {
      const token = context.switchToHttp().getRequest<Record<symbol, string>>()[BEARER_TOKEN];
      return { headers: { authorization: `Bearer ${token}` } };
    }

    override handleRequest<T>(error: unknown, user: T | false, _info: unknown, context: ExecutionContext): T {
      if (error) throw error;
      // Not reached: the strategies answer or throw; a token-less request was refused before.
      if (!user) throw missingToken('This route needs a token: send "Authorization: Bearer <token>".');
      context.switchToHttp().getRequest<Record<symbol, unknown>>()[PASSPORT_USER] = user;
      return user;
    }
  };
}

/**
 * The global guard (APP_GUARD, first of the pipeline): deny by default, by the route's audience.
 * `Public()` is open; `DashboardPage()` needs a live dashboard session (cookie) and reaches its client
 * only; `OperatorPage()` a live console session of a named operator (its own cookie; acting as that
 * operator, as its token would); `AdminApi()` the operator's bearer (ADMIN_TOKEN or a named operator token; 403 while no
 * ADMIN_TOKEN is set); any other route, with or without metadata, a client token. Authenticated
 * responses are `no-store`; an address over its failed authentications this minute gets 429 before its
 * token is read. Bearer tokens go through passport (bearer/), except ADMIN_TOKEN (≥ 32 characters,
 * spaces included, which passport-http-bearer cannot parse; compared by hash in constant time).
 */
@Injectable()
export class AuthGuard implements CanActivate {
  private readonly clientBearer: CanActivate;
  private readonly operatorBearer: CanActivate;

  constructor(
    private readonly admin: AdminCredential,
    private readonly failures: FailedAuthentications,
    private readonly sessions: SessionsService,
    private readonly refusals: RefusedActions,
    clientStrategy: ClientBearerStrategy,
    operatorStrategy: OperatorBearerStrategy,
    private readonly operatorSessions: OperatorSessionsService,
  ) {
    this.clientBearer = new (bearerGuard(clientStrategy.passportName))();
    this.operatorBearer = new (bearerGuard(operatorStrategy.passportName))();
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const audience = audienceOf(context);
    if (audience === 'public') return true;
    const http = context.switchToHttp();
    const req = http.getRequest<AuthenticatedRequest>();
    const res = http.getResponse<Response>();
    res.setHeader('Cache-Control', 'no-store');
    refuseSeveralAuthorizations(req);
    if (audience === 'session') {
      // A dashboard page: the session cookie, never a bearer token (a page is not an API route).
      const cookie = req.cookies?.[this.sessions.cookies.session];
      // A cookie that names no live session is a failed authentication like a bad token: counted
      // per address, and past the limit the address's cookies are not looked up (each lookup is a
      // database write). No cookie at all is someone to send to sign in, not a failure.
      if (cookie !== undefined) this.failures.refuseIfOverLimit(req, res);
      const session = await this.sessions.resolve(cookie);
      if (!session) {
        if (cookie !== undefined) this.failures.record(req);
        throw new Problem('session_required', 'Sign in to the dashboard to see this page.');
      }
      if (session.suspended) throw accountSuspended(session.clientId);
      this.admitClient(req, {
        clientId: session.clientId,
        tokenId: null,
        sessionId: session.sessionId,
        mode: 'live',
        account: session.account,
      });
      return true;
    }
    if (audience === 'operator') {
      // A console page: the console's session cookie only; a client's session cookie or any token opens nothing here.
      const cookie = req.cookies?.[this.operatorSessions.cookies.session];
      if (cookie !== undefined) this.failures.refuseIfOverLimit(req, res);
      const session = await this.operatorSessions.resolve(cookie);
      if (!session) {
        if (cookie !== undefined) this.failures.record(req);
        throw new Problem('session_required', "Sign in to the operator's console to see this page.");
      }
      req[AUTHENTICATED_OPERATOR] = { kind: 'operator', id: session.operatorId, name: session.name };
      req[OPERATOR_SESSION] = session.sessionId;
      return true;
    }
    refuseTokenOutsideHeader(req);
    this.failures.refuseIfOverLimit(req, res);
    try {
      if (audience === 'admin') {
        if (!this.admin.enabled) {
          throw new Problem(
            'admin_api_disabled',
            'The admin API is disabled because ADMIN_TOKEN is not configured. Set ADMIN_TOKEN (a secret of at least 32 characters) in the environment of the service and restart it to enable the admin API.',
          );
        }
        const token = bearerToken(req.headers.authorization);
        if (this.admin.matches(token)) {
          req[AUTHENTICATED_OPERATOR] = { kind: 'admin' };
          return true;
        }
        if (!isB64Token(token)) throw invalidToken('The token is not the admin token.');
        req[AUTHENTICATED_OPERATOR] = await this.passport<OperatorIdentity>(this.operatorBearer, context, token);
        return true;
      }
      const token = bearerToken(req.headers.authorization);
      if (!isB64Token(token)) throw invalidToken(this.admin.matches(token) ? NOT_FOR_CLIENTS : REJECTION_DESCRIPTIONS.malformed);
      this.admitClient(req, await this.passport<VerifiedClient>(this.clientBearer, context, token));
      return true;
    } catch (error) {
      if (error instanceof Problem && error.status === 401) {
        this.failures.record(req);
        // A failed authentication to the admin API is a refused operator action (bounded per address by the line above's limit).
        if (audience === 'admin') await this.refusals.record(req, error, null);
      }
      throw error;
    }
  }

  /** Lets the passport guard of the audience verify the header's bearer token. */
  private async passport<T>(guard: CanActivate, context: ExecutionContext, token: string): Promise<T> {
    const bag = context.switchToHttp().getRequest<Record<symbol, unknown>>();
    bag[BEARER_TOKEN] = token;
    try {
      await guard.canActivate(context);
      return bag[PASSPORT_USER] as T;
    } finally {
      delete bag[BEARER_TOKEN];
      delete bag[PASSPORT_USER];
    }
  }

  /** Who is calling (the caller layer) and its account (the accounts layer), read together. */
  private admitClient(req: AuthenticatedRequest, client: VerifiedClient): void {
    req[AUTHENTICATED_CLIENT] = client;
    req[REQUEST_ACCOUNT] = client.account;
    req.clientId = client.clientId; // for the request log line
  }
}
