import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsOptional, IsString, ValidateBy } from 'class-validator';
import { PERIOD_PATTERN } from '../period.js';

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

const IsPageSize = () =>
  ValidateBy({
    name: 'limitOutOfRange',
    validator: {
      validate: (value: unknown) => Number.isInteger(value) && (value as number) >= 1 && (value as number) <= MAX_PAGE_SIZE,
      defaultMessage: () => `limit must be a whole number from 1 to ${MAX_PAGE_SIZE}`,
    },
  });

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

export class ListDeclarationsQueryDto {
  /** Page size, 1 to 100. */
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE })
  @IsOptional()
  // Query values are text: only plain digits become a number, anything else stays and is refused.
  @Transform(({ value }) => (typeof value === 'string' && /^[0-9]{1,9}$/.test(value) ? Number(value) : value))
  @IsPageSize()
  limit?: number;

  /**
   * `next_cursor` of the previous page, unchanged, with the same `period` and `status`
   * (a cursor used with other filters, or altered, is refused with 400 `invalid_cursor`).
   */
  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  cursor?: string;

  /** Only this half-year's revisions, e.g. `2025-S1`. */
  // No example: Swagger UI would send it as a filter the user did not ask for.
  @ApiPropertyOptional({ pattern: '^[0-9]{4}-S[12]$' })
  @IsOptional()
  @IsPeriod()
  period?: string;

  /** `current`: the revision in force for each period; `superseded`: replaced ones. Default: every revision. */
  @ApiPropertyOptional({ enum: ['current', 'superseded'] })
  @IsOptional()
  @IsStatusFilter()
  status?: 'current' | 'superseded';
}
