import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { type CallHandler, type ExecutionContext, Injectable, type NestInterceptor, type OnModuleInit } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { doubleCsrf, type DoubleCsrfUtilities } from 'csrf-csrf';
import type { Request, Response } from 'express';
import type { Observable } from 'rxjs';
import { MultipartBody } from '../../common/http/request-body.js';
import { Problem } from '../../common/problem/problem.js';
import { audienceOf, FORM_KEY } from '../../caller/audience.js';
import { AUTHENTICATED_CLIENT, type RequestWithClient } from '../../caller/current-client.js';
import { OPERATOR_SESSION, type RequestWithOperator } from '../../caller/actor.js';
import { ServiceSecretsRepository } from '../../database/service-secrets.repository.js';
import { OperatorSessionsService } from '../operators/operator-sessions.service.js';
import { SessionsService } from './sessions.service.js';

/** Whether a path is the operator's console's (`/operator`, `/operator/…`). */
export const isConsolePath = (path: string | undefined): boolean => path === '/operator' || path?.startsWith('/operator/') === true;

/** The form field every dashboard form carries. */
export const CSRF_FIELD = '_csrf';

/**
 * CSRF protection of the dashboard's forms, with csrf-csrf (double-submit cookie, the token an
 * HMAC bound to the session): the page puts the token in a hidden field and in an HttpOnly
 * cookie; a POST must bring both, equal, and valid for its session. Before sign-in the token is
 * bound to no session (the sign-in forms). The HMAC key is the service's own, made once and kept
 * in PostgreSQL so that every replica shares it.
 */
@Injectable()
export class CsrfProtection implements OnModuleInit {
  private secret = '';
  private utilities!: DoubleCsrfUtilities;
  /** The operator's console's own: its cookie, bound to the console session (`/operator`). */
  private operatorUtilities!: DoubleCsrfUtilities;

  constructor(
    private readonly secrets: ServiceSecretsRepository,
    private readonly sessions: SessionsService,
    private readonly operatorSessions: OperatorSessionsService,
  ) {}

  async onModuleInit(): Promise<void> {
    this.secret = await this.secrets.keepFirst('csrf', randomBytes(32).toString('hex'));
    const getCsrfTokenFromRequest = (req: Request) => {
      const form = req.body instanceof MultipartBody ? req.body.fields : (req.body as Record<string, unknown> | undefined);
      const value = form?.[CSRF_FIELD];
      return typeof value === 'string' ? value : undefined;
    };
    const { csrf, options } = this.sessions.cookies;
    this.utilities = doubleCsrf({
      getSecret: () => this.secret,
      getSessionIdentifier: (req) => (req as Request & RequestWithClient)[AUTHENTICATED_CLIENT]?.sessionId ?? '',
      cookieName: csrf,
      cookieOptions: { ...options, sameSite: 'strict' },
      getCsrfTokenFromRequest,
    });
    const operator = this.operatorSessions.cookies;
    this.operatorUtilities = doubleCsrf({
      getSecret: () => this.secret,
      // A purpose of its own: a dashboard token never verifies on a console form, nor the reverse.
      getSessionIdentifier: (req) => `operator:${(req as Request & RequestWithOperator)[OPERATOR_SESSION] ?? ''}`,
      cookieName: operator.csrf,
      cookieOptions: { ...operator.options, sameSite: 'strict' },
      getCsrfTokenFromRequest,
    });
  }

  /** The console's forms (`/operator…`) have their own tokens and cookie. */
  private of(req: Request): DoubleCsrfUtilities {
    return isConsolePath(req.path) ? this.operatorUtilities : this.utilities;
  }

  /** The token for a page's forms (sets its cookie when there is none yet for this session). */
  token(req: Request, res: Response): string {
    return this.of(req).generateCsrfToken(req, res);
  }

  /**
   * An HMAC of `value` for this session, with the same service key and a `purpose` of its own, so that
   * a page can hand the browser data to bring back unchanged (the declaration between its check and
   * its filing): another session's or an altered value does not verify.
   */
  seal(purpose: string, sessionId: string, value: string): string {
    return createHmac('sha256', this.secret).update(`${purpose}\n${sessionId}\n${value}`).digest('base64url');
  }

  /** Whether `seal` is this session's seal of `value` (compared in constant time). */
  verifySeal(purpose: string, sessionId: string, value: string, seal: string): boolean {
    const expected = Buffer.from(this.seal(purpose, sessionId, value));
    const given = Buffer.from(seal);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  /** 403 unless the form brought the token of its page. */
  check(req: Request): void {
    if (!this.of(req).validateRequest(req)) {
      throw new Problem('csrf_failed', 'This form has expired or did not come from this site: reload the page and send it again.');
    }
  }
}

/**
 * Runs after the body is read (RequestBodyInterceptor, registered before it): every POST of a
 * dashboard page (`session` audience) or a public form (`PublicForm()`) is checked. Deny by default:
 * a new dashboard route is protected without asking for it.
 */
@Injectable()
export class CsrfInterceptor implements NestInterceptor {
  constructor(
    private readonly csrf: CsrfProtection,
    private readonly reflector: Reflector,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const req = context.switchToHttp().getRequest<Request>();
    const audience = audienceOf(context);
    const form =
      audience === 'session' ||
      audience === 'operator' ||
      this.reflector.getAllAndOverride<boolean>(FORM_KEY, [context.getHandler(), context.getClass()]) === true;
    if (form && !['GET', 'HEAD', 'OPTIONS'].includes(req.method)) this.csrf.check(req);
    return next.handle();
  }
}
