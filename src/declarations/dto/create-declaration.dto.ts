import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { PERIOD_PATTERN_TEXT } from '../../calendar/half-year.js';
import { MAX_LINES, MAX_MATERIAL_LENGTH, MAX_QUANTITY, MAX_UNITS_SOLD, MIN_LINES } from '../declaration-validator.js';

@ApiSchema({ description: 'One line of a declaration. Unknown fields are refused (`unknown_field`).' })
export class CreateDeclarationLineDto {
  /**
   * A stream code from the published streams data (`/api/v1/streams.json`) that your account is
   * registered for (`GET /api/v1/me`). `unknown_stream` / `stream_not_registered` /
   * `stream_not_declarable_for_period` (the period ends before the stream's `declarable_from`).
   */
  @ApiProperty({ example: 'EMB' })
  stream!: string;

  /**
   * Free text, trimmed, 1–120 characters, no control characters, invisible format characters (U+200B, U+202E…) or line separators (`invalid_material`). Where it
   * names one of the stream's published material categories (by code, French or English name,
   * ignoring case), the record shows that category in `material_category`.
   */
  @ApiProperty({ example: 'glass', minLength: 1, maxLength: MAX_MATERIAL_LENGTH })
  material!: string;

  /** One of the units the streams data allows for the stream (`kg` for packaging); else `unit_not_allowed`. */
  @ApiProperty({ example: 'kg' })
  unit!: string;

  /**
   * A JSON number (a numeric string is refused: `quantity_not_a_number`), 0 to 10^12
   * (`quantity_negative`, `quantity_too_large`), with at most 3 decimals for `kg` and none for
   * count units (`quantity_too_precise`). Stored exactly, as a decimal.
   */
  @ApiProperty({ type: Number, example: 1200.5, minimum: 0, maximum: MAX_QUANTITY })
  quantity!: number;
}

@ApiSchema({
  description:
    'The consumer sales units (UVC) of one stream placed on the market in the half-year: every unit once, whatever its materials. A `uvc` line counts the units whose packaging contains its material, so the units sold are not the sum of those lines (a jar of glass with a steel lid is on both). Unknown fields are refused (`unknown_field`).',
})
export class CreateUnitsSoldDto {
  /**
   * A stream of the declaration's lines (`units_sold_without_lines`) that counts sales units (`units_sold_not_counted`
   * for a stream declared in kg only), stated once (`duplicate_units_sold`); the stream rules of a line apply.
   */
  @ApiProperty({ example: 'EMB' })
  stream!: string;

  /**
   * A JSON number, a whole number from 0 to 10^12 (`quantity_not_a_number`, `quantity_too_precise`, `quantity_negative`,
   * `quantity_too_large`), at least each of the stream's `uvc` lines (`units_sold_below_material_count`: the units whose
   * packaging contains a material are part of the units sold).
   */
  @ApiProperty({ type: 'integer', example: 90000, minimum: 0, maximum: MAX_QUANTITY })
  quantity!: number;
}

@ApiSchema({
  description:
    'The quantities of packaging placed on the market in one half-year. Every problem is reported at once in a 422 with a JSON pointer and a stable `code` each; nothing is stored then. ' +
    'One line per (stream, unit, material), the material compared trimmed, NFKC-normalised and case-folded (`duplicate_line`, reported once per group, at its first line). Unknown fields anywhere are refused (`unknown_field`).',
})
export class CreateDeclarationDto {
  /**
   * The half-year: `YYYY-S1` (1 January–30 June) or `YYYY-S2` (1 July–31 December)
   * (`invalid_period_format`). Refused before it starts, judged on the date in France
   * (`period_not_started`, the detail says when it opens), and before 2022, the year of the
   * earliest `declarable_from` in the streams data (`period_too_early`).
   */
  @ApiProperty({ example: '2025-S1', pattern: PERIOD_PATTERN_TEXT })
  period!: string;

  /**
   * 1 to 1000 lines (`too_few_lines`, `too_many_lines`; past 1000 only the first 1000 are checked).
   * A body over 1 MiB is refused with 413.
   */
  @ApiProperty({ type: [CreateDeclarationLineDto], minItems: MIN_LINES, maxItems: MAX_LINES })
  lines!: CreateDeclarationLineDto[];

  /**
   * Optional: the consumer sales units placed on the market in the half-year, once per stream that counts them
   * (household packaging, `EMB`). What decides the filing tier (`GET /api/v1/me/years/{year}`); without it only the
   * per-material counts are known, and the tier is a range. Part of what makes two submissions identical.
   * Absent and `[]` are the same. At most 20 entries (`too_many_units_sold`).
   */
  @ApiProperty({ type: [CreateUnitsSoldDto], required: false, maxItems: MAX_UNITS_SOLD })
  units_sold?: CreateUnitsSoldDto[];
}
