import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import type { Language } from '../i18n/language.js';

/** What the service e-mails: an invitation, a sign-in link asked for by e-mail, a reminder, a filing's confirmation, an operator's console sign-in link. */
export type MailKind = 'invitation' | 'sign_in' | 'reminder' | 'declaration_filed' | 'operator_sign_in';
export type MailState = 'queued' | 'sent' | 'failed';

/** A message as the operator sees it: never its text (which may hold a sign-in link). */
export interface MailMessageRow {
  id: string;
  kind: MailKind;
  recipient: string;
  subject: string;
  language: Language;
  state: MailState;
  attempts: number;
  lastError: string | null;
  /** UTC with microseconds (`2026-11-28T10:00:00.123456Z`), the listing's keyset. */
  createdAt: string;
  nextAttemptAt: Date | null;
  sentAt: Date | null;
}

/** A message claimed for one delivery attempt. */
export interface ClaimedMail {
  id: string;
  recipient: string;
  subject: string;
  language: Language;
  body: Buffer;
  attempts: number;
  /** The sign-in link it carries, if any. */
  signInLinkId: string | null;
}

export interface QueuedMail {
  clientId: string | null;
  kind: MailKind;
  recipient: string;
  language: Language;
  subject: string;
  body: Buffer;
  signInLinkId: string | null;
}

/** The SQL of the mail outbox (`mail_outbox`). `enqueue` runs in the caller's transaction; the rest each in its own short one. */
@Injectable()
export class MailOutboxRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async enqueue(manager: EntityManager, mail: QueuedMail): Promise<string> {
    const [row] = (await manager.query(
      `INSERT INTO mail_outbox (client_id, kind, recipient, language, subject, body, sign_in_link_id) VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id`,
      [mail.clientId, mail.kind, mail.recipient, mail.language, mail.subject, mail.body, mail.signInLinkId],
    )) as [{ id: string }];
    return row.id;
  }

  /** How many messages wait to be sent (the metrics' `epr_mail_queued`). */
  async countQueued(): Promise<number> {
    const [row] = (await this.dataSource.query(`SELECT count(*)::int AS n FROM mail_outbox WHERE state = 'queued'`)) as [{ n: number }];
    return row.n;
  }

  /**
   * Up to `limit` queued messages that are due, each claimed for `leaseMs` (a replica that dies
   * mid-sending leaves it to another once the lease is over) and counted as one more attempt. Rows
   * another replica is claiming at the same moment are skipped, not waited for.
   */
  async claim(limit: number, leaseMs: number): Promise<ClaimedMail[]> {
    // TypeORM answers an UPDATE with [rows, count].
    const [rows] = (await this.dataSource.query(
      `UPDATE mail_outbox SET attempts = attempts + 1, next_attempt_at = now() + $2 * interval '1 millisecond'
        WHERE id IN (SELECT id FROM mail_outbox WHERE state = 'queued' AND next_attempt_at <= now()
                      ORDER BY next_attempt_at, id LIMIT $1 FOR UPDATE SKIP LOCKED)
        RETURNING id, recipient, subject, language, body, attempts, sign_in_link_id AS "signInLinkId"`,
      [limit, leaseMs],
    )) as [ClaimedMail[], number];
    return rows;
  }

  /** Sent: its text is not kept any longer. */
  async sent(id: string): Promise<void> {
    await this.dataSource.query(`UPDATE mail_outbox SET state = 'sent', sent_at = now(), body = NULL, last_error = NULL WHERE id = $1`, [
      id,
    ]);
  }

  /** Failed this time: tried again in `retryInMs`. */
  async retryLater(id: string, error: string, retryInMs: number): Promise<void> {
    await this.dataSource.query(
      `UPDATE mail_outbox SET last_error = $2, next_attempt_at = now() + $3 * interval '1 millisecond' WHERE id = $1 AND state = 'queued'`,
      [id, error, retryInMs],
    );
  }

  /**
   * Given up (or not to be sent): its text is not kept any longer, and `onLink` is given the sign-in
   * link it carried, if any, in the same transaction.
   */
  async failed(id: string, error: string, onLink: (manager: EntityManager, linkId: string) => Promise<void>): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      const [[row]] = (await manager.query(
        `UPDATE mail_outbox SET state = 'failed', body = NULL, last_error = $2, next_attempt_at = now() WHERE id = $1 AND state = 'queued' RETURNING sign_in_link_id AS "linkId"`,
        [id, error],
      )) as [[{ linkId: string | null }?], number];
      if (row?.linkId) await onLink(manager, row.linkId);
    });
  }

  /** A client's messages, newest first, keyset on `(created_at, id)` after `after`. */
  list(clientId: string, after: { at: string; id: string } | undefined, limit: number): Promise<MailMessageRow[]> {
    const params: unknown[] = [clientId];
    const where = after ? `AND (created_at, id) < ($${params.push(after.at)}::timestamptz, $${params.push(after.id)}::uuid)` : '';
    return this.dataSource.query(
      `SELECT id, kind, recipient, subject, language, state, attempts, last_error AS "lastError",
              to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS "createdAt",
              CASE WHEN state = 'queued' THEN next_attempt_at END AS "nextAttemptAt", sent_at AS "sentAt"
         FROM mail_outbox WHERE client_id = $1 ${where}
        ORDER BY created_at DESC, id DESC LIMIT $${params.push(limit)}`,
      params,
    );
  }
}
