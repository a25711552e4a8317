import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsOptional, IsString, ValidateBy } from 'class-validator';

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

/** `limit` and `cursor` of the admin listings (cursor pagination, newest first). */
export class PageQueryDto {
  /** Page size, 1 to 100. */
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE })
  @IsOptional()
  // Query values are text: only plain digits become a number, anything else stays and is refused.
  @Transform(({ value }) => (typeof value === 'string' && /^[0-9]{1,9}$/.test(value) ? Number(value) : value))
  @IsPageSize()
  limit?: number;

  /** `next_cursor` of the previous page, unchanged, with the same filters (else 400 `invalid_cursor`). */
  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  cursor?: string;
}
