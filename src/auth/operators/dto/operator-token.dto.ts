import { ApiProperty, ApiPropertyOptional, PickType } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsOptional, IsString, MaxLength } from 'class-validator';
import { NotBlank } from '../../../common/validation.js';
import { IsServiceEmail, normaliseEmail } from '../../../accounts/dto/validators.js';
import type { OperatorTokenMetadata } from '../operators.service.js';

export class CreateOperatorTokenDto {
  /** Who will use the token (a person or a tool): the audit trail names it. */
  @ApiProperty({ minLength: 1, maxLength: 100, example: 'Camille (onboarding)' })
  @Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value))
  @IsString()
  @NotBlank()
  @MaxLength(100)
  name!: string;

  /**
   * The operator's e-mail address: with it, the operator signs in to the console (`/operator`) by a
   * single-use link mailed there. One live operator per address. Without it, the token works on the admin API only.
   */
  @ApiPropertyOptional({ type: String, maxLength: 254, example: 'camille@operateur.example', nullable: true })
  @IsOptional()
  @Transform(normaliseEmail)
  @IsServiceEmail()
  email?: string | null;
}

/** An operator token's metadata; the secret is never shown again after creation. */
export class OperatorTokenDto {
  @ApiProperty({ format: 'uuid' })
  id!: string;

  @ApiProperty({ example: 'Camille (onboarding)' })
  name!: string;

  /** Where its console sign-in links are mailed; null: the admin API only. */
  @ApiProperty({ type: String, nullable: true, example: 'camille@operateur.example' })
  email!: string | null;

  /** The first characters of the token, to recognise it. */
  @ApiProperty({ example: 'eprop_7Gx2kQp' })
  prefix!: string;

  @ApiProperty({ type: String, format: 'date-time' })
  created_at!: Date;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  revoked_at!: Date | null;

  static from(t: OperatorTokenMetadata): OperatorTokenDto {
    return Object.assign(new OperatorTokenDto(), {
      id: t.id,
      name: t.name,
      email: t.email,
      prefix: t.prefix,
      created_at: t.createdAt,
      revoked_at: t.revokedAt,
    });
  }
}

/** The response to creating an operator token: the only time the token itself is shown. */
export class CreatedOperatorTokenDto extends PickType(OperatorTokenDto, ['id', 'name', 'email', 'prefix', 'created_at'] as const) {
  /** The bearer token for the admin API. Store it now: it is never shown again (only its SHA-256 is kept). */
  @ApiProperty({ example: 'eprop_7Gx2kQpXXXXXXXXXXXXXXXXXXXXXXXXX_0a1B2c' })
  token!: string;

  static fromCreated(created: { token: string; metadata: OperatorTokenMetadata }): CreatedOperatorTokenDto {
    const { id, name, email, prefix, created_at } = OperatorTokenDto.from(created.metadata);
    return Object.assign(new CreatedOperatorTokenDto(), { token: created.token, id, name, email, prefix, created_at });
  }
}
