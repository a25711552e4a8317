import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional } from 'class-validator';
import { IsRfc3339, MatchesPattern } from '../../common/paging/query-validators.js';
import { PageQueryDto } from '../../common/paging/page-query.dto.js';
import { PERIOD_PATTERN, PERIOD_PATTERN_TEXT } from '../../calendar/half-year.js';
import type { AdminDeclarationsQuery } from '../declaration.js';

export class ListAdminDeclarationsQueryDto extends PageQueryDto {
  /** Only this half-year, e.g. `2025-S1`. */
  @ApiPropertyOptional({ pattern: PERIOD_PATTERN_TEXT })
  @IsOptional()
  @MatchesPattern('invalidPeriodFormat', PERIOD_PATTERN, 'must be a half-year written YYYY-S1 or YYYY-S2')
  period?: string;

  /** Only this client's declarations. */
  @ApiPropertyOptional({ pattern: '^[a-z0-9][a-z0-9_-]{2,62}$' })
  @IsOptional()
  @MatchesPattern('invalidClientId', /^[a-z0-9][a-z0-9_-]{2,62}$/, 'must be a client id')
  client_id?: string;

  /** Only declarations with at least one line of this stream. */
  @ApiPropertyOptional({ pattern: '^[A-Za-z0-9_-]{1,64}$' })
  @IsOptional()
  @MatchesPattern('invalidStream', /^[A-Za-z0-9_-]{1,64}$/, 'must be a stream code')
  stream?: string;

  /** `current`: the revisions in force; `superseded`: replaced ones. Default: every revision. */
  @ApiPropertyOptional({ enum: ['current', 'superseded'] })
  @IsOptional()
  @MatchesPattern('invalidStatus', /^(current|superseded)$/, 'must be "current" or "superseded"')
  status?: 'current' | 'superseded';

  /** Submitted at or after this instant (RFC 3339). */
  @ApiPropertyOptional({ format: 'date-time' })
  @IsOptional()
  @IsRfc3339()
  submitted_from?: string;

  /** Submitted before this instant (RFC 3339). */
  @ApiPropertyOptional({ format: 'date-time' })
  @IsOptional()
  @IsRfc3339()
  submitted_to?: string;

  static toQuery(q: ListAdminDeclarationsQueryDto): AdminDeclarationsQuery {
    return {
      period: q.period,
      clientId: q.client_id,
      stream: q.stream,
      status: q.status,
      submittedFrom: q.submitted_from,
      submittedTo: q.submitted_to,
      cursor: q.cursor,
      limit: q.limit,
    };
  }
}
