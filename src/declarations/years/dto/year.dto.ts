import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { LocalizedNameDto } from '../../dto/declaration.dto.js';
import { DeclarationReferenceDto, DueDeadlineDto } from '../../obligations/dto/obligations.dto.js';
import { PERIOD_PATTERN_TEXT } from '../../../calendar/half-year.js';
import type { ClientYear } from '../year.js';

const DECIMAL = { pattern: '^[0-9]+(\\.[0-9]{1,3})?$' };

export class YearPeriodDto {
  @ApiProperty({ example: '2026-S1', pattern: PERIOD_PATTERN_TEXT })
  period!: string;

  /** The half-year is over in France. */
  @ApiProperty()
  ended!: boolean;

  @ApiProperty({ enum: ['declared', 'missing'] })
  status!: 'declared' | 'missing';

  @ApiProperty({ type: DeclarationReferenceDto, nullable: true })
  declaration!: DeclarationReferenceDto | null;
}

export class YearLineDto {
  @ApiProperty({ example: 'EMB' })
  stream!: string;

  /** As declared (the first name used in the year when S1 and S2 named the same category differently). */
  @ApiProperty({ example: 'PET' })
  material!: string;

  /** The published material category (streams.json), or null for a material outside the grid. */
  @ApiProperty({ type: String, nullable: true, example: 'pet_bottles' })
  material_code!: string | null;

  @ApiProperty({ example: 'kg' })
  unit!: string;

  @ApiProperty({
    type: String,
    nullable: true,
    example: '800.5',
    ...DECIMAL,
    description: 'Quantity of the S1 current revision; null when S1 has no such line.',
  })
  s1!: string | null;

  @ApiProperty({
    type: String,
    nullable: true,
    example: '723',
    ...DECIMAL,
    description: 'Quantity of the S2 current revision; null when S2 has no such line.',
  })
  s2!: string | null;

  @ApiProperty({ example: '1523.5', ...DECIMAL, description: 'S1 + S2, exact: what the annual declaration carries for this line.' })
  quantity!: string;
}

export class UnitCountDto {
  @ApiProperty({ example: 8400 })
  at_least!: number;

  @ApiProperty({ example: 9100 })
  at_most!: number;

  @ApiProperty({
    enum: ['units_sold', 'material_counts', 'partly_units_sold'],
    example: 'units_sold',
    description:
      '`units_sold`: every half-year with figures states its units sold (`units_sold` of the declaration): the count is known, `at_least` = `at_most`. `material_counts`: none does; the bounds come from the per-material `uvc` lines. `partly_units_sold`: one half-year states them, the other is bounded by its lines.',
  })
  basis!: 'units_sold' | 'material_counts' | 'partly_units_sold';
}

export class FilingFeeDto {
  @ApiProperty({ example: '80.00' })
  amount!: string;

  @ApiProperty({ enum: ['EUR'] })
  currency!: 'EUR';

  @ApiProperty({ enum: ['excluded'] })
  vat!: 'excluded';

  @ApiProperty({ enum: ['year'] })
  per!: 'year';
}

export class TierDto {
  @ApiProperty({ example: 'flat-fee' })
  id!: string;

  @ApiProperty({ enum: ['flat_fee', 'simplified_declaration', 'detailed_declaration', 'declaration'] })
  filing!: string;

  @ApiProperty({ type: LocalizedNameDto })
  label!: LocalizedNameDto;

  @ApiProperty({ type: FilingFeeDto, nullable: true })
  fee!: FilingFeeDto | null;

  @ApiProperty({ enum: ['official_text', 'secondary_source', 'unverified'] })
  verification!: string;

  @ApiProperty({ type: [String] })
  sources!: string[];
}

export class TierPlacementDto {
  @ApiProperty({ example: 'EMB' })
  stream!: string;

  @ApiProperty({ example: 'Citeo' })
  eco_organism!: string;

  /** The unit the eco-organism's tiers count in. */
  @ApiProperty({ example: 'uvc' })
  count_unit!: string;

  @ApiProperty({
    type: UnitCountDto,
    nullable: true,
    description:
      "The year's count of consumer sales units of the stream: S1 + S2. A half-year that states its units sold (`units_sold` of its declaration) counts them exactly. A half-year with only per-material `uvc` lines is a range: a `uvc` line counts the units whose packaging includes that material, so a unit made of two materials appears on two lines, and the half-year's units are at least its largest line and at most the sum of its lines (a bound, never the count). `basis` says which. Null when the year has neither.",
  })
  count!: UnitCountDto | null;

  @ApiProperty({
    type: TierDto,
    nullable: true,
    description: 'The tier the whole count range falls in; null when the range straddles tiers (see `possible_tiers`), or without a count.',
  })
  tier!: TierDto | null;

  @ApiProperty({
    type: [String],
    example: ['flat-fee'],
    description: 'Ids of the tiers the count may fall in (streams.json, `eco_organisms[].filing.tiers`), lowest first.',
  })
  possible_tiers!: string[];
}

export class YearDeadlineDto extends DueDeadlineDto {
  @ApiProperty({ example: 'EMB' })
  stream!: string;
}

@ApiSchema({
  description:
    'A calendar year as the eco-organisms see it: every household filing found is annual, and the half-year is only this service\'s collection period. The totals add the current revisions of S1 and S2; the year is `complete` once both half-years are over and declared, until then every figure is "so far".',
})
export class YearDto {
  @ApiProperty({ example: 'exemple-sas' })
  client_id!: string;

  @ApiProperty({ type: 'integer', example: 2026 })
  year!: number;

  /** Today's date in France. */
  @ApiProperty({ format: 'date', example: '2026-11-25' })
  today!: string;

  @ApiProperty({ description: "Both half-years are over and declared: the totals are the year's." })
  complete!: boolean;

  @ApiProperty({ type: [YearPeriodDto] })
  periods!: YearPeriodDto[];

  @ApiProperty({ type: [YearLineDto] })
  lines!: YearLineDto[];

  @ApiProperty({ type: [TierPlacementDto] })
  filing_tiers!: TierPlacementDto[];

  @ApiProperty({
    type: [YearDeadlineDto],
    description: "Per stream of your account, the deadlines of the year's filings, each once, soonest first.",
  })
  deadlines!: YearDeadlineDto[];

  static from(y: ClientYear): YearDto {
    return {
      client_id: y.clientId,
      year: y.year,
      today: y.today,
      complete: y.complete,
      periods: y.periods,
      lines: y.lines.map((line) => ({
        stream: line.stream,
        material: line.material,
        material_code: line.materialCode,
        unit: line.unit,
        s1: line.s1,
        s2: line.s2,
        quantity: line.quantity,
      })),
      filing_tiers: y.filingTiers.map((placement) => ({
        ...placement,
        tier: placement.tier && {
          id: placement.tier.id,
          filing: placement.tier.filing,
          label: placement.tier.label,
          fee: placement.tier.fee,
          verification: placement.tier.verification,
          sources: placement.tier.sources,
        },
      })),
      deadlines: y.deadlines,
    };
  }
}
