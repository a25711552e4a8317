import { type BeforeApplicationShutdown, Injectable, Logger } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { AuditTrail } from '../audit/audit-trail.js';
import { ACCOUNT_COLUMNS, type AccountRow, accountFromRow } from '../accounts/account.js';
import { AccountsService } from '../accounts/accounts.service.js';
import { NotFoundProblem } from '../common/problem/problem.js';
import { PreparedStatements, type Statement } from '../database/prepared-statements.js';
import { ClientTokenEntity, type TokenCreatedVia } from './client-token.entity.js';
import { AuthenticationCache } from './authentication-cache.js';
import type { AuthenticatedClient } from './current-client.decorator.js';
import type { Actor } from './operators/current-operator.decorator.js';
import { displayPrefix, generateToken, hashToken, parseToken } from '../common/token-format.js';

/** Token metadata: everything but the secret and its hash. */
export interface TokenMetadata {
  id: string;
  clientId: string;
  prefix: string;
  name: string | null;
  createdAt: Date;
  expiresAt: Date | null;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
  createdVia: TokenCreatedVia;
}

/** A newly issued token: the only time the secret exists outside the client's hands. */
export interface IssuedToken {
  token: string;
  metadata: TokenMetadata;
}

export type TokenRejection = 'malformed' | 'checksum' | 'unknown' | 'expired' | 'revoked';
export type VerifyResult = { ok: true; client: AuthenticatedClient } | { ok: false; reason: TokenRejection };

/** `last_used_at` is written at most once per token per minute (per process; the SQL guards across replicas). */
export const LAST_USED_RESOLUTION_MS = 60_000;
/** Bound on the in-process map of recorded uses; the oldest entries are dropped first. */
const MAX_TRACKED_TOKENS = 10_000;
/** Uses of tokens are written together, at most this long after the first of them. */
const USE_FLUSH_MS = 100;
/** A token by the hash of its secret, with its client's account. */
const LOOKUP: Statement = {
  name: 'tokens.lookup',
  text: `SELECT t.id AS "tokenId", t.revoked_at IS NOT NULL AS revoked, t.expires_at <= now() AS expired,
                (extract(epoch FROM t.expires_at - now()) * 1000)::float8 AS "expiresInMs", ${ACCOUNT_COLUMNS}
           FROM client_tokens t JOIN clients c ON c.client_id = t.client_id
          WHERE t.token_hash = $1`,
};
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const metadataOf = (t: ClientTokenEntity): TokenMetadata => ({
  id: t.id,
  clientId: t.clientId,
  prefix: t.prefix,
  name: t.name,
  createdAt: t.createdAt,
  expiresAt: t.expiresAt,
  lastUsedAt: t.lastUsedAt,
  revokedAt: t.revokedAt,
  createdVia: t.createdVia,
});

/** Client tokens: issue (shown once), list (metadata), revoke, verify. */
@Injectable()
export class TokensService implements BeforeApplicationShutdown {
  private readonly logger = new Logger(TokensService.name);
  /** Use records still being written (the app waits for them before closing its connections). */
  private readonly writing = new Set<Promise<unknown>>();
  /** Token id → when this process last recorded its use (ms since epoch). */
  private readonly lastRecorded = new Map<string, number>();
  /** Uses noted and not written yet, and the timer that writes them. */
  private readonly usedSince = new Set<string>();
  private useTimer: NodeJS.Timeout | undefined;

  constructor(
    @InjectRepository(ClientTokenEntity) private readonly tokens: Repository<ClientTokenEntity>,
    private readonly accounts: AccountsService,
    private readonly statements: PreparedStatements,
    private readonly audit: AuditTrail,
    private readonly cache: AuthenticationCache,
  ) {
    accounts.onAccountChanged((clientId) => cache.changed(clientId));
  }

  async issue(clientId: string, options: { name?: string | null; expiresAt?: Date | null }, actor: Actor): Promise<IssuedToken> {
    await this.accounts.assertExists(clientId);
    const token = generateToken();
    const entity = this.tokens.create({
      clientId,
      tokenHash: hashToken(token),
      prefix: displayPrefix(token),
      name: options.name ?? null,
      expiresAt: options.expiresAt ?? null,
      createdVia: actor.operator.kind === 'client' ? 'dashboard' : 'operator',
    });
    return this.tokens.manager.transaction(async (manager) => {
      const saved = await manager.save(entity);
      await this.audit.record(manager, actor, {
        action: 'token.issued',
        targetType: 'token',
        targetId: saved.id,
        clientId,
        changes: { name: saved.name, prefix: saved.prefix, expires_at: saved.expiresAt, created_via: saved.createdVia },
      });
      return { token, metadata: metadataOf(saved) };
    });
  }

  /** Newest first. */
  async list(clientId: string): Promise<TokenMetadata[]> {
    await this.accounts.assertExists(clientId);
    const rows = await this.tokens.find({ where: { clientId }, order: { createdAt: 'DESC', id: 'DESC' } });
    return rows.map(metadataOf);
  }

