import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { AUDIT_ENTRY_INSERT, DASHBOARD_ACTOR_NAME } from '../../audit/audit-trail.js';
import { ASCII_LOWER, ASCII_UPPER } from '../../common/email-address.js';
import { PreparedStatements, type Statement } from '../../database/prepared-statements.js';
import type { Language } from '../../i18n/language.js';
import { SESSION_LIFETIME_MS } from '../sessions/session-cookie.js';

/**
 * The SQL of the hash a link keeps of the address it was mailed to: SHA-256 (hex) of the address
 * folded in A–Z only, as the dashboard compares addresses (email-address.ts).
 */
const addressHash = (address: string) =>
  `encode(sha256(convert_to(translate(${address}, '${ASCII_UPPER}', '${ASCII_LOWER}'), 'UTF8')), 'hex')`;

/**
 * See `startSession`: one statement, so one round trip and atomic without a transaction. Two uses at
 * once cannot both spend the link: the second UPDATE waits for the first and then finds it used.
 * The deletes are housekeeping (links and sessions of the client over for a month; the audit trail
 * keeps their story); they cannot meet the spent link (not expired) or the new session (which no
 * other part of the statement sees).
 */
const START_SESSION: Statement = {
  name: 'sign-in-links.start-session',
  text: `WITH spent AS (
           UPDATE sign_in_links SET used_at = now()
            WHERE token_hash = $1 AND used_at IS NULL AND revoked_at IS NULL AND expires_at > now()
              AND EXISTS (SELECT 1 FROM clients c WHERE c.client_id = sign_in_links.client_id AND c.status <> 'offboarded'
                            AND (sign_in_links.address_hash IS NULL OR sign_in_links.address_hash = ${addressHash('c.confirmed_email')}))
           RETURNING client_id
         ), session AS (
           INSERT INTO dashboard_sessions (client_id, session_hash, expires_at)
           SELECT client_id, $2, now() + make_interval(secs => $3::int / 1000.0) FROM spent
           RETURNING id, client_id
         ), audit AS (
           ${AUDIT_ENTRY_INSERT}
           SELECT 'client', NULL::uuid, $4, 'session.started', 'session', session.id::text, session.client_id, '{}'::jsonb, $5 FROM session
         ), old_links AS (
           DELETE FROM sign_in_links WHERE client_id = (SELECT client_id FROM spent) AND expires_at < now() - interval '30 days'
         ), old_sessions AS (
           DELETE FROM dashboard_sessions WHERE client_id = (SELECT client_id FROM spent) AND expires_at < now() - interval '30 days'
         )
         SELECT id AS "sessionId", client_id AS "clientId" FROM session`,
};

/** A link not yet used, revoked or expired. */
export interface OutstandingLink {
  id: string;
  issuedVia: 'operator' | 'email';
  createdAt: Date;
  expiresAt: Date;
}

/** What issuing a link needs to know of its client. */
export interface LinkClientRow {
  status: string;
  email: string | null;
  company: string | null;
  language: Language;
}

/**
 * The SQL of sign-in links (`sign_in_links`; only the SHA-256 of a link's secret is stored). Every
 * finder is scoped by client id, except the one by hash that a link's use starts from. Writes take
 * the caller's transaction.
 */
