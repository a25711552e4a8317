import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { AuditTrail } from '../../audit/audit-trail.js';
import { MAX_SIGN_IN_LINK_TTL_MS, SignInLinksService } from '../../auth/sign-in-links/sign-in-links.service.js';
import type { Actor } from '../../caller/actor.js';
import { Problem, ValidationProblem } from '../../common/problem/problem.js';
import { inLanguage, type Language } from '../../i18n/language.js';
import { messagesFor } from '../../i18n/messages/index.js';
import { MailOutbox } from '../../mail/mail-outbox.js';
import type { LocalizedName } from '../../reference/reference-documents.js';
import { ReferenceCatalogue } from '../../reference/reference-catalogue.js';
import { Clock } from '../../calendar/clock.js';
import { filingDue } from '../obligations/obligations.js';
import { parsePeriod, periodEndInstant, periodEnded, periodOf } from '../../calendar/half-year.js';
import { RemindersRepository } from './reminders.repository.js';

/** How long the sign-in link of a reminder works: the longest invitation (7 days). */
export const REMINDER_LINK_TTL_MS = MAX_SIGN_IN_LINK_TTL_MS;

/** Reminders recorded at the same time by one run (each in its own transaction, on its own connection). */
const REMINDERS_AT_ONCE = 4;

/** `would_send` / `already_reminded` on a dry run; `queued` (in the mail outbox, sent after the answer) or `already_reminded` when applied. */
export type ReminderOutcome = 'would_send' | 'already_reminded' | 'queued';

export interface MissingStream {
  stream: string;
  name: LocalizedName;
  /** The filing deadline of the half-year for this stream (`YYYY-MM-DD`), null when none is published. */
  due: string | null;
}

export interface Reminder {
  clientId: string;
  company: string;
  email: string;
  language: Language;
  missing: MissingStream[];
  /** When the client was last reminded of this half-year; null if never. */
  lastRemindedAt: Date | null;
  outcome: ReminderOutcome;
}

/**
 * Reminders before a filing deadline: for an ended half-year, every active,
 * confirmed client liable for one of its streams then (the same rule as the period summary) that
 * has not declared that stream in its current revision. Applying e-mails each, in its language, what
 * is missing and a fresh sign-in link; one reminder per client and half-year unless `force`. The
 * e-mails are queued in the mail outbox and sent in the background: the run answers at once.
 */
@Injectable()
export class RemindersService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly reminders: RemindersRepository,
    private readonly catalogue: ReferenceCatalogue,
    private readonly signInLinks: SignInLinksService,
    private readonly outbox: MailOutbox,
    private readonly audit: AuditTrail,
    private readonly clock: Clock,
  ) {}

  /** `clientId`: that client only (the operator's console reminds one client from its page, by the same rules). */
  async remind(period: string, options: { apply: boolean; force: boolean; clientId?: string }, actor: Actor): Promise<Reminder[]> {
    const parsed = parsePeriod(period)!;
    if (!periodEnded(period, this.clock.now())) {
      throw new ValidationProblem([
        {
          pointer: '/period',
          code: 'period_not_ended',
          detail: `the half-year ${period} has not ended (it ends on ${parsed.end}): nothing of it is due yet`,
          params: { field: 'period', period, end: parsed.end },
        },
      ]);
    }
    if (options.apply && !this.outbox.enabled) {
      throw new Problem(
        'conflict',
        'The service cannot send e-mail: SMTP_URL is not configured. The dry run (without dry_run=false) still lists who would get what.',
      );
    }
    const reminders = (await this.reminders.candidates(period, periodEndInstant(period))).flatMap((candidate): Reminder[] => {
      const missing = candidate.streams.flatMap((code): MissingStream[] => {
        const stream = this.catalogue.stream(code);
        if (!stream) return [];
        const declarable =
          periodOf(stream.declarable_from).code <= period &&
          (stream.declarable_until === null || period <= periodOf(stream.declarable_until).code);
        return declarable ? [{ stream: code, name: stream.name, due: filingDue(stream, parsed) }] : [];
      });
      if (missing.length === 0 || (options.clientId !== undefined && candidate.clientId !== options.clientId)) return [];
      const { streams: _streams, ...client } = candidate;
      const reminded = client.lastRemindedAt !== null && !options.force;
      return [{ ...client, missing, outcome: reminded ? 'already_reminded' : 'would_send' }];
    });
    if (!options.apply) return reminders;
    // A few clients at a time (each its own short transaction), leaving most of the pool to other requests.
    const due = reminders.filter((r) => r.outcome === 'would_send');
    const next = async (): Promise<void> => {
      for (let reminder = due.shift(); reminder; reminder = due.shift())
        reminder.outcome = await this.send(period, reminder, options.force, actor);
    };
    await Promise.all(Array.from({ length: REMINDERS_AT_ONCE }, next));
    this.outbox.kick();
    return reminders;
  }

  /**
   * One reminder, in one transaction: the sign-in link, the record of the sending, its audit event
   * and its e-mail in the outbox. Serialised per client and half-year, so that two operators
   * applying at once send it once.
   */
  private send(period: string, reminder: Reminder, force: boolean, actor: Actor): Promise<ReminderOutcome> {
    return this.dataSource.transaction(async (manager): Promise<ReminderOutcome> => {
      await this.reminders.lock(manager, reminder.clientId, period);
      if (!force) {
        const sentAt = await this.reminders.lastSent(manager, reminder.clientId, period);
        if (sentAt !== null) {
          reminder.lastRemindedAt = sentAt;
          return 'already_reminded';
        }
      }
      const link = await this.signInLinks.issueWithin(manager, reminder.clientId, actor, reminder.email, REMINDER_LINK_TTL_MS, {
        sent_to: reminder.email,
        language: reminder.language,
        reminder_period: period,
      });
      const streams = reminder.missing.map((m) => m.stream);
      const row = await this.reminders.insert(manager, {
        clientId: reminder.clientId,
        period,
        sentTo: reminder.email,
        language: reminder.language,
        missing: streams,
        signInLinkId: link.id,
        forced: force,
      });
      await this.audit.record(manager, actor, {
        action: 'reminder.sent',
        targetType: 'reminder',
        targetId: row.id,
        clientId: reminder.clientId,
        changes: {
          period,
          missing: streams,
          sent_to: reminder.email,
          language: reminder.language,
          forced: force,
          sign_in_link_id: link.id,
        },
      });
      const words = messagesFor(reminder.language).operator.reminder;
      const due =
        reminder.missing
          .map((m) => m.due)
          .filter((d) => d !== null)
          .sort()[0] ?? null;
      await this.outbox.enqueue(manager, {
        kind: 'reminder',
        clientId: reminder.clientId,
        to: reminder.email,
        language: reminder.language,
        subject: words.subject({ company: reminder.company, period, due }),
        text: words.text({
          company: reminder.company,
          clientId: reminder.clientId,
          period,
          missing: reminder.missing.map((m) => ({ stream: m.stream, name: m.name[reminder.language] ?? m.stream, due: m.due })),
          url: inLanguage(link.url, reminder.language),
          until: link.expiresAt.toISOString(),
        }),
        signInLinkId: link.id,
      });
      return 'queued';
    });
  }
}
