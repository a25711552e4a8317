import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { IsDefined, IsOptional, IsString, Matches, ValidateBy } from 'class-validator';
import { PERIOD_PATTERN, PERIOD_PATTERN_TEXT } from '../../../calendar/half-year.js';
import type { Reminder } from '../reminders.service.js';
import { type Language, LANGUAGES } from '../../../i18n/language.js';

export class RemindersRequestDto {
  /** The half-year whose filing is due (ended: else 422 `period_not_ended`). */
  @ApiProperty({ pattern: PERIOD_PATTERN_TEXT, example: '2025-S2' })
  @IsDefined()
  @IsString()
  @Matches(PERIOD_PATTERN, { message: '$property must be a half-year written YYYY-S1 or YYYY-S2' })
  period!: string;

  /** `true`: remind again the clients already reminded of this half-year (the operator insists). */
  @ApiPropertyOptional({ type: Boolean, default: false, example: false })
  @IsOptional()
  @ValidateBy({
    name: 'invalidBoolean',
    validator: { validate: (value: unknown) => typeof value === 'boolean', defaultMessage: () => 'force must be true or false' },
  })
  force?: boolean;
}

class StreamNameDto {
  @ApiProperty({ example: 'Emballages ménagers' })
  fr!: string;

  @ApiProperty({ example: 'Household packaging' })
  en!: string;
}

export class MissingStreamDto {
  @ApiProperty({ example: 'EMB' })
  stream!: string;

  @ApiProperty({ type: StreamNameDto })
  name!: StreamNameDto;

  /** The half-year's filing deadline for the stream (the producer's first published one); null when none is published. */
  @ApiProperty({ type: String, format: 'date', nullable: true, example: '2026-02-28' })
  due_date!: string | null;
}

export class ReminderDto {
  @ApiProperty({ example: 'exemple-sas' })
  client_id!: string;

  /** The confirmed company. */
  @ApiProperty({ example: 'Exemple SAS' })
  company!: string;

  /** Where the e-mail goes: the confirmed address. */
  @ApiProperty({ example: 'compliance@exemple.fr' })
  email!: string;

  /** The language of the e-mail: the client's. */
  @ApiProperty({ enum: LANGUAGES })
  language!: Language;

  /** The streams the client is liable for in the half-year and has not declared in its current revision. */
  @ApiProperty({ type: [MissingStreamDto] })
  missing!: MissingStreamDto[];

  /** When the client was last reminded of this half-year; null if never. */
  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  last_reminded_at!: Date | null;

  /**
   * Dry run: `would_send`, or `already_reminded` (not sent again without `force`). Applied: `queued` (recorded, its e-mail in
   * the mail outbox, sent in the background: see `GET /admin/clients/{client_id}/messages`) or `already_reminded`.
   */
  @ApiProperty({ enum: ['would_send', 'already_reminded', 'queued'] })
  outcome!: Reminder['outcome'];

  static from(reminder: Reminder): ReminderDto {
    return Object.assign(new ReminderDto(), {
      client_id: reminder.clientId,
      company: reminder.company,
      email: reminder.email,
      language: reminder.language,
      missing: reminder.missing.map((m) => ({ stream: m.stream, name: { fr: m.name.fr, en: m.name.en }, due_date: m.due })),
      last_reminded_at: reminder.lastRemindedAt,
      outcome: reminder.outcome,
    });
  }
}

@ApiSchema({ description: 'Who gets (or would get) a reminder for the half-year, by client id.' })
export class RemindersDto {
  @ApiProperty({ example: '2025-S2' })
  period!: string;

  /** True: nothing was sent or recorded. */
  @ApiProperty()
  dry_run!: boolean;

  /** How many e-mails were queued for sending (0 on a dry run). */
  @ApiProperty({ example: 0 })
  queued!: number;

  @ApiProperty({ type: [ReminderDto] })
  reminders!: ReminderDto[];
}
