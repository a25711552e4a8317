import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { MAX_IDUS } from '../profile.js';
import { NotBlank } from '../../common/validation.js';
import { CONTROL, IsCountryCode, IsLanguageCode, IsServiceEmail, NoControlCharacters, normaliseEmail } from './validators.js';

/** Operator-chosen client ids: lower case, URL-safe, 3 to 63 characters. */
export const CLIENT_ID_PATTERN = /^[a-z0-9][a-z0-9_-]{2,62}$/;
export const MAX_STREAMS = 20;

const trim = ({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value);
/** Trimmed, unless it holds a control character (CR, LF, VT, NEL, a tab…): left whole for `NoControlCharacters` to refuse. */
const trimText = ({ value }: { value: unknown }) => (typeof value === 'string' && !CONTROL.test(value) ? value.trim() : value);

/**
 * Profile fields as the operator sends them. Each is optional; on PATCH (JSON merge patch) an
 * absent field is left unchanged and `null` clears it (arrays become empty).
 */
export class ProfileInputDto {
  /**
   * Contact address of the client, stored trimmed, in Unicode NFC, its domain in lower case and an
   * internationalised domain in its ASCII (`xn--`) form. Refused (`email_characters`): a character
   * outside printable ASCII before the @, a domain label mixing scripts (a Cyrillic `е` among Latin
   * letters) or written in Cyrillic or Greek letters that look Latin, full-width or other
   * compatibility characters.
   */
  @ApiPropertyOptional({ type: String, nullable: true, format: 'email', maxLength: 254, example: 'compliance@example.fr' })
  @IsOptional()
  @Transform(normaliseEmail)
  @IsServiceEmail()
  @MaxLength(254)
  email?: string | null;

  /** Legal name of the company, one line (surrounding spaces are trimmed; control characters such as CR, LF, VT, NEL or a tab are refused: `invalid_characters`). */
  @ApiPropertyOptional({ type: String, nullable: true, minLength: 1, maxLength: 200, example: 'Exemple SAS' })
  @IsOptional()
  @Transform(trimText)
  @IsString()
  @NoControlCharacters()
  @NotBlank()
  @MaxLength(200)
  company?: string | null;

  /** ISO 3166-1 alpha-2 country code, upper case. */
  @ApiPropertyOptional({ type: String, nullable: true, pattern: '^[A-Z]{2}$', example: 'FR' })
  @IsOptional()
  @IsCountryCode()
  country?: string | null;

  /** A plan id from `/api/v1/pricing.json`. */
  @ApiPropertyOptional({ type: String, nullable: true, example: 'business' })
  @IsOptional()
  @IsString()
  plan?: string | null;

  /** Stream codes from `/api/v1/streams.json`, no duplicates; confirmation needs at least one, covered by the plan. */
  @ApiPropertyOptional({ type: [String], nullable: true, uniqueItems: true, maxItems: MAX_STREAMS, example: ['EMB'] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MAX_STREAMS)
  @IsString({ each: true })
  streams?: string[] | null;

  /**
   * Unique identification numbers (IDU) of the client, treated as opaque: non-empty, no surrounding
   * white space, at most 64 characters each, no duplicates, at most 50.
   */
  @ApiPropertyOptional({ type: [String], nullable: true, uniqueItems: true, maxItems: MAX_IDUS, example: ['FR000000_01ABCD'] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MAX_IDUS)
  @IsString({ each: true })
  idus?: string[] | null;

  /**
   * The language the service writes to the client in (its e-mails): `fr` (the default) or `en`.
   * Not part of the profile to confirm: it applies at once. `null` sets it back to `fr`.
   */
  @ApiPropertyOptional({ type: String, enum: ['fr', 'en'], nullable: true, example: 'fr' })
  @IsOptional()
  @IsLanguageCode()
  language?: 'fr' | 'en' | null;
}

export class CreateClientDto extends ProfileInputDto {
  /** Chosen id (lower-case letters, digits, `_`, `-`; 3–63 characters); generated when absent. */
  @ApiPropertyOptional({ type: String, pattern: CLIENT_ID_PATTERN.source, example: 'exemple-sas' })
  @IsOptional()
  @IsString()
  @Matches(CLIENT_ID_PATTERN, {
    message: '$property must be 3 to 63 characters: lower-case letters, digits, "_" or "-", starting with a letter or digit',
  })
  client_id?: string | null;
}

/** JSON merge patch of the pending profile (`application/merge-patch+json` or `application/json`). */
export class UpdateClientDto extends ProfileInputDto {}

/** Why the operator changes a client's access (optional; recorded in the audit trail). */
export class StatusChangeDto {
  @ApiPropertyOptional({ minLength: 1, maxLength: 500, example: 'Unpaid invoice 2026-114' })
  @IsOptional()
  @Transform(trim)
  @IsString()
  @NotBlank()
  @MaxLength(500)
  reason?: string;
}
