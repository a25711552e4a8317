import type { Response } from 'express';
import type { AppConfig } from '../config/config.js';
import { Problem } from '../common/problem/problem.js';

/** Requests per minute (see AppConfig: RATE_LIMIT_* variables). Public files are not limited. */
export type RateLimits = AppConfig['rateLimits'];

export const RATE_LIMIT_WINDOW_MS = 60_000;
export const RATE_LIMITS = Symbol('RATE_LIMITS');

/**
 * One quota's headers, after draft-ietf-httpapi-ratelimit-headers:
 * `RateLimit-Policy: "client";q=600;w=60` and `RateLimit: "client";r=599;t=42`.
 */
export function announceQuota(res: Response, name: string, limit: number, hits: number, secondsLeft: number): void {
  const [policy, remaining] = quotaHeaders(name, limit, hits, secondsLeft);
  res.append('RateLimit-Policy', policy);
  res.append('RateLimit', remaining);
}

/** The values of one quota's `RateLimit-Policy` and `RateLimit` headers. */
export function quotaHeaders(name: string, limit: number, hits: number, secondsLeft: number): [policy: string, remaining: string] {
  return [`"${name}";q=${limit};w=${RATE_LIMIT_WINDOW_MS / 1000}`, `"${name}";r=${Math.max(0, limit - hits)};t=${secondsLeft}`];
}

export function rateLimited(name: string, limit: number, secondsLeft: number): Problem {
  return new Problem(
    'rate_limited',
    `Rate limit "${name}" of ${limit} requests per ${RATE_LIMIT_WINDOW_MS / 1000} s exceeded; retry in ${secondsLeft} s.`,
    {
      headers: { 'Retry-After': String(secondsLeft) },
    },
  );
}