@Injectable()
export class SignInLinksRepository {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly statements: PreparedStatements,
  ) {}

  /** The client a link is issued for, locked against a concurrent change of status until the transaction ends. */
  async clientForIssue(manager: EntityManager, clientId: string): Promise<LinkClientRow | undefined> {
    const [client] = (await manager.query(
      `SELECT status, confirmed_email AS email, confirmed_company AS company, language FROM clients WHERE client_id = $1 FOR SHARE`,
      [clientId],
    )) as LinkClientRow[];
    return client;
  }

  /**
   * A new link of `ttlMs`, in `manager`'s transaction, bound to the address it is mailed to (null:
   * handed over by the operator); its id and when it expires.
   */
  async insert(
    manager: EntityManager,
    link: { clientId: string; tokenHash: string; issuedVia: 'operator' | 'email'; ttlMs: number; mailedTo: string | null },
  ): Promise<{ id: string; expiresAt: Date }> {
    const [row] = (await manager.query(
      `INSERT INTO sign_in_links (client_id, token_hash, issued_via, expires_at, address_hash)
       VALUES ($1, $2, $3, now() + make_interval(secs => $4::int / 1000.0), ${addressHash('$5::text')}) RETURNING id, expires_at AS "expiresAt"`,
      [link.clientId, link.tokenHash, link.issuedVia, link.ttlMs, link.mailedTo],
    )) as [{ id: string; expiresAt: Date }];
    return row;
  }

  /** The client's links not yet used, revoked or expired, newest first. */
  listOutstanding(clientId: string): Promise<OutstandingLink[]> {
    return this.dataSource.query(
      `SELECT id, issued_via AS "issuedVia", created_at AS "createdAt", expires_at AS "expiresAt" FROM sign_in_links
        WHERE client_id = $1 AND used_at IS NULL AND revoked_at IS NULL AND expires_at > now() ORDER BY created_at DESC, id DESC`,
      [clientId],
    );
  }

  /** Revokes an outstanding link of the client, in `manager`'s transaction; its id, or undefined when there was none. */
  async revokeOutstanding(manager: EntityManager, clientId: string, linkId: string): Promise<string | undefined> {
    // A SELECT over the UPDATE: TypeORM's query() answers an UPDATE with [rows, count], a SELECT with its rows.
    const [revoked] = (await manager.query(
      `WITH revoked AS (UPDATE sign_in_links SET revoked_at = now()
                          WHERE id = $1 AND client_id = $2 AND used_at IS NULL AND revoked_at IS NULL AND expires_at > now() RETURNING id)
       SELECT id FROM revoked`,
      [linkId, clientId],
    )) as { id: string }[];
    return revoked?.id;
  }

  /** How many links were mailed to the client in the last 24 hours. */
  async countMailedToday(manager: EntityManager, clientId: string): Promise<number> {
    const [{ mailed }] = (await manager.query(
      `SELECT count(*)::int AS mailed FROM sign_in_links WHERE client_id = $1 AND issued_via = 'email' AND created_at > now() - interval '1 day'`,
      [clientId],
    )) as [{ mailed: number }];
    return mailed;
  }

  /**
   * Spends the usable link of this hash (unused, not revoked, not expired, its client not
   * offboarded, and if it was mailed, mailed to the client's confirmed address of now) and starts a
   * session of SESSION_LIFETIME_MS at most, stored by `sessionHash`, recorded as `session.started`
   * (actor: the client's dashboard); the session and its client, or undefined when no link was
   * spent (then nothing was written).
   */
  async startSession(
    linkHash: string,
    sessionHash: string,
    requestId: string | null,
  ): Promise<{ sessionId: string; clientId: string } | undefined> {
    const [started] = await this.statements.query<{ sessionId: string; clientId: string }>(START_SESSION, [
      linkHash,
      sessionHash,
      SESSION_LIFETIME_MS,
      DASHBOARD_ACTOR_NAME,
      requestId,
    ]);
    return started;
  }

  /** Of these links, those revoked, used or expired (the outbox sends no mail carrying one). */
  async voided(ids: string[]): Promise<Set<string>> {
    const rows = (await this.dataSource.query(
      `SELECT id FROM sign_in_links WHERE id = ANY($1::uuid[]) AND (revoked_at IS NOT NULL OR used_at IS NOT NULL OR expires_at <= now())`,
      [ids],
    )) as { id: string }[];
    return new Set(rows.map((row) => row.id));
  }

  /** Revokes the link if it is still unused, in `manager`'s transaction (the mail carrying it was given up). */
  async revokeUnused(manager: EntityManager, id: string): Promise<void> {
    await manager.query(`UPDATE sign_in_links SET revoked_at = now() WHERE id = $1 AND used_at IS NULL AND revoked_at IS NULL`, [id]);
  }
}
