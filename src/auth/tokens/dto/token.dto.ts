import { ApiProperty, ApiPropertyOptional, PickType } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsOptional, IsString, MaxLength, ValidateBy, type ValidationOptions, isISO8601 } from 'class-validator';
import { MatchesPattern } from '../../../common/paging/query-validators.js';
import { NotBlank } from '../../../common/validation.js';
import { TOKEN_MODES, type TokenMode } from '../../../common/token-format.js';
import type { IssuedToken, TokenMetadata } from '../client-tokens.service.js';

/** The longest lifetime a token may be given. */
export const MAX_TOKEN_LIFETIME_YEARS = 2;

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})$/;
const isDateTime = (value: unknown): value is string =>
  typeof value === 'string' && RFC3339.test(value) && isISO8601(value, { strict: true, strictSeparator: true });

export function latestExpiry(now = new Date()): Date {
  const limit = new Date(now);
  limit.setUTCFullYear(limit.getUTCFullYear() + MAX_TOKEN_LIFETIME_YEARS);
  return limit;
}

const IsDateTime = (options?: ValidationOptions) =>
  ValidateBy(
    {
      name: 'isDateTime',
      validator: {
        validate: isDateTime,
        defaultMessage: () => '$property must be an RFC 3339 date-time with a time zone, e.g. 2027-01-31T00:00:00Z',
      },
    },
    options,
  );

/** In the future and at most two years ahead (checked only once the value is a date-time). */
const IsWithinTokenLifetime = (options?: ValidationOptions) =>
  ValidateBy(
    {
      name: 'expiryOutOfRange',
      validator: {
        validate: (value: unknown) => {
          if (!isDateTime(value)) return true;
          const at = Date.parse(value);
          return at > Date.now() && at <= latestExpiry().getTime();
        },
        defaultMessage: () => `$property must be in the future and at most ${MAX_TOKEN_LIFETIME_YEARS} years ahead`,
      },
    },
    options,
  );

export class IssueTokenDto {
  /** A label to recognise the token by (e.g. the system that uses it). */
  @ApiPropertyOptional({ type: String, nullable: true, minLength: 1, maxLength: 100, example: 'ERP production' })
  @IsOptional()
  @Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value))
  @IsString()
  @NotBlank()
  @MaxLength(100)
  name?: string | null;

  /** When the token stops working: an RFC 3339 date-time in the future, at most 2 years ahead. Without it the token does not expire. */
  // The example is null (no expiry), so that an example taken as is never becomes a date in the past.
  @ApiPropertyOptional({ type: String, format: 'date-time', nullable: true, example: null })
  @IsOptional()
  @IsDateTime()
  @IsWithinTokenLifetime()
  expires_at?: string | null;

  /**
   * `test` for a sandbox token (`eprt_…`): it reaches only the client's test data, which the
   * operator never sees and `DELETE /api/v1/test-data` wipes. Default `live` (`eprc_…`).
   */
  @ApiPropertyOptional({ enum: TOKEN_MODES, example: 'test' })
  @IsOptional()
  @MatchesPattern('invalidMode', /^(live|test)$/, 'must be "live" or "test"')
  mode?: TokenMode;
}

/** A token's metadata; the secret is never shown again after issue. */
export class TokenDto {
  @ApiProperty({ format: 'uuid' })
  id!: string;

  /** The first characters of the token, to recognise it. */
  @ApiProperty({ example: 'eprc_7Gx2kQp' })
  prefix!: string;

  @ApiProperty({ type: String, nullable: true, example: 'ERP production' })
  name!: string | null;

  @ApiProperty({ type: String, format: 'date-time' })
  created_at!: Date;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  expires_at!: Date | null;

  /** Updated at most once a minute. */
  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  last_used_at!: Date | null;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  revoked_at!: Date | null;

  /** Who issued it: `operator` (this API) or `dashboard` (the client's people, signed in to the dashboard). */
  @ApiProperty({ enum: ['operator', 'dashboard'] })
  created_via!: 'operator' | 'dashboard';

  /** `live` (`eprc_…`: the client's real declarations) or `test` (`eprt_…`: its sandbox). */
  @ApiProperty({ enum: TOKEN_MODES, example: 'live' })
  mode!: TokenMode;

  static from(t: TokenMetadata): TokenDto {
    return Object.assign(new TokenDto(), {
      id: t.id,
      prefix: t.prefix,
      name: t.name,
      created_at: t.createdAt,
      expires_at: t.expiresAt,
      last_used_at: t.lastUsedAt,
      revoked_at: t.revokedAt,
      created_via: t.createdVia,
      mode: t.mode,
    });
  }
}

/** The response to issuing a token: the only time the token itself is shown. */
export class IssuedTokenDto extends PickType(TokenDto, ['id', 'prefix', 'name', 'created_at', 'expires_at', 'mode'] as const) {
  /** The bearer token. Store it now: it is never shown again (only its SHA-256 is kept). */
  @ApiProperty({ example: 'eprc_7Gx2kQpXXXXXXXXXXXXXXXXXXXXXXXXX_0a1B2c' })
  token!: string;

  static fromIssued(issued: IssuedToken): IssuedTokenDto {
    const { id, prefix, name, created_at, expires_at, mode } = TokenDto.from(issued.metadata);
    return Object.assign(new IssuedTokenDto(), { token: issued.token, id, prefix, name, created_at, expires_at, mode });
  }
}
