import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, ValidateBy } from 'class-validator';
import { PageQueryDto } from '../../common/paging/page-query.dto.js';
import { PERIOD_PATTERN, PERIOD_PATTERN_TEXT } from '../../calendar/half-year.js';

const IsPeriod = () =>
  ValidateBy({
    name: 'invalidPeriodFormat',
    validator: {
      validate: (value: unknown) => typeof value === 'string' && PERIOD_PATTERN.test(value),
      defaultMessage: () => 'period must be a half-year written YYYY-S1 or YYYY-S2',
    },
  });

const IsStatusFilter = () =>
  ValidateBy({
    name: 'invalidStatus',
    validator: {
      validate: (value: unknown) => value === 'current' || value === 'superseded',
      defaultMessage: () => 'status must be "current" or "superseded"',
    },
  });

/** The client's list: `limit` and `cursor` (a cursor is bound to the `period` and `status` it was issued with), and the filters. */
export class ListDeclarationsQueryDto extends PageQueryDto {
  /** Only this half-year's revisions, e.g. `2025-S1`. */
  // No example: Swagger UI would send it as a filter the user did not ask for.
  @ApiPropertyOptional({ pattern: PERIOD_PATTERN_TEXT })
  @IsOptional()
  @IsPeriod()
  period?: string;

  /** `current`: the revision in force for each period; `superseded`: replaced ones. Default: every revision. */
  @ApiPropertyOptional({ enum: ['current', 'superseded'] })
  @IsOptional()
  @IsStatusFilter()
  status?: 'current' | 'superseded';
}
