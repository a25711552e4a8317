import { type ExecutionContext, Injectable } from '@nestjs/common';
import { ThrottlerGuard, type ThrottlerRequest } from '@nestjs/throttler';
import type { Response } from 'express';
import { PostgresRateLimitStore } from './postgres-rate-limit.store.js';
import { announceQuota, rateLimited } from './rate-limits.js';

/**
 * @nestjs/throttler's guard with this API's answers: each applied quota announced in the IETF
 * draft's `RateLimit-Policy` / `RateLimit` headers (throttler writes `X-RateLimit-*` ones), and
 * 429 problem+json with `Retry-After` (throttler throws its own ThrottlerException). The rest
 * (named throttlers, skipping, trackers, keys, storage) is throttler's, except that the counters of
 * every quota a request counts against are brought up to date together first (one round trip to
 * PostgreSQL for a client's POST, not one per quota in turn).
 */
@Injectable()
export class RateLimitGuard extends ThrottlerGuard {
  override async canActivate(context: ExecutionContext): Promise<boolean> {
    const applied = this.throttlers.filter((throttler) => !(throttler.skipIf ?? this.commonOptions.skipIf)?.(context));
    if (applied.length > 1 && this.storageService instanceof PostgresRateLimitStore) {
      const { req } = this.getRequestResponse(context);
      const tracker = await this.commonOptions.getTracker!(req, context);
      await this.storageService.refresh(applied.map((throttler) => this.commonOptions.generateKey!(context, tracker, throttler.name!)));
    }
    return super.canActivate(context);
  }

  protected override async handleRequest({
    context,
    limit,
    ttl,
    throttler,
    blockDuration,
    getTracker,
    generateKey,
  }: ThrottlerRequest): Promise<boolean> {
    const { req, res } = this.getRequestResponse(context);
    const name = throttler.name!;
    const key = generateKey(context, await getTracker(req, context), name);
    const { totalHits, timeToExpire, isBlocked, timeToBlockExpire } = await this.storageService.increment(
      key,
      ttl,
      limit,
      blockDuration,
      name,
    );
    announceQuota(res as Response, name, limit, totalHits, timeToExpire);
    if (isBlocked) throw rateLimited(name, limit, timeToBlockExpire);
    return true;
  }
}
