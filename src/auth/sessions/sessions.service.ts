import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { accountFromRow, type Account } from '../../accounts/account.js';
import { AccountsService } from '../../accounts/accounts.service.js';
import { AuditTrail } from '../../audit/audit-trail.js';
import { APP_CONFIG } from '../../config/config.module.js';
import type { AppConfig } from '../../config/config.js';
import { hashToken, parseToken, SESSION_PREFIX } from '../../common/token-format.js';
import type { Actor } from '../../caller/actor.js';
import { cookieSettings } from './session-cookie.js';
import { SessionsRepository, type SessionInfo } from './sessions.repository.js';

export type { SessionInfo };

/** A signed-in dashboard session and its client's account (read together, one query). */
export interface DashboardSession {
  sessionId: string;
  clientId: string;
  account: Account;
  /** The account is suspended: the session lives on, but its pages are refused until reactivation. */
  suspended: boolean;
}

/** Why every session of a client was ended (recorded in the audit trail). */
export type EndReason = 'operator' | 'sign_out_everywhere' | 'email_changed' | 'suspended' | 'offboarded';

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
    private readonly repository: SessionsRepository,
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
    // Offboarding ends every session for good; a suspension keeps them, refused, so that its people
    // see why, but voids every unused sign-in link (a reactivation does not bring them back).
    accounts.onStatusChanging(async (manager, clientId, change, actor) => {
      if (change.to === 'offboarded') await this.endAll(manager, clientId, actor, 'offboarded');
      if (change.to === 'suspended') await this.voidLinks(manager, clientId, actor, 'suspended');
    });
  }

  /** A client's live sessions, newest first. */
  list(clientId: string): Promise<SessionInfo[]> {
    return this.repository.listLive(clientId);
  }

  /**
   * Ends every live session of a client in `manager`'s transaction (the operator's DELETE, "sign out
   * everywhere", a new confirmed e-mail address, offboarding), and voids every sign-in link of the
   * client still unused, whoever issued it. Recorded once (`session.ended_all`, how many and why)
   * when there was any. Answers how many sessions ended.
   */
  async endAll(manager: EntityManager, clientId: string, actor: Actor, reason: EndReason): Promise<number> {
    const ended = await this.repository.endAllLive(manager, clientId);
    const voided = await this.repository.voidUnusedLinks(manager, clientId);
    if (ended > 0 || voided > 0) {
      await this.audit.record(manager, actor, {
        action: 'session.ended_all',
        targetType: 'client',
        targetId: clientId,
        clientId,
        changes: { reason, sessions: ended, links_voided: voided },
      });
    }
    return ended;
  }

  /** Voids every unused sign-in link of the client, sessions left alone (a suspension); recorded as `sign_in_link.voided_all` when there was any. */
  private async voidLinks(manager: EntityManager, clientId: string, actor: Actor, reason: EndReason): Promise<void> {
    const voided = await this.repository.voidUnusedLinks(manager, clientId);
    if (voided > 0) {
      await this.audit.record(manager, actor, {
        action: 'sign_in_link.voided_all',
        targetType: 'client',
        targetId: clientId,
        clientId,
        changes: { reason, links_voided: voided },
      });
    }
  }

  /** endAll in a transaction of its own. */
  async endAllNow(clientId: string, actor: Actor, reason: EndReason): Promise<number> {
    return this.dataSource.transaction((manager) => this.endAll(manager, clientId, actor, reason));
  }

  /**
   * The live session a cookie names, or undefined (absent, malformed, unknown, ended, idle or
   * expired). A read; the idle timeout slides with a write at most once a minute per session
   * (SESSION_SEEN_RESOLUTION_MS), not with every page view.
   */
  async resolve(secret: unknown): Promise<DashboardSession | undefined> {
    if (typeof secret !== 'string' || !parseToken(secret, SESSION_PREFIX).ok) return undefined;
    const row = await this.repository.findLiveByHash(hashToken(secret));
    // An offboarded account's sessions were ended with it; none is honoured even if one was left.
    if (!row || row.status === 'offboarded') return undefined;
    if (row.seenLongAgo) await this.repository.markSeen(row.sessionId);
    return { sessionId: row.sessionId, clientId: row.clientId, account: accountFromRow(row), suspended: row.status === 'suspended' };
  }

  /** Ends the session in the database (sign-out): its cookie is worthless from now on, on every replica. */
  async endById(session: Pick<DashboardSession, 'sessionId' | 'clientId'>, requestId: string | null): Promise<void> {
    await this.dataSource.transaction((manager) => this.end(manager, session, requestId));
  }

  private async end(
    manager: EntityManager,
    session: Pick<DashboardSession, 'sessionId' | 'clientId'>,
    requestId: string | null,
  ): Promise<void> {
    await this.repository.end(manager, session.sessionId);
    await this.audit.record(
      manager,
      { operator: { kind: 'client', clientId: session.clientId, sessionId: session.sessionId }, requestId },
      {
        action: 'session.ended',
        targetType: 'session',
        targetId: session.sessionId,
        clientId: session.clientId,
      },
    );
  }
}
