/** Requests per token per minute. Public files are not limited (they are static and CDN-friendly). */
export interface RateLimits {
  /** Any authenticated client request. */
  client: number;
  /** Client writes (POST), on top of `client`. */
  clientWrite: number;
  /** Operator requests. */
  admin: number;
}

export const DEFAULT_RATE_LIMITS: RateLimits = { client: 600, clientWrite: 60, admin: 120 };
export const RATE_LIMIT_WINDOW_MS = 60_000;
export const RATE_LIMITS = Symbol('RATE_LIMITS');
