import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import type { Language } from '../../i18n/language.js';
import { liableBySql } from '../../calendar/liability.js';

/** A client liable for streams of a half-year it has not declared, and when it was last reminded of that half-year. */
export interface ReminderCandidate {
  clientId: string;
  company: string;
  email: string;
  language: Language;
  streams: string[];
  lastRemindedAt: Date | null;
}

/** What a reminder records of its sending. */
export interface ReminderRecord {
  clientId: string;
  period: string;
  sentTo: string;
  language: Language;
  missing: string[];
  signInLinkId: string;
  forced: boolean;
}

/** A reminder `r` counts unless its e-mail was given up (the mail outbox's `failed`): applying again sends it anew. */
const DELIVERED = `NOT EXISTS (SELECT 1 FROM mail_outbox m WHERE m.sign_in_link_id = r.sign_in_link_id AND m.state = 'failed')`;

/** The SQL of reminders (`reminders`) and of who is due one. Writes run in the caller's transaction. */
@Injectable()
export class RemindersRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * The active, confirmed clients liable for a stream in the half-year (their setting's `liable_from`,
   * else confirmed before `periodEnd`) without it in their current live revision, with those streams.
   */
  candidates(period: string, periodEnd: Date): Promise<ReminderCandidate[]> {
    return this.dataSource.query(
      `SELECT c.client_id AS "clientId", c.confirmed_company AS company, c.confirmed_email AS email, c.language,
              array_agg(s.stream ORDER BY s.stream) AS streams,
              (SELECT max(r.sent_at) FROM reminders r WHERE r.client_id = c.client_id AND r.period = $1 AND ${DELIVERED}) AS "lastRemindedAt"
         FROM clients c
        CROSS JOIN LATERAL unnest(c.confirmed_streams) AS s(stream)
         LEFT JOIN client_streams cs ON cs.client_id = c.client_id AND cs.stream = s.stream
        WHERE c.confirmed_at IS NOT NULL AND c.status = 'active' AND c.confirmed_email IS NOT NULL
          AND ${liableBySql({ setting: 'cs.liable_from', firstConfirmedAt: 'c.first_confirmed_at', period: '$1', periodEnd: '$2' })}
          AND NOT EXISTS (SELECT 1 FROM declarations d JOIN declaration_lines l ON l.declaration_id = d.id
                           WHERE d.client_id = c.client_id AND d.period = $1 AND d.status = 'current' AND d.mode = 'live' AND l.stream = s.stream)
        GROUP BY c.client_id
        ORDER BY c.client_id`,
      [period, periodEnd],
    );
  }

  /** Until the transaction ends: one reminder at a time per client and half-year. */
  async lock(manager: EntityManager, clientId: string, period: string): Promise<void> {
    await manager.query(`SELECT pg_advisory_xact_lock(hashtext('reminder:' || $1 || ':' || $2))`, [clientId, period]);
  }

  /** When the client was last reminded of the half-year (a reminder given up does not count); null if never. */
  async lastSent(manager: EntityManager, clientId: string, period: string): Promise<Date | null> {
    const [sent] = (await manager.query(
      `SELECT max(sent_at) AS at FROM reminders r WHERE client_id = $1 AND period = $2 AND ${DELIVERED}`,
      [clientId, period],
    )) as [{ at: Date | null }];
    return sent.at;
  }

  /** Records a reminder sent; its id and when. */
  async insert(manager: EntityManager, reminder: ReminderRecord): Promise<{ id: string; sentAt: Date }> {
    const [row] = (await manager.query(
      `INSERT INTO reminders (client_id, period, sent_to, language, missing, sign_in_link_id, forced) VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id, sent_at AS "sentAt"`,
      [reminder.clientId, reminder.period, reminder.sentTo, reminder.language, reminder.missing, reminder.signInLinkId, reminder.forced],
    )) as [{ id: string; sentAt: Date }];
    return row;
  }
}
