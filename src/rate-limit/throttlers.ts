import type { ExecutionContext } from '@nestjs/common';
import type { ThrottlerModuleOptions } from '@nestjs/throttler';
import type { Request } from 'express';
import { AUTHENTICATED_CLIENT, type RequestWithClient } from '../caller/current-client.js';
import { AUTHENTICATED_OPERATOR, type RequestWithOperator } from '../caller/actor.js';
import { type Audience, audienceOf } from '../caller/audience.js';
import { RATE_LIMIT_WINDOW_MS, type RateLimits } from './rate-limits.js';

/** Skips the throttler unless the route's audience and the method say it applies. */
const appliesTo =
  (applies: (audience: Audience, method: string) => boolean) =>
  (context: ExecutionContext): boolean =>
    !applies(audienceOf(context), context.switchToHttp().getRequest<Request>().method);

/**
 * Who a limit counts: a client (every token of it shares one budget: issuing more tokens does not
 * buy more requests) or an operator identity. Set by the AuthGuard, which runs first.
 */
export function tracker(req: RequestWithClient & RequestWithOperator): string {
  const client = req[AUTHENTICATED_CLIENT];
  // The sandbox has its own budget: an integrator's test run never eats into the live quota (nor the reverse).
  if (client) return client.mode === 'test' ? `client:${client.clientId}:test` : `client:${client.clientId}`;
  const operator = req[AUTHENTICATED_OPERATOR];
  // The bootstrap ADMIN_TOKEN is one identity; each named operator token another.
  if (operator) return `operator:${operator.kind === 'admin' ? 'admin' : operator.id}`;
  // Only reachable through a programming error: the rate-limit guard registered before the AuthGuard.
  throw new Error('The rate-limit guard ran before the AuthGuard authenticated the request');
}

/** The counter of a throttler's quota for a caller (`tracker`): per caller, not per route. */
export const rateLimitKey = (throttler: string, trackerKey: string): string => `${throttler}:${trackerKey}`;

/** The quota every client request counts against (its API calls and its people's dashboard pages). */
export const CLIENT_QUOTA = 'client';

/**
 * The named throttlers of @nestjs/throttler, one window of a minute each, on authenticated routes
 * only (public files are static and CDN-friendly: not limited). Counters are keyed `<throttler>:<tracker>`
 * (throttler's default key is per route; these limits are per caller).
 */
export function throttlerOptions(limits: RateLimits): ThrottlerModuleOptions {
  return {
    throttlers: [
      // A client's API calls and its people's dashboard pages share one budget.
      {
        name: CLIENT_QUOTA,
        limit: limits.client,
        ttl: RATE_LIMIT_WINDOW_MS,
        skipIf: appliesTo((audience) => audience === 'client' || audience === 'session'),
      },
      {
        name: 'client-write',
        limit: limits.clientWrite,
        ttl: RATE_LIMIT_WINDOW_MS,
        skipIf: appliesTo((audience, method) => (audience === 'client' || audience === 'session') && method === 'POST'),
      },
      {
        name: 'admin',
        limit: limits.admin,
        ttl: RATE_LIMIT_WINDOW_MS,
        skipIf: appliesTo((audience) => audience === 'admin' || audience === 'operator'),
      },
    ],
    getTracker: (req) => tracker(req as RequestWithClient),
    generateKey: (_context, trackerKey, throttler) => rateLimitKey(throttler, trackerKey),
  };
}
