import { Inject, Injectable, Logger } from '@nestjs/common';
import { normalizeIp } from '@nestjs/throttler';
import type { Request, Response } from 'express';
import { Problem } from '../common/problem/problem.js';
import { PostgresRateLimitStore } from './postgres-rate-limit.store.js';
import { announceQuota, RATE_LIMIT_WINDOW_MS, RATE_LIMITS, type RateLimits } from './rate-limits.js';

const NAME = 'auth-failures';

/**
 * Failed authentications per client address (`req.ip`, through TRUST_PROXY; IPv6 by /64). Past
 * `authFailures` in the current minute, an address gets 429 on every authenticated route before any token
 * is looked up, even a good one (that lookup is what a flood of well-formed tokens would cost us); public
 * routes are never refused. Not a @nestjs/throttler throttler: it counts failures only and refuses before
 * authentication (in the AuthGuard), on the throttlers' shared counters, from this replica's view (so at
 * most a second late).
 */
@Injectable()
export class FailedAuthentications {
  private readonly logger = new Logger(FailedAuthentications.name);

  constructor(
    private readonly store: PostgresRateLimitStore,
    @Inject(RATE_LIMITS) private readonly limits: RateLimits,
  ) {}

  /** Whether an address (`req.ip`) has used up its failures for this minute (refuseIfOverLimit then refuses it). No database access. */
  isOverLimit(address: string): boolean {
    return this.store.peek(keyOfAddress(address)).hits >= this.limits.authFailures;
  }

  /** 429 when the request's address has used up its failures for this minute. No database access. */
  refuseIfOverLimit(req: Request, res: Response): void {
    const limit = this.limits.authFailures;
    const { hits, secondsLeft } = this.store.peek(keyOf(req));
    if (hits < limit) return;
    announceQuota(res, NAME, limit, hits, secondsLeft);
    throw new Problem(
      'rate_limited',
      `Too many failed authentications from this address (${limit} per ${RATE_LIMIT_WINDOW_MS / 1000} s); retry in ${secondsLeft} s.`,
      { headers: { 'Retry-After': String(secondsLeft) } },
    );
  }

  /** Counts a failed authentication of the request's address; the 401 does not wait for it. */
  record(req: Request): void {
    this.store.hit([keyOf(req)]).catch((error: unknown) => this.logger.warn(`failed authentication not counted: ${String(error)}`));
  }
}

function keyOf(req: Request): string {
  return keyOfAddress(req.ip ?? req.socket.remoteAddress ?? 'unknown');
}

function keyOfAddress(address: string): string {
  return `${NAME}:${normalizeIp(address)}`;
}
