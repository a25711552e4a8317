import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, Length } from 'class-validator';
import { MatchesPattern } from '../../common/paging/query-validators.js';
import { PageQueryDto } from '../../common/paging/page-query.dto.js';
import { NotBlank } from '../../common/validation.js';
import { PublishedSpelling } from '../../common/spelling.js';
import { publishedNames } from '../../reference/published-names.js';

export class ListClientsQueryDto extends PageQueryDto {
  /** Text in the company name or the e-mail address (pending or confirmed), ignoring case. */
  @ApiPropertyOptional({ minLength: 1, maxLength: 200 })
  @IsOptional()
  @IsString()
  @NotBlank()
  @Length(1, 200)
  q?: string;

  /** `true`: clients whose onboarding was confirmed; `false`: not yet. */
  @ApiPropertyOptional({ enum: ['true', 'false'] })
  @IsOptional()
  @MatchesPattern('invalidBoolean', /^(true|false)$/, 'must be true or false')
  confirmed?: 'true' | 'false';

  /** A plan id, in the pending or the confirmed profile (any case). */
  @ApiPropertyOptional({ pattern: '^[A-Za-z0-9_-]{1,64}$' })
  @IsOptional()
  @PublishedSpelling(publishedNames.plans)
  @MatchesPattern('invalidPlan', /^[A-Za-z0-9_-]{1,64}$/, 'must be a plan id')
  plan?: string;

  /** A stream code, in the pending or the confirmed profile (any case). */
  @ApiPropertyOptional({ pattern: '^[A-Za-z0-9_-]{1,64}$' })
  @IsOptional()
  @PublishedSpelling(publishedNames.streams)
  @MatchesPattern('invalidStream', /^[A-Za-z0-9_-]{1,64}$/, 'must be a stream code')
  stream?: string;

  /** An eco-organism set for one of the client's streams (`PUT /admin/clients/{id}/streams/{stream}`), by its published name (any case, with or without accents). */
  @ApiPropertyOptional({ minLength: 1, maxLength: 100 })
  @IsOptional()
  @PublishedSpelling(publishedNames.ecoOrganisms)
  @IsString()
  @NotBlank()
  @Length(1, 100)
  eco_organism?: string;

  /** `active`, `suspended` or `offboarded`. */
  @ApiPropertyOptional({ enum: ['active', 'suspended', 'offboarded'] })
  @IsOptional()
  @MatchesPattern('invalidClientStatus', /^(active|suspended|offboarded)$/, 'must be active, suspended or offboarded')
  status?: 'active' | 'suspended' | 'offboarded';
}
