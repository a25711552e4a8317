import { Inject, Injectable, Logger } from '@nestjs/common';
import { normalizeIp } from '@nestjs/throttler';
import type { Request, Response } from 'express';
import { Problem } from '../common/problem/problem.js';
import { PostgresRateLimitStore } from './postgres-rate-limit.store.js';
import { announceQuota, RATE_LIMIT_WINDOW_MS, RATE_LIMITS, type RateLimits } from './rate-limits.js';

const NAME = 'auth-failures';

/**
 * Failed authentications per client address (`req.ip`: the socket's address, or the one
 * `X-Forwarded-For` gives when TRUST_PROXY trusts the proxy; IPv6 by /64, which one host
 * commonly holds). An address that failed `authFailures` times in the current minute gets 429
 * on every authenticated route until the minute ends, before any token is looked up, even a
 * good one: telling a good token from a bad one is the database lookup a flood of well-formed
 * tokens wants to cost us. Public routes are never refused.
 *
 * Not a @nestjs/throttler throttler: a throttler counts every request it sees, this counts only
 * failures, and must refuse before authentication (in the AuthGuard) while the throttlers count
 * after it (they need the client). It shares their counters (counted in memory, shared through
 * PostgreSQL): the check reads this replica's view only, so a replica refuses an address from
 * the first failure it sees from it once the shared count is over (at most a second late).
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
