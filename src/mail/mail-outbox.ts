import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import {
  type BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnModuleInit,
  Optional,
} from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { scrubTokens } from '../common/logging.js';
import { METRICS, type Metrics } from '../common/metrics.js';
import { type Page, pageOf, positionOf, UUID_ID } from '../common/paging/keyset-cursor.js';
import { DEFAULT_PAGE_SIZE } from '../common/paging/page-query.dto.js';
import type { Language } from '../i18n/language.js';
import { ServiceSecretsRepository } from '../database/service-secrets.repository.js';
import type { CarriedLinks } from './carried-links.js';
import { MAIL_DELIVERY, type MailDelivery } from './mail-delivery.js';
import { type ClaimedMail, type MailKind, type MailMessageRow, MailOutboxRepository } from './mail-outbox.repository.js';

export type { MailKind, MailState } from './mail-outbox.repository.js';
/** A message as the operator sees it: never its text. */
export type MailMessage = MailMessageRow;
import { Mailer } from './mailer.js';

/** A message to queue: for whom, about what, and its text. */
export interface OutgoingMail {
  kind: MailKind;
  /** The client it concerns (its messages are listed to the operator); null for a mail to an operator. */
  clientId: string | null;
  to: string;
  language: Language;
  subject: string;
  text: string;
  /** The sign-in link the text carries: voided if the message is given up. */
  signInLinkId?: string;
}

/** The longest `last_error` kept. */
const MAX_ERROR_LENGTH = 300;

/**
 * The mail outbox. Whatever decides a mail queues it with `enqueue` in its own transaction (the
 * message exists if and only if what it tells of was committed), then calls `kick` once committed;
 * the sender delivers after the commit, never inside a transaction, on any replica: rows are
 * claimed with `FOR UPDATE SKIP LOCKED` in a statement of their own, then sent, then marked. A
 * failure is tried again later (exponential backoff) up to `maxAttempts`, then the message is
 * `failed`. Each replica also looks for due messages every `pollMs` (a kick lost to a crash, a
 * retry that is due).
 *
 * The text may hold a sign-in link, whose secret must never be kept in clear: it is stored
 * encrypted (AES-256-GCM, with a key of the service's own kept in `service_secrets`, shared by
 * every replica) and deleted once the message is sent or given up. Subject, recipient, state,
 * attempts and the last error (tokens and addresses scrubbed) stay for the operator.
 */
