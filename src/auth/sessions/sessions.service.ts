import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { ACCOUNT_COLUMNS, type AccountRow, accountFromRow, type Account } from '../../accounts/account.js';
import { AuditTrail } from '../../audit/audit-trail.js';
import { APP_CONFIG } from '../../config/config.module.js';
import type { AppConfig } from '../../config/config.js';
import { PreparedStatements, type Statement } from '../../database/prepared-statements.js';
import { generateToken, hashToken, parseToken, SESSION_PREFIX } from '../../common/token-format.js';
import { cookieSettings, SESSION_IDLE_MS, SESSION_LIFETIME_MS } from './session-cookie.js';

/** A signed-in dashboard session and its client's account (read together, one query). */
export interface DashboardSession {
  sessionId: string;
  clientId: string;
  account: Account;
}

/** A live session by the hash of its cookie; seen now. Idle and absolute timeouts are PostgreSQL's clock. */
const RESOLVE: Statement = {
  name: 'sessions.resolve',
  text: `WITH s AS (
           UPDATE dashboard_sessions SET last_seen_at = now()
            WHERE session_hash = $1 AND ended_at IS NULL AND expires_at > now()
              AND last_seen_at > now() - make_interval(secs => $2::int / 1000.0)
           RETURNING id, client_id)
         SELECT s.id AS "sessionId", ${ACCOUNT_COLUMNS} FROM s JOIN clients c ON c.client_id = s.client_id`,
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
  ) {
    this.cookies = cookieSettings(config.publicBaseUrl);
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

  /** The live session a cookie names, or undefined (absent, malformed, unknown, ended, idle or expired). */
  async resolve(secret: unknown): Promise<DashboardSession | undefined> {
    if (typeof secret !== 'string' || !parseToken(secret, SESSION_PREFIX).ok) return undefined;
    const [row] = await this.statements.query<AccountRow & { sessionId: string }>(RESOLVE, [hashToken(secret), SESSION_IDLE_MS]);
    return row && { sessionId: row.sessionId, clientId: row.clientId, account: accountFromRow(row) };
  }

  /** Ends the session in the database (sign-out): its cookie is worthless from now on, on every replica. */
  async endById(session: DashboardSession, requestId: string | null): Promise<void> {
    await this.dataSource.transaction((manager) => this.end(manager, session, requestId));
  }

  private async end(manager: EntityManager, session: DashboardSession, requestId: string | null): Promise<void> {
    await manager.query(`UPDATE dashboard_sessions SET ended_at = now() WHERE id = $1 AND ended_at IS NULL`, [session.sessionId]);
    await this.audit.record(manager, { operator: { kind: 'client', clientId: session.clientId, sessionId: session.sessionId }, requestId }, {
      action: 'session.ended',
      targetType: 'session',
      targetId: session.sessionId,
      clientId: session.clientId,
    });
  }
}
