import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { ACCOUNT_COLUMNS, type AccountRow } from '../../accounts/account.js';
import { PreparedStatements, type Statement } from '../../database/prepared-statements.js';
import { SESSION_IDLE_MS, SESSION_SEEN_RESOLUTION_MS } from './session-cookie.js';

/** A live session as the operator sees it (never its secret, which is not kept). */
export interface SessionInfo {
  id: string;
  createdAt: Date;
  lastSeenAt: Date;
  /** When it ends however active (12 hours after sign-in). */
  expiresAt: Date;
  /** When it ends if unused from now (30 minutes after it was last seen), at the latest `expiresAt`. */
  idleExpiresAt: Date;
}

/** A live session found by the hash of its cookie, with its client's account. */
export type LiveSessionRow = AccountRow & {
  sessionId: string;
  /** Last marked seen over SESSION_SEEN_RESOLUTION_MS ago: the idle timeout is due to slide. */
  seenLongAgo: boolean;
};

/** The condition of a live session of `dashboard_sessions` (as `s`), its idle time in ms as `$idle` (SESSION_IDLE_MS). */
export const LIVE = (idle: string) =>
  `s.ended_at IS NULL AND s.expires_at > now() AND s.last_seen_at > now() - make_interval(secs => ${idle}::int / 1000.0)`;

/**
 * A live session by the hash of its cookie, with its account, and whether it was last marked seen
 * over a minute ago ($3). A read: idle and absolute timeouts are judged by PostgreSQL's clock.
 */
const RESOLVE: Statement = {
  name: 'sessions.resolve',
  text: `SELECT s.id AS "sessionId", s.last_seen_at < now() - make_interval(secs => $3::int / 1000.0) AS "seenLongAgo", ${ACCOUNT_COLUMNS}
           FROM dashboard_sessions s JOIN clients c ON c.client_id = s.client_id
          WHERE s.session_hash = $1 AND ${LIVE('$2')}`,
};
/** Marks a session seen now, unless another request (on any replica) did within the last minute. */
const MARK_SEEN: Statement = {
  name: 'sessions.mark-seen',
  text: `UPDATE dashboard_sessions SET last_seen_at = now()
          WHERE id = $1 AND ended_at IS NULL AND last_seen_at < now() - make_interval(secs => $2::int / 1000.0)`,
};

/**
 * The SQL of dashboard sessions (`dashboard_sessions`; only the SHA-256 of a cookie's secret is
 * stored). Every timeout is judged by PostgreSQL's clock. Writes take the caller's transaction.
 */
@Injectable()
export class SessionsRepository {
  constructor(
    private readonly statements: PreparedStatements,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {}

  /** The live session of this hash and its account (a named prepared statement: every dashboard page). */
  async findLiveByHash(sessionHash: string): Promise<LiveSessionRow | undefined> {
    const [row] = await this.statements.query<LiveSessionRow>(RESOLVE, [sessionHash, SESSION_IDLE_MS, SESSION_SEEN_RESOLUTION_MS]);
    return row;
  }

  /** `last_seen_at = now()`, unless another request (on any replica) wrote it within SESSION_SEEN_RESOLUTION_MS. */
  async markSeen(sessionId: string): Promise<void> {
    await this.statements.query(MARK_SEEN, [sessionId, SESSION_SEEN_RESOLUTION_MS]);
  }

  /** A client's live sessions, newest first. */
  listLive(clientId: string): Promise<SessionInfo[]> {
    return this.dataSource.query(
      `SELECT s.id, s.created_at AS "createdAt", s.last_seen_at AS "lastSeenAt", s.expires_at AS "expiresAt",
              least(s.expires_at, s.last_seen_at + make_interval(secs => $2::int / 1000.0)) AS "idleExpiresAt"
         FROM dashboard_sessions s WHERE s.client_id = $1 AND ${LIVE('$2')} ORDER BY s.created_at DESC, s.id DESC`,
      [clientId, SESSION_IDLE_MS],
    );
  }

  /** Ends one session (no-op when already ended), in `manager`'s transaction. */
  async end(manager: EntityManager, sessionId: string): Promise<void> {
    await manager.query(`UPDATE dashboard_sessions SET ended_at = now() WHERE id = $1 AND ended_at IS NULL`, [sessionId]);
  }

  /** Ends every live session of a client, in `manager`'s transaction; how many ended. */
  async endAllLive(manager: EntityManager, clientId: string): Promise<number> {
    // A SELECT over the UPDATE: TypeORM's query() answers an UPDATE with [rows, count], a SELECT with its rows.
    const ended = (await manager.query(
      `WITH ended AS (UPDATE dashboard_sessions s SET ended_at = now() WHERE s.client_id = $1 AND ${LIVE('$2')} RETURNING s.id) SELECT id FROM ended`,
      [clientId, SESSION_IDLE_MS],
    )) as { id: string }[];
    return ended.length;
  }

  /**
   * Voids every sign-in link of a client still unused, whoever issued it (mailed on request,
   * invitations, reminders, links handed over), in `manager`'s transaction; how many. Here rather
   * than with sign-in links: they build on sessions, and ending every session must close every way
   * back in too.
   */
  async voidUnusedLinks(manager: EntityManager, clientId: string): Promise<number> {
    const voided = (await manager.query(
      `WITH voided AS (UPDATE sign_in_links SET expires_at = now() WHERE client_id = $1 AND used_at IS NULL AND revoked_at IS NULL AND expires_at > now() RETURNING id)
       SELECT id FROM voided`,
      [clientId],
    )) as { id: string }[];
    return voided.length;
  }
}
