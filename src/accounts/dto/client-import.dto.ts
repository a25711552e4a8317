import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional } from 'class-validator';
import { MatchesPattern } from '../../common/paging/query-validators.js';
import type { ImportedClient } from '../accounts.service.js';
import { ProfileDto } from './client.dto.js';
import { type Language, LANGUAGES } from '../../i18n/language.js';

/** `?dry_run=false` applies; anything else (or nothing) only checks. */
export class DryRunQueryDto {
  /** `true` (the default): check and answer what would happen, changing nothing; `false`: do it. */
  @ApiPropertyOptional({ enum: ['true', 'false'], default: 'true' })
  @IsOptional()
  @MatchesPattern('invalidBoolean', /^(true|false)$/, 'must be true or false')
  dry_run?: 'true' | 'false';
}

export class ImportedClientDto {
  /** The row of the file (header = 1). */
  @ApiProperty({ example: 2 })
  row!: number;

  /** The client id: as the file gives it, else generated when applied (null in a dry run). */
  @ApiProperty({ type: String, nullable: true, example: 'exemple-sas' })
  client_id!: string | null;

  /** The profile created pending (the operator confirms each client afterwards, as after `POST /admin/clients`). */
  @ApiProperty({ type: ProfileDto })
  pending!: ProfileDto;

  @ApiProperty({ enum: LANGUAGES, example: 'fr' })
  language!: Language;

  static from(client: ImportedClient): ImportedClientDto {
    return Object.assign(new ImportedClientDto(), {
      row: client.row,
      client_id: client.clientId,
      pending: ProfileDto.from(client.pending),
      language: client.language,
    });
  }
}

export class ClientImportDto {
  /** True: nothing was created, this is what applying the same file would create. */
  @ApiProperty()
  dry_run!: boolean;

  /** How many clients were (or would be) created: every row of the file. */
  @ApiProperty({ example: 2 })
  count!: number;

  @ApiProperty({ type: [ImportedClientDto] })
  clients!: ImportedClientDto[];
}