  /** Idempotent: revoking a revoked token keeps its first `revoked_at` (and records nothing). */
  async revoke(clientId: string, tokenId: string, actor: Actor): Promise<void> {
    await this.accounts.assertExists(clientId);
    const notFound = new NotFoundProblem(`Token "${tokenId}" of client "${clientId}"`);
    if (!UUID.test(tokenId)) throw notFound;
    await this.tokens.manager.transaction(async (manager) => {
      // A SELECT over the UPDATE: TypeORM's query() answers an UPDATE with [rows, count], a SELECT with its rows.
      const revoked: { id: string; name: string | null }[] = await manager.query(
        `WITH revoked AS (UPDATE client_tokens SET revoked_at = now() WHERE id = $1 AND client_id = $2 AND revoked_at IS NULL RETURNING id, name)
         SELECT * FROM revoked`,
        [tokenId, clientId],
      );
      if (revoked.length === 0) {
        if (!(await manager.existsBy(ClientTokenEntity, { id: tokenId, clientId }))) throw notFound;
        return;
      }
      await this.audit.record(manager, actor, { action: 'token.revoked', targetType: 'token', targetId: tokenId, clientId, changes: { name: revoked[0]!.name } });
    });
    // At once on this replica; the others hear of it from PostgreSQL (migration AuthChangeNotifications).
    this.cache.changed(clientId);
  }

  /**
   * Checks a presented client token. Shape and checksum first, with no I/O; then the authentication
   * this replica keeps for it (AuthenticationCache: only while PostgreSQL's announcements of every
   * change to tokens and accounts reach this replica), else ONE indexed lookup by SHA-256 hash, which
   * also reads the client's account (the caller of a client route needs it). Only successes are kept.
   *
   * `recordUse` (default true) notes the use in `last_used_at`, throttled, without waiting for it.
   */
  async verify(token: string, { recordUse = true }: { recordUse?: boolean } = {}): Promise<VerifyResult> {
    const parsed = parseToken(token);
    if (!parsed.ok) return { ok: false, reason: parsed.reason === 'checksum' ? 'checksum' : 'malformed' };
    const hash = hashToken(token);
    const kept = this.cache.get(hash);
    if (kept !== undefined) {
      if (recordUse) this.recordUse(kept.tokenId!);
      return { ok: true, client: kept };
    }
    const mark = this.cache.mark();
    const [row] = await this.statements.query<AccountRow & { tokenId: string; revoked: boolean; expired: boolean | null; expiresInMs: number | null }>(LOOKUP, [hash]);
    if (!row) return { ok: false, reason: 'unknown' };
    if (row.revoked) return { ok: false, reason: 'revoked' };
    if (row.expired) return { ok: false, reason: 'expired' };
    if (recordUse) this.recordUse(row.tokenId);
    // Shared by the requests that find it kept: frozen, so that none can change it for the others.
    const client = deepFreeze({ clientId: row.clientId, tokenId: row.tokenId, account: accountFromRow(row) });
    this.cache.remember(hash, mark, client, row.expiresInMs);
    return { ok: true, client };
  }

  /**
   * The client a token authenticates as, if this replica keeps its authentication (see verify); no
   * I/O. Undefined says nothing about the token: `verify` tells.
   */
  verifyKept(token: string): AuthenticatedClient | undefined {
    if (!this.cache.enabled || !parseToken(token).ok) return undefined;
    const kept = this.cache.get(hashToken(token));
    if (kept !== undefined) this.recordUse(kept.tokenId!);
    return kept;
  }

  /**
   * At most one write per token per minute from this process, and the WHERE clause keeps other
   * replicas from writing more often than that too. Fire-and-forget and batched: the response never
   * waits, the uses noted in the last USE_FLUSH_MS go out as one UPDATE (not one round trip on the
   * pool per token, which under a burst of first requests competed with the requests themselves),
   * and a failure is only logged (with the token ids, never the tokens).
   */
  private recordUse(tokenId: string): void {
    const now = Date.now();
    const last = this.lastRecorded.get(tokenId);
    if (last !== undefined && now - last < LAST_USED_RESOLUTION_MS) return;
    this.lastRecorded.delete(tokenId);
    this.lastRecorded.set(tokenId, now);
    if (this.lastRecorded.size > MAX_TRACKED_TOKENS) {
      const oldest = this.lastRecorded.keys().next().value;
      if (oldest !== undefined) this.lastRecorded.delete(oldest);
    }
    this.usedSince.add(tokenId);
    this.useTimer ??= setTimeout(() => this.writeUses(), USE_FLUSH_MS).unref();
  }

  private writeUses(): void {
    clearTimeout(this.useTimer);
    this.useTimer = undefined;
    if (this.usedSince.size === 0) return;
    const ids = [...this.usedSince];
    this.usedSince.clear();
    const write = this.tokens
      .query(
        `UPDATE client_tokens SET last_used_at = now()
          WHERE id = ANY($1::uuid[]) AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')`,
        [ids],
      )
      .catch((error: unknown) => {
        this.logger.warn({ token_ids: ids.slice(0, 20), err: error instanceof Error ? error.message : String(error) }, 'could not record last_used_at');
      });
    this.writing.add(write);
    void write.finally(() => this.writing.delete(write));
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.writeUses();
    await Promise.allSettled([...this.writing]);
  }
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}
