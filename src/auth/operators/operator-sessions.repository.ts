import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { LIVE } from '../sessions/sessions.repository.js';
import { SESSION_IDLE_MS, SESSION_LIFETIME_MS } from '../sessions/session-cookie.js';

/** A live console session found by the hash of its cookie, with its operator (a live one). */
export interface LiveOperatorSessionRow {
  sessionId: string;
  operatorId: string;
  name: string;
  /** Last marked seen over a minute ago: the idle timeout is due to slide. */
  seenLongAgo: boolean;
}

/** A live console session as the admin API lists it. */
export interface LiveOperatorSessionListRow {
  id: string;
  operatorId: string;
  name: string;
  createdAt: Date;
  lastSeenAt: Date;
  expiresAt: Date;
}

/**
 * The SQL of the console's sign-in links and sessions (`operator_sign_in_links`,
 * `operator_sessions`; SHA-256 of their secrets only), on the dashboard's rules: the same
 * lifetimes and idle timeout (`LIVE`), judged by PostgreSQL's clock. An operator whose token is
 * revoked has neither. Writes take the caller's transaction.
 */
@Injectable()
export class OperatorSessionsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async insertLink(manager: EntityManager, operatorId: string, tokenHash: string, ttlMs: number): Promise<{ id: string; expiresAt: Date }> {
    const [row] = (await manager.query(
      `INSERT INTO operator_sign_in_links (operator_id, token_hash, expires_at) VALUES ($1, $2, now() + make_interval(secs => $3::int / 1000.0))
       RETURNING id, expires_at AS "expiresAt"`,
      [operatorId, tokenHash, ttlMs],
    )) as [{ id: string; expiresAt: Date }];
    return row;
  }

  /** How many links were mailed to the operator in the last 24 hours. */
  async countLinksToday(manager: EntityManager, operatorId: string): Promise<number> {
    const [{ n }] = (await manager.query(
      `SELECT count(*)::int AS n FROM operator_sign_in_links WHERE operator_id = $1 AND created_at > now() - interval '1 day'`,
      [operatorId],
    )) as [{ n: number }];
    return n;
  }

  /** Spends the usable link of this hash (unused, unexpired, its operator live); its operator's id and name, or undefined. */
  async spendLink(manager: EntityManager, tokenHash: string): Promise<{ operatorId: string; name: string } | undefined> {
    const [spent] = (await manager.query(
      `WITH spent AS (
         UPDATE operator_sign_in_links l SET used_at = now()
          WHERE l.token_hash = $1 AND l.used_at IS NULL AND l.expires_at > now()
            AND EXISTS (SELECT 1 FROM operator_tokens o WHERE o.id = l.operator_id AND o.revoked_at IS NULL AND o.email IS NOT NULL)
         RETURNING l.operator_id)
       SELECT s.operator_id AS "operatorId", o.name FROM spent s JOIN operator_tokens o ON o.id = s.operator_id`,
      [tokenHash],
    )) as { operatorId: string; name: string }[];
    return spent;
  }

  async insertSession(manager: EntityManager, operatorId: string, sessionHash: string): Promise<string> {
    const [row] = (await manager.query(
      `INSERT INTO operator_sessions (operator_id, session_hash, expires_at) VALUES ($1, $2, now() + make_interval(secs => $3::int / 1000.0)) RETURNING id`,
      [operatorId, sessionHash, SESSION_LIFETIME_MS],
    )) as [{ id: string }];
    return row.id;
  }

  async findLiveByHash(sessionHash: string): Promise<LiveOperatorSessionRow | undefined> {
    const [row] = (await this.dataSource.query(
      `SELECT s.id AS "sessionId", s.operator_id AS "operatorId", o.name, s.last_seen_at < now() - interval '1 minute' AS "seenLongAgo"
         FROM operator_sessions s JOIN operator_tokens o ON o.id = s.operator_id
        WHERE s.session_hash = $1 AND o.revoked_at IS NULL AND ${LIVE('$2')}`,
      [sessionHash, SESSION_IDLE_MS],
    )) as LiveOperatorSessionRow[];
    return row;
  }

  async markSeen(sessionId: string): Promise<void> {
    await this.dataSource.query(`UPDATE operator_sessions SET last_seen_at = now() WHERE id = $1 AND ended_at IS NULL`, [sessionId]);
  }

  /** Every live console session (its operator live), newest first. */
  async listLive(): Promise<LiveOperatorSessionListRow[]> {
    return (await this.dataSource.query(
      `SELECT s.id, s.operator_id AS "operatorId", o.name, s.created_at AS "createdAt", s.last_seen_at AS "lastSeenAt", s.expires_at AS "expiresAt"
         FROM operator_sessions s JOIN operator_tokens o ON o.id = s.operator_id
        WHERE o.revoked_at IS NULL AND ${LIVE('$1')}
        ORDER BY s.created_at DESC, s.id`,
      [SESSION_IDLE_MS],
    )) as LiveOperatorSessionListRow[];
  }

  /** A session by its id, live or not, with its operator's name and whether it is live; locked for the caller's transaction. */
  async findForUpdate(manager: EntityManager, sessionId: string): Promise<{ operatorId: string; name: string; live: boolean } | undefined> {
    const [row] = (await manager.query(
      `SELECT s.operator_id AS "operatorId", o.name, (o.revoked_at IS NULL AND ${LIVE('$2')}) AS live
         FROM operator_sessions s JOIN operator_tokens o ON o.id = s.operator_id
        WHERE s.id = $1 FOR UPDATE OF s`,
      [sessionId, SESSION_IDLE_MS],
    )) as { operatorId: string; name: string; live: boolean }[];
    return row;
  }

  async end(manager: EntityManager, sessionId: string): Promise<void> {
    await manager.query(`UPDATE operator_sessions SET ended_at = now() WHERE id = $1 AND ended_at IS NULL`, [sessionId]);
  }
}
