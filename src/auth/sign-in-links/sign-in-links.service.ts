import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { AccountsService } from '../../accounts/accounts.service.js';
import { AuditTrail } from '../../audit/audit-trail.js';
import { APP_CONFIG } from '../../config/config.module.js';
import type { AppConfig } from '../../config/config.js';
import type { Actor } from '../../caller/actor.js';
import { SessionsService } from '../sessions/sessions.service.js';
import { generateToken, hashToken, parseToken, SIGN_IN_LINK_PREFIX } from '../../common/token-format.js';

/** How long a sign-in link works. */
export const SIGN_IN_LINK_TTL_MS = 15 * 60_000;
/**
 * The most links mailed to one client in 24 hours, whoever asks: what anonymous requests can add to
 * the audit trail (one `sign_in_link.issued` each) and to the client's mailbox, besides the
 * per-minute limit of each address.
 */
export const SIGN_IN_EMAILS_PER_DAY = 10;
/** Where a link leads: a page that asks to continue (a mail scanner following links does not sign anyone in). */
export const SIGN_IN_LINK_PATH = '/dashboard/sign-in/link';

export interface IssuedLink {
  id: string;
  url: string;
  expiresAt: Date;
}

export type LinkUse = { ok: true; sessionId: string; secret: string; clientId: string } | { ok: false };

/**
 * Single-use dashboard sign-in links: issued by the operator (admin API) or e-mailed to a
 * confirmed client's address. The secret (`eprl_…`, scrubbed from logs like every token) is in the
 * URL only; the database keeps its SHA-256. Using one starts a session and spends the link in one
 * transaction: two uses at once cannot both succeed.
 */
@Injectable()
export class SignInLinksService {
  private readonly baseUrl: string;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly accounts: AccountsService,
    private readonly sessions: SessionsService,
    private readonly audit: AuditTrail,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.baseUrl = config.publicBaseUrl;
  }

  /** A link for `clientId` from the operator (404 if there is no such client), recorded in the audit trail. */
  async issue(clientId: string, actor: Actor): Promise<IssuedLink> {
    await this.accounts.assertExists(clientId);
    return this.dataSource.transaction((manager) => this.insert(manager, clientId, actor, 'operator'));
  }

  /**
   * A link for a confirmed client, asked for by e-mail by someone not signed in (recorded in the
   * audit trail as `anonymous`); none past SIGN_IN_EMAILS_PER_DAY in the last 24 hours.
   */
  async issueByEmail(clientId: string, requestId: string | null): Promise<IssuedLink | undefined> {
    return this.dataSource.transaction(async (manager) => {
      const [{ mailed }] = (await manager.query(
        `SELECT count(*)::int AS mailed FROM sign_in_links WHERE client_id = $1 AND issued_via = 'email' AND created_at > now() - interval '1 day'`,
        [clientId],
      )) as [{ mailed: number }];
      if (mailed >= SIGN_IN_EMAILS_PER_DAY) return undefined;
      return this.insert(manager, clientId, { operator: { kind: 'anonymous' }, requestId }, 'email');
    });
  }

  private async insert(manager: EntityManager, clientId: string, actor: Actor, via: 'operator' | 'email'): Promise<IssuedLink> {
    const secret = generateToken(SIGN_IN_LINK_PREFIX);
    const [row] = (await manager.query(
      `INSERT INTO sign_in_links (client_id, token_hash, issued_via, expires_at)
       VALUES ($1, $2, $3, now() + make_interval(secs => $4::int / 1000.0)) RETURNING id, expires_at AS "expiresAt"`,
      [clientId, hashToken(secret), via, SIGN_IN_LINK_TTL_MS],
    )) as [{ id: string; expiresAt: Date }];
    await this.audit.record(manager, actor, {
      action: 'sign_in_link.issued',
      targetType: 'sign_in_link',
      targetId: row.id,
      clientId,
      changes: { issued_via: via, expires_at: row.expiresAt },
    });
    return { id: row.id, url: `${this.baseUrl}${SIGN_IN_LINK_PATH}?token=${secret}`, expiresAt: row.expiresAt };
  }

  /** Spends the link and starts a session; refused when unknown, used or expired (the same answer for each). */
  async use(secret: unknown, requestId: string | null): Promise<LinkUse> {
    if (typeof secret !== 'string' || !parseToken(secret, SIGN_IN_LINK_PREFIX).ok) return { ok: false };
    return this.dataSource.transaction(async (manager) => {
      const spent = (await manager.query(
        `WITH spent AS (
           UPDATE sign_in_links SET used_at = now()
            WHERE token_hash = $1 AND used_at IS NULL AND revoked_at IS NULL AND expires_at > now()
              AND EXISTS (SELECT 1 FROM clients c WHERE c.client_id = sign_in_links.client_id AND c.status <> 'offboarded')
           RETURNING client_id)
         SELECT client_id AS "clientId" FROM spent`,
        [hashToken(secret)],
      )) as { clientId: string }[];
      if (spent.length === 0) return { ok: false } as const;
      const { clientId } = spent[0]!;
      // Housekeeping at each sign-in: the client's links and sessions over for a month are of no use any more (the audit trail keeps their story).
      await manager.query(`DELETE FROM sign_in_links WHERE client_id = $1 AND expires_at < now() - interval '30 days'`, [clientId]);
      await manager.query(`DELETE FROM dashboard_sessions WHERE client_id = $1 AND expires_at < now() - interval '30 days'`, [clientId]);
      const session = await this.sessions.start(manager, clientId, requestId);
      return { ok: true, clientId, ...session } as const;
    });
  }
}
