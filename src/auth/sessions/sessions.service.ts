import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { ACCOUNT_COLUMNS, type AccountRow, accountFromRow, type Account } from '../../accounts/account.js';
import { AccountsService } from '../../accounts/accounts.service.js';
import { AuditTrail } from '../../audit/audit-trail.js';
import { APP_CONFIG } from '../../config/config.module.js';
import type { AppConfig } from '../../config/config.js';
import { PreparedStatements, type Statement } from '../../database/prepared-statements.js';
import { generateToken, hashToken, parseToken, SESSION_PREFIX } from '../../common/token-format.js';
import type { Actor } from '../../caller/actor.js';
import { cookieSettings, SESSION_IDLE_MS, SESSION_LIFETIME_MS, SESSION_SEEN_RESOLUTION_MS } from './session-cookie.js';

/** A signed-in dashboard session and its client's account (read together, one query). */
export interface DashboardSession {
  sessionId: string;
  clientId: string;
  account: Account;
  /** The account is suspended: the session lives on, but its pages are refused until reactivation. */
  suspended: boolean;
}

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

/** Why every session of a client was ended (recorded in the audit trail). */
export type EndReason = 'operator' | 'sign_out_everywhere' | 'email_changed' | 'suspended' | 'offboarded';

/** The condition of a live session of `dashboard_sessions` (as `s`), its idle time in ms as `$idle` (SESSION_IDLE_MS). */
export const LIVE = (idle: string) => `s.ended_at IS NULL AND s.expires_at > now() AND s.last_seen_at > now() - make_interval(secs => ${idle}::int / 1000.0)`;

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
 * Dashboard sessions, server-side in PostgreSQL (every replica sees the same ones). The cookie
 * holds a random `eprs_…` secret; only its SHA-256 is stored. A new secret at every sign-in (no
 * fixation: a session id is never taken from the browser), an idle timeout, an absolute lifetime,
 * and sign-out that ends the row.
 */
@Injectable()
export class SessionsService {
  readonly cookies: ReturnType<typeof cookieSettings>;

