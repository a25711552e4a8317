import { type CanActivate, type ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { normalizeIp } from '@nestjs/throttler';
import type { Request, Response } from 'express';
import { foldEmail } from '../common/email-address.js';
import { FORM_KEY } from '../caller/audience.js';
import { Problem } from '../common/problem/problem.js';
import { PostgresRateLimitStore } from './postgres-rate-limit.store.js';
import { announceQuota, RATE_LIMIT_WINDOW_MS, RATE_LIMITS, type RateLimits } from './rate-limits.js';

/**
 * The dashboard's sign-in requests (the e-mail form and the sign-in links), before anyone is
 * signed in: per client address (`req.ip`, IPv6 by /64), and per e-mail address asked for, so that
 * neither one address nor many can flood one mailbox. On the shared counters, like every limit.
 */
@Injectable()
export class SignInLimits {
  constructor(
    private readonly store: PostgresRateLimitStore,
    @Inject(RATE_LIMITS) private readonly limits: RateLimits,
  ) {}

  /** Counts a sign-in request of this address; 429 past the limit. */
  async countAddress(req: Request, res: Response): Promise<void> {
    const { hits, secondsLeft } = await this.store.hit([`sign-in:${normalizeIp(req.ip ?? req.socket.remoteAddress ?? 'unknown')}`]);
    announceQuota(res, 'sign-in', this.limits.signIn, hits[0]!, secondsLeft);
    if (hits[0]! > this.limits.signIn) {
      throw new Problem(
        'rate_limited',
        `Too many sign-in requests from this address (${this.limits.signIn} per ${RATE_LIMIT_WINDOW_MS / 1000} s); retry in ${secondsLeft} s.`,
        {
          headers: { 'Retry-After': String(secondsLeft) },
        },
      );
    }
  }

  /**
   * Counts a sign-in e-mail to `email`, a client's confirmed address as stored (one limit per
   * stored address, whatever was typed to reach it: A–Z folded, nothing else); false past the
   * limit (the page says the same either way).
   */
  async allowEmail(email: string): Promise<boolean> {
    const { hits } = await this.store.hit([`sign-in-email:${foldEmail(email)}`]);
    return hits[0]! <= this.limits.signInEmails;
  }
}

/**
 * Counts every POST of a public form (`PublicForm()`: the sign-in forms) against its address's
 * sign-in limit before anything else is done with it: a guard runs before the body is read
 * (RequestBodyInterceptor), so an address past its limit gets its 429 without one byte of its body
 * read or parsed, whatever the body holds.
 */
@Injectable()
export class SignInLimitGuard implements CanActivate {
  constructor(
    private readonly limits: SignInLimits,
    private readonly reflector: Reflector,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const http = context.switchToHttp();
    const req = http.getRequest<Request>();
    if (req.method !== 'POST' || this.reflector.getAllAndOverride<boolean>(FORM_KEY, [context.getHandler(), context.getClass()]) !== true)
      return true;
    await this.limits.countAddress(req, http.getResponse<Response>());
    return true;
  }
}
