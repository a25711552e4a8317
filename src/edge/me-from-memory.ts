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
import { securityHeaderList } from './security-headers.js';

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
  /** What each kept authentication's answer needs, made once (the kept objects are frozen: it cannot change). */
  private readonly answers = new WeakMap<VerifiedClient, KeptAnswer>();
  /**
   * Every answer's headers as `[name, value, …]` for writeHead, in the order the route sends them (the
   * edge's, the guard's, res.json's); the request id, the quota left and the length are filled in.
   */
  private readonly headers: string[];

  constructor(
    private readonly tokens: ClientTokenVerifier,
    private readonly failures: FailedAuthentications,
    private readonly store: PostgresRateLimitStore,
    @Inject(RATE_LIMITS) private readonly limits: RateLimits,
  ) {
    this.headers = [
      'X-Request-Id',
      '',
      ...securityHeaderList(),
      'Cache-Control',
      'no-store',
      'RateLimit-Policy',
      quotaHeaders(CLIENT_QUOTA, limits.client, 0, 0)[0],
      'RateLimit',
      '',
      'Content-Type',
      'application/json; charset=utf-8',
      'Content-Length',
      '',
    ];
  }

  /**
   * Answers the request if it can, and says so; otherwise does nothing to it (the caller hands it
   * on). `address`: the client's address as Express would give it (`req.ip`, TRUST_PROXY applied).
   * `id`: the request's id (X-Request-Id). One writeHead with every header, no header set before.
   */
  answer(req: IncomingMessage & RequestWithClient, res: ServerResponse, address: () => string, id: string): boolean {
    if (req.method !== 'GET' || req.url !== ME_PATH || !hasOneAuthorization(req.rawHeaders)) return false;
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
    let kept = this.answers.get(client);
    if (kept === undefined) {
      const body = JSON.stringify(AccountDto.fromAccount(client.account));
      const quotaKey = rateLimitKey(CLIENT_QUOTA, tracker({ [AUTHENTICATED_CLIENT]: client }));
      kept = { quotaKey, body, length: String(Buffer.byteLength(body)) };
      this.answers.set(client, kept);
    }
    const quota = this.store.hitIfFresh(kept.quotaKey, this.limits.client);
    if (quota === undefined) return false;
    req.clientId = client.clientId; // for the request log line
    RequestLog.setRoute(req, ME_PATH);
    const headers = this.headers.slice();
    headers[1] = id;
    headers[headers.length - 5] = quotaHeaders(CLIENT_QUOTA, this.limits.client, quota.hits, quota.secondsLeft)[1];
    headers[headers.length - 1] = kept.length;
    res.writeHead(200, headers);
    res.end(kept.body);
    this.answered++;
    return true;
  }
}

interface KeptAnswer {
  /** The client quota's counter. */
  quotaKey: string;
  body: string;
  /** Its Content-Length. */
  length: string;
}

/** Exactly one Authorization header (Node keeps only the first in `req.headers`). */
function hasOneAuthorization(rawHeaders: string[]): boolean {
  let count = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!;
    if (name.length === 13 && name.toLowerCase() === 'authorization') count++;
  }
  return count === 1;
}