  constructor(
    private readonly statements: PreparedStatements,
    private readonly audit: AuditTrail,
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) config: AppConfig,
    accounts: AccountsService,
  ) {
    this.cookies = cookieSettings(config.publicBaseUrl);
    // A new confirmed address: whoever signed in through the old mailbox is signed out, in the confirmation's transaction.
    accounts.onConfirming(async (manager, clientId, changes, actor) => {
      const email = changes.email;
      if (email !== undefined && email.from !== null) await this.endAll(manager, clientId, actor, 'email_changed');
    });
    // Offboarding ends every session for good (a suspension keeps them, refused, so that its people see why).
    accounts.onStatusChanging(async (manager, clientId, change, actor) => {
      if (change.to === 'offboarded') await this.endAll(manager, clientId, actor, 'offboarded');
    });
  }

  /** A client's live sessions, newest first. */
  async list(clientId: string): Promise<SessionInfo[]> {
    return this.dataSource.query(
      `SELECT s.id, s.created_at AS "createdAt", s.last_seen_at AS "lastSeenAt", s.expires_at AS "expiresAt",
              least(s.expires_at, s.last_seen_at + make_interval(secs => $2::int / 1000.0)) AS "idleExpiresAt"
         FROM dashboard_sessions s WHERE s.client_id = $1 AND ${LIVE('$2')} ORDER BY s.created_at DESC, s.id DESC`,
      [clientId, SESSION_IDLE_MS],
    );
  }

  /**
   * Ends every live session of a client in `manager`'s transaction (the operator's DELETE, "sign out
   * everywhere", a new confirmed e-mail address; a suspension must call it too), and voids the
   * sign-in links mailed to it that are still unused. Recorded once (`session.ended_all`, how many
   * and why) when there was any. Answers how many sessions ended.
   */
  async endAll(manager: EntityManager, clientId: string, actor: Actor, reason: EndReason): Promise<number> {
    const ended = (await manager.query(
      `WITH ended AS (UPDATE dashboard_sessions s SET ended_at = now() WHERE s.client_id = $1 AND ${LIVE('$2')} RETURNING s.id) SELECT id FROM ended`,
      [clientId, SESSION_IDLE_MS],
    )) as { id: string }[];
    const voided = (await manager.query(
      `WITH voided AS (UPDATE sign_in_links SET expires_at = now() WHERE client_id = $1 AND issued_via = 'email' AND used_at IS NULL AND expires_at > now() RETURNING id)
       SELECT id FROM voided`,
      [clientId],
    )) as { id: string }[];
    if (ended.length > 0 || voided.length > 0) {
      await this.audit.record(manager, actor, {
        action: 'session.ended_all',
        targetType: 'client',
        targetId: clientId,
        clientId,
        changes: { reason, sessions: ended.length, mailed_links_voided: voided.length },
      });
    }
    return ended.length;
  }

  /** endAll in a transaction of its own. */
  async endAllNow(clientId: string, actor: Actor, reason: EndReason): Promise<number> {
    return this.dataSource.transaction((manager) => this.endAll(manager, clientId, actor, reason));
  }

  /** Starts a session in `manager`'s transaction; the secret goes in the cookie and nowhere else. */
  async start(manager: EntityManager, clientId: string, requestId: string | null): Promise<{ sessionId: string; secret: string }> {
    const secret = generateToken(SESSION_PREFIX);
    const [row] = (await manager.query(
      `INSERT INTO dashboard_sessions (client_id, session_hash, expires_at) VALUES ($1, $2, now() + make_interval(secs => $3::int / 1000.0)) RETURNING id`,
      [clientId, hashToken(secret), SESSION_LIFETIME_MS],
    )) as [{ id: string }];
    await this.audit.record(manager, { operator: { kind: 'client', clientId, sessionId: row.id }, requestId }, {
      action: 'session.started',
      targetType: 'session',
      targetId: row.id,
      clientId,
    });
    return { sessionId: row.id, secret };
  }

  /**
   * The live session a cookie names, or undefined (absent, malformed, unknown, ended, idle or
   * expired). A read; the idle timeout slides with a write at most once a minute per session
   * (SESSION_SEEN_RESOLUTION_MS), not with every page view.
   */
  async resolve(secret: unknown): Promise<DashboardSession | undefined> {
    if (typeof secret !== 'string' || !parseToken(secret, SESSION_PREFIX).ok) return undefined;
    const [row] = await this.statements.query<AccountRow & { sessionId: string; seenLongAgo: boolean }>(RESOLVE, [hashToken(secret), SESSION_IDLE_MS, SESSION_SEEN_RESOLUTION_MS]);
    // An offboarded account's sessions were ended with it; none is honoured even if one was left.
    if (!row || row.status === 'offboarded') return undefined;
    if (row.seenLongAgo) await this.statements.query(MARK_SEEN, [row.sessionId, SESSION_SEEN_RESOLUTION_MS]);
    return { sessionId: row.sessionId, clientId: row.clientId, account: accountFromRow(row), suspended: row.status === 'suspended' };
  }

  /** Ends the session in the database (sign-out): its cookie is worthless from now on, on every replica. */
  async endById(session: Pick<DashboardSession, 'sessionId' | 'clientId'>, requestId: string | null): Promise<void> {
    await this.dataSource.transaction((manager) => this.end(manager, session, requestId));
  }

  private async end(manager: EntityManager, session: Pick<DashboardSession, 'sessionId' | 'clientId'>, requestId: string | null): Promise<void> {
    await manager.query(`UPDATE dashboard_sessions SET ended_at = now() WHERE id = $1 AND ended_at IS NULL`, [session.sessionId]);
    await this.audit.record(manager, { operator: { kind: 'client', clientId: session.clientId, sessionId: session.sessionId }, requestId }, {
      action: 'session.ended',
      targetType: 'session',
      targetId: session.sessionId,
      clientId: session.clientId,
    });
  }
}
