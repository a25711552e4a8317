import type { IncomingMessage, ServerResponse } from 'node:http';
import { Inject, Injectable } from '@nestjs/common';
import { AccountDto } from '../accounts/dto/client.dto.js';
import { bearerToken } from '../auth/bearer/bearer-header.js';
import { ClientTokenVerifier } from '../auth/tokens/client-token-verifier.js';
import type { VerifiedClient } from '../auth/verified-client.js';
import { AUTHENTICATED_CLIENT, type RequestWithClient } from '../caller/current-client.js';
import { RequestLog } from '../common/logging.js';
import { FailedAuthentications } from '../rate-limit/failed-authentications.js';
import { PostgresRateLimitStore } from '../rate-limit/postgres-rate-limit.store.js';
import { quotaHeaders, RATE_LIMITS, type RateLimits } from '../rate-limit/rate-limits.js';
import { CLIENT_QUOTA, rateLimitKey, tracker } from '../rate-limit/throttlers.js';

/** The route answered here, as the request log names it. */
export const ME_PATH = '/api/v1/me';

/**
 * `GET /api/v1/me` answered by the edge when all it takes is in memory: the token's authentication kept
 * by this replica (ClientTokenVerifier.verifyKept) and a fresh client quota with room left
 * (PostgresRateLimitStore.hitIfFresh). The answer is the route's own, byte for byte, headers and log line
 * (test/me-from-memory.e2e-spec.ts compares them). Anything else (a token not kept, too many failures, a
 * stale or spent quota, several Authorization headers, a body, another method, a query) goes on to
 * MeController and its guards. Each step is the pipeline's own code: bearerToken, FailedAuthentications,
 * ClientTokenVerifier, and the rate-limit guard's key and counters.
 */
@Injectable()
export class MeFromMemory {
  /** Requests answered here (the others went on to Nest's route). */
  answered = 0;
  /** The JSON of each kept authentication's account (the kept objects are frozen: it cannot change). */
  private readonly bodies = new WeakMap<VerifiedClient, string>();

  constructor(
    private readonly tokens: ClientTokenVerifier,
    private readonly failures: FailedAuthentications,
    private readonly store: PostgresRateLimitStore,
    @Inject(RATE_LIMITS) private readonly limits: RateLimits,
  ) {}

  /**
   * Answers the request if it can, and says so; otherwise does nothing to it (the caller hands it
   * on). `address`: the client's address as Express would give it (`req.ip`, TRUST_PROXY applied).
   */
  answer(req: IncomingMessage & RequestWithClient, res: ServerResponse, address: () => string): boolean {
    if (req.method !== 'GET' || req.url !== ME_PATH || req.headersDistinct.authorization?.length !== 1) return false;
    if (req.headers['content-length'] !== undefined || req.headers['transfer-encoding'] !== undefined) return false;
    let token: string;
    try {
      token = bearerToken(req.headers.authorization);
    } catch {
      return false;
    }
    if (this.failures.isOverLimit(address())) return false;
    const client = this.tokens.verifyKept(token);
    if (client === undefined) return false;
    const quota = this.store.hitIfFresh(rateLimitKey(CLIENT_QUOTA, tracker({ [AUTHENTICATED_CLIENT]: client })), this.limits.client);
    if (quota === undefined) return false;
    req.clientId = client.clientId; // for the request log line
    RequestLog.setRoute(req, ME_PATH);
    let body = this.bodies.get(client);
    if (body === undefined) this.bodies.set(client, (body = JSON.stringify(AccountDto.fromAccount(client.account))));
    res.setHeader('Cache-Control', 'no-store');
    const [policy, remaining] = quotaHeaders(CLIENT_QUOTA, this.limits.client, quota.hits, quota.secondsLeft);
    res.setHeader('RateLimit-Policy', policy);
    res.setHeader('RateLimit', remaining);
    // As Express's res.json writes them.
    res.setHeader('Content-Type', 'application/json; charset=utf-8');
    res.setHeader('Content-Length', Buffer.byteLength(body));
    res.end(body);
    this.answered++;
    return true;
  }
}
