import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { AuditTrail } from '../../audit/audit-trail.js';
import type { Actor } from '../../caller/actor.js';
import { emailKey } from '../../common/email-address.js';
import { generateToken, hashToken, parseToken, SESSION_PREFIX, SIGN_IN_LINK_PREFIX } from '../../common/token-format.js';
import { APP_CONFIG } from '../../config/config.module.js';
import type { AppConfig } from '../../config/config.js';
import type { Language } from '../../i18n/language.js';
import { MESSAGES } from '../../i18n/messages/index.js';
import { MailOutbox } from '../../mail/mail-outbox.js';
import { cookieSettings } from '../sessions/session-cookie.js';
import { SIGN_IN_EMAILS_PER_DAY, SIGN_IN_LINK_TTL_MS } from '../sign-in-links/sign-in-links.service.js';
import { NotFoundProblem } from '../../common/problem/problem.js';
import { isUuid } from '../../common/uuid.js';
import { type LiveOperatorSessionListRow, OperatorSessionsRepository } from './operator-sessions.repository.js';
import { OperatorTokensRepository } from './operator-tokens.repository.js';

/** Where an operator's console sign-in link leads: a page that asks to continue (a mail scanner following it signs nobody in). */
export const OPERATOR_SIGN_IN_LINK_PATH = '/operator/sign-in/link';

/** A live console session as the admin API lists it. */
export type OperatorSessionListing = LiveOperatorSessionListRow;

/** A live console session and its operator. */
export interface OperatorSession {
  sessionId: string;
  operatorId: string;
  name: string;
}

/**
 * The console's sign-in for named operators (an operator token with an e-mail address), on the
 * dashboard's rules and tokens: a single-use link (`eprl_…`, 15 minutes, at most
 * SIGN_IN_EMAILS_PER_DAY a day) mailed to the operator's address, spent by a POST that starts a
 * session (`eprs_…` in a cookie of its own, `epr_operator_session`; SHA-256 stored), with the
 * dashboard's idle timeout and lifetime. A revoked operator token ends its sessions and links at once.
 * Apart from the clients': a client's session never opens a console page, nor the reverse.
 */
@Injectable()
export class OperatorSessionsService {
  readonly cookies: ReturnType<typeof cookieSettings>;
  private readonly baseUrl: string;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly repository: OperatorSessionsRepository,
    private readonly operators: OperatorTokensRepository,
    private readonly outbox: MailOutbox,
    private readonly audit: AuditTrail,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.cookies = cookieSettings(config.publicBaseUrl, 'epr_operator');
    this.baseUrl = config.publicBaseUrl;
  }

  get mailEnabled(): boolean {
    return this.outbox.enabled;
  }

  /**
   * Mails a sign-in link to the live operator of this address, in `language`; nothing for any other
   * address (the page answers the same). False when nothing was sent.
   */
  async mailLink(typed: string, language: Language, requestId: string | null): Promise<boolean> {
    if (!this.outbox.enabled) return false;
    const operator = await this.operators.findLiveByEmail(emailKey(typed));
    if (!operator) return false;
    const sent = await this.dataSource.transaction(async (manager) => {
      if ((await this.repository.countLinksToday(manager, operator.id)) >= SIGN_IN_EMAILS_PER_DAY) return false;
      const secret = generateToken(SIGN_IN_LINK_PREFIX);
      const link = await this.repository.insertLink(manager, operator.id, hashToken(secret), SIGN_IN_LINK_TTL_MS);
      const actor: Actor = { operator: { kind: 'anonymous' }, requestId };
      await this.audit.record(manager, actor, {
        action: 'operator_sign_in_link.issued',
        targetType: 'operator_token',
        targetId: operator.id,
        changes: { name: operator.name, expires_at: link.expiresAt },
      });
      const words = MESSAGES[language].operatorPages.mail;
      const url = `${this.baseUrl}${OPERATOR_SIGN_IN_LINK_PATH}?token=${secret}&lang=${language}`;
      await this.outbox.enqueue(manager, {
        kind: 'operator_sign_in',
        clientId: null,
        to: operator.email,
        language,
        subject: words.subject,
        text: words.text({ name: operator.name, url, minutes: SIGN_IN_LINK_TTL_MS / 60_000 }),
      });
      return true;
    });
    if (sent) this.outbox.kick();
    return sent;
  }

  /** Spends the link and starts a session (audited with the operator's name); undefined when unknown, used, expired or its operator revoked. */
  async use(secret: unknown, requestId: string | null): Promise<(OperatorSession & { secret: string }) | undefined> {
    if (typeof secret !== 'string' || !parseToken(secret, SIGN_IN_LINK_PREFIX).ok) return undefined;
    return this.dataSource.transaction(async (manager) => {
      const spent = await this.repository.spendLink(manager, hashToken(secret));
      if (!spent) return undefined;
      const sessionSecret = generateToken(SESSION_PREFIX);
      const sessionId = await this.repository.insertSession(manager, spent.operatorId, hashToken(sessionSecret));
      await this.audit.record(
        manager,
        { operator: { kind: 'operator', id: spent.operatorId, name: spent.name }, requestId },
        { action: 'operator_session.started', targetType: 'operator_session', targetId: sessionId },
      );
      return { sessionId, operatorId: spent.operatorId, name: spent.name, secret: sessionSecret };
    });
  }

  /** The live session a cookie names, or undefined. The idle timeout slides at most once a minute. */
  async resolve(secret: unknown): Promise<OperatorSession | undefined> {
    if (typeof secret !== 'string' || !parseToken(secret, SESSION_PREFIX).ok) return undefined;
    const row = await this.repository.findLiveByHash(hashToken(secret));
    if (!row) return undefined;
    if (row.seenLongAgo) await this.repository.markSeen(row.sessionId);
    return { sessionId: row.sessionId, operatorId: row.operatorId, name: row.name };
  }

  /** The live console sessions of every operator (admin API). */
  listLive(): Promise<OperatorSessionListing[]> {
    return this.repository.listLive();
  }

  /**
   * Ends a console session by its id (admin API), audited with who ended it and whose it was; a
   * session ended already changes nothing. 404 for no such session.
   */
  async endById(sessionId: string, actor: Actor): Promise<void> {
    if (!isUuid(sessionId)) throw new NotFoundProblem(`Operator session "${sessionId}"`);
    await this.dataSource.transaction(async (manager) => {
      const session = await this.repository.findForUpdate(manager, sessionId);
      if (!session) throw new NotFoundProblem(`Operator session "${sessionId}"`);
      if (!session.live) return;
      await this.repository.end(manager, sessionId);
      await this.audit.record(manager, actor, {
        action: 'operator_session.ended',
        targetType: 'operator_session',
        targetId: sessionId,
        changes: { operator_id: session.operatorId, name: session.name },
      });
    });
  }

  /** Signs out: the session ends in the database, on every replica. */
  async end(session: OperatorSession, requestId: string | null): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      await this.repository.end(manager, session.sessionId);
      await this.audit.record(
        manager,
        { operator: { kind: 'operator', id: session.operatorId, name: session.name }, requestId },
        { action: 'operator_session.ended', targetType: 'operator_session', targetId: session.sessionId },
      );
    });
  }
}
