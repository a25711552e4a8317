import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { AccountsService } from '../../accounts/accounts.service.js';
import { AuditTrail } from '../../audit/audit-trail.js';
import { APP_CONFIG } from '../../config/config.module.js';
import type { AppConfig } from '../../config/config.js';
import type { Actor } from '../../caller/actor.js';
import { generateToken, hashToken, parseToken, SESSION_PREFIX, SIGN_IN_LINK_PREFIX } from '../../common/token-format.js';
import { NotFoundProblem, Problem } from '../../common/problem/problem.js';
import { isUuid } from '../../common/uuid.js';
import { inLanguage, type Language } from '../../i18n/language.js';
import { messagesFor } from '../../i18n/messages/index.js';
import { MailOutbox } from '../../mail/mail-outbox.js';
import { type OutstandingLink, SignInLinksRepository } from './sign-in-links.repository.js';

export type { OutstandingLink };

/** How long a sign-in link a person asks for herself works. */
export const SIGN_IN_LINK_TTL_MS = 15 * 60_000;
/** How long a link from the operator (an invitation) works unless the operator asks otherwise, and the longest any may: 7 days. */
export const INVITATION_TTL_MS = 7 * 24 * 3_600_000;
export const MAX_SIGN_IN_LINK_TTL_MS = INVITATION_TTL_MS;

/** What the operator asks of a new link. */
export interface LinkRequest {
  /** How long it works, in ms (default INVITATION_TTL_MS; at most MAX_SIGN_IN_LINK_TTL_MS). */
  ttlMs?: number;
  /** Send it by e-mail to the client's confirmed address, in the client's language. */
  send?: boolean;
}

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
  /** Where it was e-mailed, if it was. */
  sentTo?: string;
  /** The e-mail carrying it, in the outbox (`GET /admin/clients/{id}/messages`), if it was e-mailed. */
  messageId?: string;
}

export type LinkUse = { ok: true; sessionId: string; secret: string; clientId: string } | { ok: false };

/**
 * Single-use dashboard sign-in links: issued by the operator (admin API) or e-mailed to a
 * confirmed client's address. The secret (`eprl_…`, scrubbed from logs like every token) is in the
 * URL only; the database keeps its SHA-256. Using one starts a session and spends the link in one
 * statement: two uses at once cannot both succeed.
 */