@Injectable()
export class MailOutbox implements OnModuleInit, OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(MailOutbox.name);
  private key = Buffer.alloc(0);
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = false;
  private poll: NodeJS.Timeout | undefined;
  /** Messages waiting to be sent, as the last round of delivery counted them. */
  private queued = 0;
  private links: CarriedLinks | undefined;

  constructor(
    private readonly repository: MailOutboxRepository,
    private readonly secrets: ServiceSecretsRepository,
    private readonly mailer: Mailer,
    @Inject(MAIL_DELIVERY) private readonly delivery: MailDelivery,
    @Optional() @Inject(METRICS) metrics: Metrics | null = null,
  ) {
    // Counted after each round of delivery (at every kick, and every pollMs), not at each scrape: a
    // scrape takes no connection from the pool it measures.
    metrics?.watchMailQueue(() => this.queued);
  }

  /** False without SMTP_URL: nothing can be sent, so nothing is queued. */
  get enabled(): boolean {
    return this.mailer.enabled;
  }

  async onModuleInit(): Promise<void> {
    this.key = Buffer.from(await this.secrets.keepFirst('mail', randomBytes(32).toString('hex')), 'hex');
  }

  onApplicationBootstrap(): void {
    if (!this.enabled) return;
    this.poll = setInterval(() => this.kick(), this.delivery.pollMs);
    this.poll.unref();
    this.kick();
  }

  /** Stops looking for messages; an attempt under way is given a moment, else its lease lets another replica (or the next start) retry it. */
  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearInterval(this.poll);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.running, new Promise((resolve) => (timer = setTimeout(resolve, 2_000)))]);
    clearTimeout(timer);
  }

  /** Queues a message in the caller's transaction; its id. Call `kick` once the transaction has committed. */
  enqueue(manager: EntityManager, mail: OutgoingMail): Promise<string> {
    if (!this.enabled) throw new Error('Mail is not configured (SMTP_URL)');
    return this.repository.enqueue(manager, {
      clientId: mail.clientId,
      kind: mail.kind,
      recipient: mail.to,
      language: mail.language,
      subject: mail.subject,
      body: this.seal(mail.text),
      signInLinkId: mail.signInLinkId ?? null,
    });
  }

  /** A client's messages, newest first, keyset-paged (`cursor` from the previous page, else 400 `invalid_cursor`). */
  async list(clientId: string, query: { cursor?: string; limit?: number }): Promise<Page<MailMessage>> {
    const filters = { client_id: clientId };
    const after = positionOf(query.cursor, filters, UUID_ID);
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const rows = await this.repository.list(clientId, after, limit + 1);
    return pageOf(rows, limit, (r) => ({ at: r.createdAt, id: r.id }), filters);
  }

  /** Delivers what is due, in the background (at once, or right after the delivery under way). Never throws. */
  kick(): void {
    if (!this.enabled || this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.again = false;
    this.running = this.deliverDue()
      .catch((error: unknown) => this.logger.error({ err: describe(error) }, 'mail delivery stopped'))
      .finally(() => {
        this.running = undefined;
        if (this.again) this.kick();
      });
  }

  /** How the outbox learns about the sign-in links its mails carry (auth/ calls this once, at start). */
  carryLinks(links: CarriedLinks): void {
    this.links = links;
  }

  private async deliverDue(): Promise<void> {
    while (!this.stopped) {
      const claimed = await this.repository.claim(this.delivery.batch, this.delivery.leaseMs);
      if (claimed.length === 0) {
        this.queued = await this.repository.countQueued();
        return;
      }
      const ids = claimed.flatMap((mail) => (mail.signInLinkId ? [mail.signInLinkId] : []));
      const voided = ids.length > 0 && this.links ? await this.links.voided(ids) : new Set<string>();
      await Promise.all(claimed.map((mail) => this.attempt(mail, mail.signInLinkId !== null && voided.has(mail.signInLinkId))));
    }
  }

  /** Given up: the sign-in link the mail carried, which nobody received, stops working (it no longer shows as outstanding). */
  private failed(id: string, error: string): Promise<void> {
    return this.repository.failed(id, error, (manager, linkId) => this.links?.revoke(manager, linkId) ?? Promise.resolve());
  }

  private async attempt(mail: ClaimedMail, linkVoid: boolean): Promise<void> {
    // Voided meanwhile (the client's address changed, its sessions were ended…): its link must not reach the mailbox any more.
    if (linkVoid) return this.failed(mail.id, 'not sent: the sign-in link it carries was revoked, used or has expired');
    let failure: string | undefined;
    try {
      const text = this.open(mail.body);
      await withTimeout(
        this.mailer.send({ to: mail.recipient, subject: mail.subject, text, language: mail.language }),
        this.delivery.attemptMs,
      );
    } catch (error) {
      failure = scrubTokens(describe(error)).slice(0, MAX_ERROR_LENGTH);
    }
    if (failure === undefined) return this.repository.sent(mail.id);
    if (mail.attempts >= this.delivery.maxAttempts) {
      await this.failed(mail.id, failure);
      this.logger.error({ message_id: mail.id, attempts: mail.attempts, err: failure }, 'mail given up');
      return;
    }
    // Recorded before it is logged: whoever reads the log finds the error in the outbox.
    await this.repository.retryLater(mail.id, failure, this.delivery.retryBaseMs * 2 ** (mail.attempts - 1));
    this.logger.warn({ message_id: mail.id, attempts: mail.attempts, err: failure }, 'mail not sent, will retry');
  }

  /** AES-256-GCM: iv (12 bytes), tag (16), ciphertext. */
  private seal(text: string): Buffer {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const sealed = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), sealed]);
  }

  private open(body: Buffer): string {
    const decipher = createDecipheriv('aes-256-gcm', this.key, body.subarray(0, 12));
    decipher.setAuthTag(body.subarray(12, 28));
    return Buffer.concat([decipher.update(body.subarray(28)), decipher.final()]).toString('utf8');
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer from the mail server within ${ms / 1000} s`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
