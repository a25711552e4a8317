import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import type { MailMessage } from '../../mail/mail-outbox.js';
import { LANGUAGES } from '../../i18n/language.js';

@ApiSchema({ description: 'One e-mail the service decided to send to a client, and how its delivery went. Never its text.' })
export class ClientMessageDto {
  @ApiProperty({ format: 'uuid' })
  id!: string;

  /** `invitation` (a sign-in link from the operator), `sign_in` (a link asked for on the sign-in page), `reminder`, `declaration_filed` (a filing’s confirmation). */
  @ApiProperty({ enum: ['invitation', 'sign_in', 'reminder', 'declaration_filed'] })
  kind!: MailMessage['kind'];

  @ApiProperty({ example: 'compliance@exemple.fr' })
  to!: string;

  @ApiProperty({ example: 'Votre accès au tableau de bord des déclarations REP de Exemple SAS' })
  subject!: string;

  @ApiProperty({ enum: LANGUAGES })
  language!: MailMessage['language'];

  /**
   * `queued`: waiting to be sent, or to be tried again after a failure (`last_error`); `sent`: the mail server accepted it;
   * `failed`: given up after `attempts` tries (a sign-in link it carried no longer works).
   */
  @ApiProperty({ enum: ['queued', 'sent', 'failed'] })
  state!: MailMessage['state'];

  /** Tries so far. */
  @ApiProperty({ example: 1 })
  attempts!: number;

  /** What the mail server or the network said at the last failed try (addresses and tokens removed); null if none failed. */
  @ApiProperty({ type: String, nullable: true, example: null })
  last_error!: string | null;

  /** When it was queued (UTC, microseconds). */
  @ApiProperty({ format: 'date-time', example: '2026-11-23T10:00:00.123456Z' })
  created_at!: string;

  /** While `queued`: when it is tried next. */
  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  next_attempt_at!: Date | null;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  sent_at!: Date | null;

  static from(m: MailMessage): ClientMessageDto {
    return {
      id: m.id,
      kind: m.kind,
      to: m.recipient,
      subject: m.subject,
      language: m.language,
      state: m.state,
      attempts: m.attempts,
      last_error: m.lastError,
      created_at: m.createdAt,
      next_attempt_at: m.nextAttemptAt,
      sent_at: m.sentAt,
    };
  }
}

@ApiSchema({ description: 'One page of a client’s e-mails, newest first (`created_at`, then `id`, descending).' })
export class ClientMessagePageDto {
  @ApiProperty({ type: [ClientMessageDto] })
  data!: ClientMessageDto[];

  @ApiProperty()
  has_more!: boolean;

  /** Pass as `cursor` to get the next page; null on the last page. */
  @ApiProperty({ type: String, nullable: true })
  next_cursor!: string | null;
}
