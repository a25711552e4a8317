import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, ValidateBy } from 'class-validator';
import { MAX_SIGN_IN_LINK_TTL_MS } from '../sign-in-links.service.js';

export class SignInLinkDto {
  @ApiProperty({ format: 'uuid' })
  id!: string;

  /** The link to give the client's person: it works once, until `expires_at`. Shown this once. */
  @ApiProperty({ example: 'https://epr.example.org/dashboard/sign-in/link?token=eprl_7Gx2kQpXXXXXXXXXXXXXXXXXXXXXXXXX_0a1B2c' })
  url!: string;

  @ApiProperty({ type: String, format: 'date-time' })
  expires_at!: Date;

  /** The confirmed address the link is e-mailed to (with `send: true`); absent otherwise. */
  @ApiPropertyOptional({ type: String, example: 'compliance@example.fr' })
  sent_to?: string;

  /** With `send: true`: the e-mail in the outbox, sent after this answer; its delivery is listed at `GET /admin/clients/{client_id}/messages`. */
  @ApiPropertyOptional({ type: String, format: 'uuid' })
  message_id?: string;
}

const MAX_MINUTES = MAX_SIGN_IN_LINK_TTL_MS / 60_000;

/** What the operator may ask of a new link (no body: a 7-day link, not sent). */
export class CreateSignInLinkDto {
  /** How long the link works, in minutes: 1 to 10,080; 10,080 (7 days) when absent. Still single use. */
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: MAX_MINUTES, example: 60 })
  @IsOptional()
  @ValidateBy({
    name: 'linkLifetimeOutOfRange',
    validator: {
      validate: (value: unknown) => Number.isInteger(value) && (value as number) >= 1 && (value as number) <= MAX_MINUTES,
      defaultMessage: () => `expires_in_minutes must be a whole number from 1 to ${MAX_MINUTES}`,
    },
  })
  expires_in_minutes?: number;

  /** `true`: the service e-mails the link to the client's confirmed address, in the client's language (needs SMTP_URL). */
  @ApiPropertyOptional({ type: Boolean, example: false })
  @IsOptional()
  @ValidateBy({
    name: 'invalidBoolean',
    validator: { validate: (value: unknown) => typeof value === 'boolean', defaultMessage: () => 'send must be true or false' },
  })
  send?: boolean;
}

export class OutstandingSignInLinkDto {
  @ApiProperty({ format: 'uuid' })
  id!: string;

  /** `operator` (this API) or `email` (asked for on the sign-in page). */
  @ApiProperty({ enum: ['operator', 'email'] })
  issued_via!: 'operator' | 'email';

  @ApiProperty({ type: String, format: 'date-time' })
  created_at!: Date;

  @ApiProperty({ type: String, format: 'date-time' })
  expires_at!: Date;
}
