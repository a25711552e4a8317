import { type CanActivate, type ExecutionContext, Inject, Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import { type Audience, audienceOf } from '../common/openapi.js';
import { Problem } from '../common/problem/problem.js';
import { AUTHENTICATED_CLIENT, type RequestWithClient } from '../auth/current-client.decorator.js';
import { PostgresRateLimitStore } from './postgres-rate-limit.store.js';
import { RATE_LIMIT_WINDOW_MS, RATE_LIMITS, type RateLimits } from './rate-limits.js';

interface Policy {
  name: string;
  limit: number;
  applies: (audience: Audience, method: string) => boolean;
}

/**
 * Per-token rate limits, shared by every replica through PostgreSQL (see PostgresRateLimitStore:
 * counted in memory, flushed in batches, read back when stale).
 * It runs after the AuthGuard (registered first), on authenticated requests only: limits follow
 * the token that authenticated (its id), not the IP nor the spelling of the Authorization header
 * (`bearer` and `Bearer  ` are one token); the operator has one credential, one limit.
 * Public files are not limited.
 * Headers follow draft-ietf-httpapi-ratelimit-headers:
 * `RateLimit-Policy: "client";q=600;w=60` and `RateLimit: "client";r=599;t=42`.
 */
@Injectable()
export class RateLimitGuard implements CanActivate {
  private readonly policies: Policy[];

  constructor(
    private readonly store: PostgresRateLimitStore,
    @Inject(RATE_LIMITS) limits: RateLimits,
  ) {
    this.policies = [
      { name: 'client', limit: limits.client, applies: (audience) => audience === 'client' },
      { name: 'client-write', limit: limits.clientWrite, applies: (audience, method) => audience === 'client' && method === 'POST' },
      { name: 'admin', limit: limits.admin, applies: (audience) => audience === 'admin' },
    ];
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const audience = audienceOf(context);
    const req = context.switchToHttp().getRequest<Request>();
    const res = context.switchToHttp().getResponse<Response>();
    const policies = this.policies.filter((p) => p.applies(audience, req.method));
    if (policies.length === 0) return true;
    const seconds = RATE_LIMIT_WINDOW_MS / 1000;
    const key = tracker(req, audience);
    const { hits, secondsLeft } = await this.store.hit(policies.map((p) => `${p.name}:${key}`));
    policies.forEach((policy, i) => {
      res.append('RateLimit-Policy', `"${policy.name}";q=${policy.limit};w=${seconds}`);
      res.append('RateLimit', `"${policy.name}";r=${Math.max(0, policy.limit - hits[i]!)};t=${secondsLeft}`);
    });
    const exceeded = policies.find((policy, i) => hits[i]! > policy.limit);
    if (exceeded) {
      throw new Problem('rate_limited', `Rate limit "${exceeded.name}" of ${exceeded.limit} requests per ${seconds} s exceeded; retry in ${secondsLeft} s.`, {
        headers: { 'Retry-After': String(secondsLeft) },
      });
    }
    return true;
  }
}

function tracker(req: Request & RequestWithClient, audience: Audience): string {
  if (audience === 'admin') return 'admin';
  const client = req[AUTHENTICATED_CLIENT];
  // Only reachable through a programming error: this guard registered before the AuthGuard.
  if (!client) throw new Error('RateLimitGuard ran on a client route before the AuthGuard authenticated it');
  return `token:${client.tokenId}`;
}
