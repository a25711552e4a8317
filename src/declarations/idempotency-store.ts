import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import type { FieldError } from '../common/problem/problem.js';
import { ProcessPresence, presenceGone } from '../database/process-presence.js';
import { type DataScope, utcText } from './declarations.repository.js';
import type { TokenMode } from '../common/token-format.js';

/** How long a completed key is remembered (the IETF draft and Stripe: at least 24 hours). */
export const IDEMPOTENCY_KEY_TTL = '24 hours';
/**
 * A claim older than this belongs to a request that died (statements time out after 30 s): it may be
 * taken over. A claim whose process is gone (its ProcessPresence lock is free) may be taken over at once.
 */
export const STALE_CLAIM_AFTER = '60 seconds';
/** Expired keys deleted per claim, at most (the sweep never makes a request wait long). */
const SWEEP_BATCH = 100;

/** 1 to 255 visible ASCII characters. */
const KEY = /^[\x21-\x7e]{1,255}$/;
/** RFC 8941 sf-string (the IETF draft's form): `"..."` without escapes. */
const QUOTED_KEY = /^"([\x21\x23-\x5b\x5d-\x7e]{1,255})"$/;

/**
 * The key from the `Idempotency-Key` header: absent → undefined; present but not 1–255 visible
 * ASCII characters → an error for `/headers/idempotency-key`. The draft's quoted form
 * (`"abc"`) and the bare form (`abc`) name the same key.
 */
export function parseIdempotencyKey(header: string | undefined): { key: string } | { error: FieldError } | undefined {
  if (header === undefined) return undefined;
  const quoted = QUOTED_KEY.exec(header);
  if (quoted) return { key: quoted[1]! };
  if (KEY.test(header)) return { key: header };
  return {
    error: {
      pointer: '/headers/idempotency-key',
      code: 'invalid_idempotency_key',
      detail: 'Idempotency-Key must be 1 to 255 visible ASCII characters (a UUID is a good choice)',
    },
  };
}

/** This request's hold on a key; `claimedAt` (the row's `created_at`) tells it from a later takeover. */
export interface Claim {
  clientId: string;
  mode: TokenMode;
  key: string;
  claimedAt: string;
}

export type ClaimOutcome =
  { kind: 'claimed'; claim: Claim } | { kind: 'replay'; status: number; body: unknown } | { kind: 'in_flight' } | { kind: 'reused' };

/** See `IdempotencyStore.claim`. The sweep skips rows another transaction holds, and this request's own key (taken over below if expired). */
const CLAIM = `
  WITH swept AS (
    DELETE FROM idempotency_keys WHERE (client_id, mode, key) IN (
      SELECT client_id, mode, key FROM idempotency_keys
       WHERE expires_at <= clock_timestamp() AND NOT (client_id = $1 AND mode = $4 AND key = $2)
       ORDER BY expires_at LIMIT ${SWEEP_BATCH} FOR UPDATE SKIP LOCKED)
  ), claimed AS (
    INSERT INTO idempotency_keys AS k (client_id, key, request_hash, state, created_at, expires_at, mode, owner)
    VALUES ($1, $2, $3, 'in_flight', clock_timestamp(), clock_timestamp() + interval '${IDEMPOTENCY_KEY_TTL}', $4, $5)
    ON CONFLICT (client_id, mode, key) DO UPDATE
      SET request_hash = EXCLUDED.request_hash, state = 'in_flight', response_status = NULL, response_body = NULL,
          created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at, owner = EXCLUDED.owner
      WHERE k.expires_at <= clock_timestamp()
         OR (k.state = 'in_flight' AND k.created_at < clock_timestamp() - interval '${STALE_CLAIM_AFTER}')
         OR (k.state = 'in_flight' AND k.owner IS NOT NULL AND ${presenceGone('k.owner')})
    RETURNING ${utcText('k.created_at')} AS "claimedAt", k.request_hash, k.state
  )
  SELECT "claimedAt", request_hash AS "requestHash", state, NULL::int AS status, NULL::jsonb AS body FROM claimed
  UNION ALL
  SELECT NULL, request_hash, state, response_status, response_body FROM idempotency_keys
   WHERE client_id = $1 AND mode = $4 AND key = $2 AND NOT EXISTS (SELECT 1 FROM claimed)`;

/**
 * `Idempotency-Key` records in PostgreSQL (shared by every replica). A request claims its key in
 * a statement of its own; its outcome is written in the same transaction as the
 * declaration (`complete`), or the claim is deleted (`release`) so a failed request is not remembered.
 */
@Injectable()
export class IdempotencyStore {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly presence: ProcessPresence,
  ) {}

  /**
   * Keys are per client and mode (`scope`): a sandbox request never meets a live key. One statement
   * (its own transaction, one round trip): a batch of expired keys of any client deleted, then the key
   * inserted, or taken over if it expired or its request died (too old, or its process is gone), or
   * else its row read as it stands. Read in the statement's snapshot, a row another request committed
   * since may be unseen though it kept ours out: the claim is then tried again.
   */
  async claim(scope: DataScope, key: string, requestHash: string): Promise<ClaimOutcome> {
    const { clientId, mode } = scope;
    for (let attempt = 0; attempt < 3; attempt++) {
      const [row]: { claimedAt: string | null; requestHash: string; state: string; status: number | null; body: unknown }[] =
        await this.dataSource.query(CLAIM, [clientId, key, requestHash, mode, this.presence.key ?? null]);
      if (!row) continue;
      if (row.claimedAt !== null) return { kind: 'claimed', claim: { clientId, mode, key, claimedAt: row.claimedAt } };
      if (row.requestHash !== requestHash) return { kind: 'reused' };
      if (row.state === 'in_flight') return { kind: 'in_flight' };
      return { kind: 'replay', status: row.status!, body: row.body };
    }
    return { kind: 'in_flight' };
  }

  /**
   * Records the response, inside the caller's transaction. False if the claim was lost (taken over as
   * stale, or as its process's when that process's lock was lost while it lived): the caller must
   * then roll back, or one key would stand for two declarations.
   */
  async complete(manager: EntityManager, claim: Claim, status: number, body: unknown): Promise<boolean> {
    const updated: unknown[] = await manager.query(
      `UPDATE idempotency_keys SET state = 'completed', response_status = $4, response_body = $5::jsonb
        WHERE client_id = $1 AND mode = $6 AND key = $2 AND state = 'in_flight' AND created_at = $3::timestamptz
        RETURNING 1`,
      [claim.clientId, claim.key, claim.claimedAt, status, JSON.stringify(body), claim.mode],
    );
    return rowsOf(updated).length === 1;
  }

  /** Forgets a claim whose request failed, so that a corrected retry with the same key is processed. */
  async release(claim: Claim): Promise<void> {
    await this.dataSource.query(
      `DELETE FROM idempotency_keys WHERE client_id = $1 AND mode = $4 AND key = $2 AND state = 'in_flight' AND created_at = $3::timestamptz`,
      [claim.clientId, claim.key, claim.claimedAt, claim.mode],
    );
  }
}

/** TypeORM returns `[rows, count]` for UPDATE … RETURNING on PostgreSQL. */
function rowsOf(result: unknown): unknown[] {
  return Array.isArray(result) && result.length === 2 && Array.isArray(result[0]) && typeof result[1] === 'number'
    ? result[0]
    : (result as unknown[]);
}