@Injectable()
export class SignInLinksService {
  private readonly baseUrl: string;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly repository: SignInLinksRepository,
    private readonly accounts: AccountsService,
    private readonly audit: AuditTrail,
    private readonly outbox: MailOutbox,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.baseUrl = config.publicBaseUrl;
    // A client created with `"invite": true` gets its invitation in its creation's transaction.
    accounts.useInviter(async (manager, clientId, actor) => {
      const link = await this.mailInvitation(manager, clientId, actor, INVITATION_TTL_MS);
      return { linkId: link.id, expiresAt: link.expiresAt, sentTo: link.sentTo, messageId: link.messageId, language: link.language };
    });
    // The outbox sends no mail whose link no longer works, and a link whose mail was given up stops working.
    outbox.carryLinks({ voided: (ids) => repository.voided(ids), revoke: (manager, id) => repository.revokeUnused(manager, id) });
  }

  /**
   * A link for `clientId` from the operator (404 if there is no such client), recorded in the audit
   * trail; when asked, e-mailed through the outbox, queued in the same transaction and sent after it.
   */
  async issue(clientId: string, actor: Actor, request: LinkRequest = {}): Promise<IssuedLink> {
    await this.accounts.assertExists(clientId);
    const ttlMs = request.ttlMs ?? INVITATION_TTL_MS;
    const issued = await this.dataSource.transaction(async (manager): Promise<IssuedLink> => {
      if (request.send) return this.mailInvitation(manager, clientId, actor, ttlMs);
      await this.clientForIssue(manager, clientId);
      return this.insert(manager, clientId, actor, 'operator', null, ttlMs);
    });
    if (issued.messageId) this.outbox.kick();
    return issued;
  }

  /**
   * In `manager`'s transaction: an invitation e-mailed to the client's confirmed address in its
   * language, queued in the outbox (the caller kicks it once committed), recorded with `sent_to`;
   * 409 without SMTP_URL or a confirmed address.
   */
  private async mailInvitation(
    manager: EntityManager,
    clientId: string,
    actor: Actor,
    ttlMs: number,
  ): Promise<IssuedLink & { sentTo: string; messageId: string; language: Language }> {
    const client = await this.clientForIssue(manager, clientId);
    if (!this.outbox.enabled)
      throw new Problem(
        'conflict',
        'The service cannot send e-mail: SMTP_URL is not configured. Create the link without "send" and pass it on yourself.',
      );
    if (!client.email)
      throw new Problem('conflict', `Client "${clientId}" has no confirmed e-mail address to send the link to: confirm its profile first.`);
    const { language, email: sentTo } = client;
    const link = await this.insert(manager, clientId, actor, 'operator', sentTo, ttlMs, { sent_to: sentTo, language });
    const words = messagesFor(language).operator.invitation;
    const company = client.company ?? clientId;
    const messageId = await this.outbox.enqueue(manager, {
      kind: 'invitation',
      clientId,
      to: sentTo,
      language,
      subject: words.subject({ company }),
      text: words.text({ company, clientId, url: inLanguage(link.url, language), until: link.expiresAt.toISOString() }),
      signInLinkId: link.id,
    });
    return { ...link, sentTo, messageId, language };
  }

  /** The client as a new link needs it (its row shared-locked until the transaction ends); 409 once offboarded. */
  private async clientForIssue(manager: EntityManager, clientId: string) {
    // It exists (asserted by the caller) and no client row is ever deleted.
    const client = (await this.repository.clientForIssue(manager, clientId))!;
    if (client.status === 'offboarded') throw new Problem('conflict', `Client "${clientId}" is offboarded: it cannot sign in any more.`);
    return client;
  }

  /**
   * An invitation mailed to `mailedTo`, issued within the caller's transaction (a reminder's, which
   * queues its e-mail in the same transaction), recorded in the audit trail with `extra`.
   */
  async issueWithin(
    manager: EntityManager,
    clientId: string,
    actor: Actor,
    mailedTo: string,
    ttlMs: number,
    extra: Record<string, unknown> = {},
  ): Promise<IssuedLink> {
    return this.insert(manager, clientId, actor, 'operator', mailedTo, ttlMs, extra);
  }

  /** The client's links not yet used, revoked or expired, newest first (never their secret, which is not kept). */
  async outstanding(clientId: string): Promise<OutstandingLink[]> {
    await this.accounts.assertExists(clientId);
    return this.repository.listOutstanding(clientId);
  }

  /** Revokes an outstanding link of the client (404 otherwise); recorded in the audit trail. */
  async revoke(clientId: string, linkId: string, actor: Actor): Promise<void> {
    await this.accounts.assertExists(clientId);
    if (!isUuid(linkId)) throw new NotFoundProblem('Sign-in link');
    await this.dataSource.transaction(async (manager) => {
      const revoked = await this.repository.revokeOutstanding(manager, clientId, linkId.toLowerCase());
      if (revoked === undefined) throw new NotFoundProblem('Sign-in link');
      await this.audit.record(manager, actor, { action: 'sign_in_link.revoked', targetType: 'sign_in_link', targetId: revoked, clientId });
    });
  }

  /**
   * A link for a confirmed client, bound to its confirmed address `mail.to`, asked for by e-mail by someone not signed in (recorded in the
   * audit trail as `anonymous`), queued to `to` in the outbox with the text `mail` makes of it;
   * none past SIGN_IN_EMAILS_PER_DAY in the last 24 hours.
   */
  async issueByEmail(
    clientId: string,
    requestId: string | null,
    mail: { to: string; language: Language; compose: (link: IssuedLink) => { subject: string; text: string } },
  ): Promise<IssuedLink | undefined> {
    const issued = await this.dataSource.transaction(async (manager) => {
      const mailed = await this.repository.countMailedToday(manager, clientId);
      if (mailed >= SIGN_IN_EMAILS_PER_DAY) return undefined;
      const link = await this.insert(manager, clientId, { operator: { kind: 'anonymous' }, requestId }, 'email', mail.to);
      const messageId = await this.outbox.enqueue(manager, {
        kind: 'sign_in',
        clientId,
        to: mail.to,
        language: mail.language,
        ...mail.compose(link),
        signInLinkId: link.id,
      });
      return { ...link, sentTo: mail.to, messageId };
    });
    if (issued) this.outbox.kick();
    return issued;
  }

  private async insert(
    manager: EntityManager,
    clientId: string,
    actor: Actor,
    via: 'operator' | 'email',
    mailedTo: string | null,
    ttlMs = SIGN_IN_LINK_TTL_MS,
    extra: Record<string, unknown> = {},
  ): Promise<IssuedLink> {
    const secret = generateToken(SIGN_IN_LINK_PREFIX);
    // A mailed link is bound to its address: refused once that is no longer the client's confirmed one.
    const row = await this.repository.insert(manager, { clientId, tokenHash: hashToken(secret), issuedVia: via, ttlMs, mailedTo });
    await this.audit.record(manager, actor, {
      action: 'sign_in_link.issued',
      targetType: 'sign_in_link',
      targetId: row.id,
      clientId,
      changes: { issued_via: via, expires_at: row.expiresAt, ...extra },
    });
    return { id: row.id, url: `${this.baseUrl}${SIGN_IN_LINK_PATH}?token=${secret}`, expiresAt: row.expiresAt };
  }

  /** Spends the link and starts a session; refused when unknown, used, expired or mailed to an address no longer the client's (the same answer for each). */
  async use(secret: unknown, requestId: string | null): Promise<LinkUse> {
    if (typeof secret !== 'string' || !parseToken(secret, SIGN_IN_LINK_PREFIX).ok) return { ok: false };
    // The session's secret goes in the cookie and nowhere else; a new one at every sign-in (no fixation).
    const sessionSecret = generateToken(SESSION_PREFIX);
    const started = await this.repository.startSession(hashToken(secret), hashToken(sessionSecret), requestId);
    return started ? { ok: true, ...started, secret: sessionSecret } : { ok: false };
  }
}
