import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { IsOptional, IsString, Length } from 'class-validator';
import { MatchesPattern } from '../../common/paging/query-validators.js';
import { NotBlank } from '../../common/validation.js';
import { PublishedSpelling } from '../../common/spelling.js';
import { publishedNames } from '../../reference/published-names.js';
import type { StreamSettingView } from '../client-streams.service.js';

@ApiSchema({ description: 'What the operator sets for one stream of a client; an absent or null field is cleared.' })
export class StreamSettingInputDto {
  /** One of the eco-organisms `/api/v1/streams.json` lists for the stream (by `name`, in any case, with or without accents: stored as published), approved in the half-year from which the client declares. */
  @ApiPropertyOptional({ type: String, nullable: true, minLength: 1, maxLength: 100, example: 'Citeo' })
  @IsOptional()
  @PublishedSpelling(publishedNames.ecoOrganisms)
  @IsString()
  @NotBlank()
  @Length(1, 100)
  eco_organism?: string | null;

  /** The half-year from which the client declares the stream; null: the half-year of its first confirmation. */
  @ApiPropertyOptional({ type: String, nullable: true, pattern: '^[0-9]{4}-S[12]$', example: '2025-S1' })
  @IsOptional()
  @MatchesPattern('invalidPeriodFormat', /^[0-9]{4}-S[12]$/, 'must be a half-year such as 2025-S1')
  liable_from?: string | null;
}

@ApiSchema({
  description: 'One stream of a client, with the eco-organism its declarations go to and the half-year from which it declares.',
})
export class StreamSettingDto {
  @ApiProperty({ example: 'EMB' })
  stream!: string;

  /** In the confirmed profile (false: only in the pending one). */
  @ApiProperty()
  confirmed!: boolean;

  @ApiProperty({ type: String, nullable: true, example: 'Citeo' })
  eco_organism!: string | null;

  /** As the operator set it; null when it follows the first confirmation. */
  @ApiProperty({ type: String, nullable: true, example: null })
  liable_from_set!: string | null;

  /** The half-year from which the client declares the stream (set, else the half-year of its first confirmation); null while never confirmed. */
  @ApiProperty({ type: String, nullable: true, example: '2026-S2' })
  liable_from!: string | null;

  static from(view: StreamSettingView): StreamSettingDto {
    return {
      stream: view.stream,
      confirmed: view.confirmed,
      eco_organism: view.ecoOrganism,
      liable_from_set: view.liableFromSet,
      liable_from: view.liableFrom,
    };
  }
}

export class StreamSettingListDto {
  @ApiProperty({ type: [StreamSettingDto] })
  data!: StreamSettingDto[];
}
