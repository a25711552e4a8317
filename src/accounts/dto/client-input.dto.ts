import { ApiExtraModels, ApiProperty, ApiPropertyOptional, ApiSchema, getSchemaPath, OmitType } from '@nestjs/swagger';
import { plainToInstance, Transform } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsOptional, IsString, Length, Matches, MaxLength, ValidateBy, ValidateNested } from 'class-validator';
import { MAX_IDUS } from '../profile.js';
import type { CreateClientInput } from '../account.js';
import { NotBlank } from '../../common/validation.js';
import { PublishedSpelling } from '../../common/spelling.js';
import { MatchesPattern } from '../../common/paging/query-validators.js';
import { LANGUAGES, type Language } from '../../i18n/language.js';
import { publishedNames } from '../../reference/published-names.js';
import { CLIENT_ID_PATTERN } from '../account.js';
import { CONTROL, IsCountryCode, IsLanguageCode, IsServiceEmail, NoControlCharacters, normaliseEmail } from './validators.js';

export { CLIENT_ID_PATTERN };
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

  /** A plan id from `/api/v1/pricing.json` (in any case: `Starter` is `starter`). */
  @ApiPropertyOptional({ type: String, nullable: true, example: 'business' })
  @IsOptional()
  @PublishedSpelling(publishedNames.plans)
  @IsString()
  plan?: string | null;

  /** Stream codes from `/api/v1/streams.json` (in any case), no duplicates; confirmation needs at least one, covered by the plan. */
  @ApiPropertyOptional({ type: [String], nullable: true, uniqueItems: true, maxItems: MAX_STREAMS, example: ['EMB'] })
  @IsOptional()
  @PublishedSpelling(publishedNames.streams)
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
   * The language the service writes to the client in (its e-mails): `fr` (the default) or `en` (in any case).
   * Not part of the profile to confirm: it applies at once. `null` sets it back to `fr`.
   */
  @ApiPropertyOptional({ type: String, enum: LANGUAGES, nullable: true, example: 'fr' })
  @IsOptional()
  @PublishedSpelling(() => LANGUAGES)
  @IsLanguageCode()
  language?: Language | null;
}

/** The fields of a new client: a row of the bulk import, and (streams aside) the body of `POST /admin/clients`. */
export class ClientInputDto extends ProfileInputDto {
  /** Chosen id (lower-case letters, digits, `_`, `-`; 3–63 characters); generated when absent. */
  @ApiPropertyOptional({ type: String, pattern: CLIENT_ID_PATTERN.source, example: 'exemple-sas' })
  @IsOptional()
  @IsString()
  @Matches(CLIENT_ID_PATTERN, {
    message: '$property must be 3 to 63 characters: lower-case letters, digits, "_" or "-", starting with a letter or digit',
  })
  client_id?: string | null;
}

const HALF_YEAR = /^[0-9]{4}-S[12]$/;

@ApiSchema({
  description: 'A stream of a new client, with the eco-organism its declarations go to and the half-year from which it declares.',
})
export class ClientStreamInputDto {
  /** A stream code of `/api/v1/streams.json` (any case: `emb` is `EMB`). */
  @ApiProperty({ type: String, example: 'EMB' })
  @PublishedSpelling(publishedNames.streams)
  @IsString()
  stream!: string;

  /**
   * One of the eco-organisms `/api/v1/streams.json` lists for the stream, by its `name`, written in any case, with or
   * without accents (`citeo`, `LEKO`, `léko`: answered as published), approved in the half-year from which the client declares.
   */
  @ApiPropertyOptional({ type: String, nullable: true, minLength: 1, maxLength: 100, example: 'Citeo' })
  @IsOptional()
  @PublishedSpelling(publishedNames.ecoOrganisms)
  @IsString()
  @NotBlank()
  @Length(1, 100)
  eco_organism?: string | null;

  /** The half-year from which the client declares the stream (e.g. the one just ended); absent: the half-year of its first confirmation. */
  @ApiPropertyOptional({ type: String, nullable: true, pattern: HALF_YEAR.source, example: '2026-S1' })
  @IsOptional()
  @MatchesPattern('invalidPeriodFormat', HALF_YEAR, 'must be a half-year such as 2026-S1')
  liable_from?: string | null;
}

/** `"EMB"` is `{"stream": "EMB"}`; an object becomes a ClientStreamInputDto; anything else is left for the validators to refuse. */
const streamInputs = ({ value }: { value: unknown }) =>
  Array.isArray(value)
    ? value.map((item: unknown) =>
        typeof item === 'string'
          ? plainToInstance(ClientStreamInputDto, { stream: item })
          : item !== null && typeof item === 'object' && !Array.isArray(item)
            ? plainToInstance(ClientStreamInputDto, item)
            : item,
      )
    : value;

const IsBooleanValue = (property: string) =>
  ValidateBy({
    name: 'invalidBoolean',
    validator: { validate: (value: unknown) => typeof value === 'boolean', defaultMessage: () => `${property} must be true or false` },
  });

/** The body of `POST /admin/clients`: the client's fields, its streams with their eco-organism and liability, and whether to confirm and invite it at once. */
@ApiExtraModels(ClientStreamInputDto)
export class CreateClientDto extends OmitType(ClientInputDto, ['streams'] as const) {
  /**
   * The client's streams, no duplicates (confirmation needs at least one, covered by the plan): each a stream code (`"EMB"`)
   * or an object with the eco-organism its declarations go to and the half-year from which it declares
   * (what `PUT /admin/clients/{client_id}/streams/{stream}` sets later).
   */
  @ApiPropertyOptional({
    type: 'array',
    nullable: true,
    maxItems: MAX_STREAMS,
    items: { oneOf: [{ type: 'string', example: 'EMB' }, { $ref: getSchemaPath(ClientStreamInputDto) }] },
    example: [{ stream: 'EMB', eco_organism: 'Citeo', liable_from: '2026-S1' }],
  })
  @IsOptional()
  @Transform(streamInputs)
  @IsArray()
  @ArrayMaxSize(MAX_STREAMS)
  @ValidateNested({ each: true })
  streams?: ClientStreamInputDto[] | null;

  /** `true`: confirm the profile at once (as `POST /admin/clients/{client_id}/confirm`); it must then be complete. */
  @ApiPropertyOptional({ type: Boolean, example: true })
  @IsOptional()
  @IsBooleanValue('confirm')
  confirm?: boolean;

  /**
   * `true`: e-mail the client a sign-in link to its dashboard, lasting 7 days, in its `language`, to its confirmed
   * address (so with `confirm: true`); needs the service's SMTP_URL (else 409, and nothing is created).
   */
  @ApiPropertyOptional({ type: Boolean, example: true })
  @IsOptional()
  @IsBooleanValue('invite')
  invite?: boolean;
}

/** What `POST /admin/clients` (and the console's invitation form) asks of the accounts service. */
export function createClientInput(body: CreateClientDto): CreateClientInput {
  const { client_id, streams, confirm, invite, ...profile } = body;
  return {
    clientId: client_id,
    ...profile,
    ...(streams === undefined ? {} : { streams: streams && streams.map((s) => s.stream) }),
    streamSettings: (streams ?? []).map((s) => ({
      stream: s.stream,
      ecoOrganism: s.eco_organism ?? null,
      liableFrom: s.liable_from ?? null,
    })),
    confirm: confirm === true,
    invite: invite === true,
  };
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
