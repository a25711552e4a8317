import { Inject, Injectable } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { bearerToken } from '../auth/auth.guard.js';
import { AUTHENTICATED_CLIENT, type RequestWithClient } from '../auth/current-client.decorator.js';
import { TokensService } from '../auth/tokens.service.js';
import { FailedAuthentications } from '../rate-limit/failed-authentications.js';
import { PostgresRateLimitStore } from '../rate-limit/postgres-rate-limit.store.js';
import { announceQuota, RATE_LIMITS, type RateLimits } from '../rate-limit/rate-limits.js';
import { CLIENT_QUOTA, rateLimitKey, tracker } from '../rate-limit/throttlers.js';
import { AccountDto } from './dto/client.dto.js';

/**
 * `GET /api/v1/me` answered before Nest's router when all it takes is in memory: the token's
 * authentication kept by this replica (TokensService.verifyKept: the AuthenticationCache, on while
 * PostgreSQL's announcements of changes reach the replica) and a fresh count of the client's quota
 * with room left (PostgresRateLimitStore.hitIfFresh). The answer is the route's own, byte for byte:
 * the account read with the token, `Cache-Control: no-store`, the quota's RateLimit headers, the
 * request log line with its route and client (test/me-from-memory.e2e-spec.ts compares the two).
 *
 * Anything else goes on to Nest's route (MeController) and its guards, which decide as always: a
 * token not kept here (first use, revoked, unknown, malformed), an address over its failed
 * authentications, a quota that is stale or used up, several Authorization headers, a body, a
 * method other than GET. Deny by default holds: this answers only for a token that Nest's
 * AuthGuard verified on this replica and that nothing has changed since.
 */
@Injectable()
export class MeFromMemory {
  /** Requests answered here (the others went on to Nest's route). */
  answered = 0;

  constructor(
    private readonly tokens: TokensService,
    private readonly failures: FailedAuthentications,
    private readonly store: PostgresRateLimitStore,
    @Inject(RATE_LIMITS) private readonly limits: RateLimits,
  ) {}

  /** The Express handler, mounted on `GET /api/v1/me` ahead of Nest's routes. */
  readonly handle = (req: Request, res: Response, next: NextFunction): void => {
    if (!this.answer(req as Request & RequestWithClient, res)) next();
  };

  private answer(req: Request & RequestWithClient, res: Response): boolean {
    if (req.method !== 'GET' || req.headersDistinct.authorization?.length !== 1) return false;
    if (req.headers['content-length'] !== undefined || req.headers['transfer-encoding'] !== undefined) return false;
    let token: string;
    try {
      token = bearerToken(req.headers.authorization);
    } catch {
      return false;
    }
    if (this.failures.isOverLimit(req)) return false;
    const client = this.tokens.verifyKept(token);
    if (client === undefined) return false;
    req[AUTHENTICATED_CLIENT] = client;
    const quota = this.store.hitIfFresh(rateLimitKey(CLIENT_QUOTA, tracker(req)), this.limits.client);
    if (quota === undefined) {
      delete req[AUTHENTICATED_CLIENT];
      return false;
    }
    req.clientId = client.clientId; // for the request log line
    res.setHeader('Cache-Control', 'no-store');
    announceQuota(res, CLIENT_QUOTA, this.limits.client, quota.hits, quota.secondsLeft);
    res.json(AccountDto.fromAccount(client.account));
    this.answered++;
    return true;
  }
}
