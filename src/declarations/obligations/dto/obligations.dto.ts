import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { LocalizedNameDto } from '../../dto/declaration.dto.js';
import { PERIOD_PATTERN_TEXT } from '../../../calendar/half-year.js';
import type { AccountObligations } from '../account-obligations.js';

export class DueDeadlineDto {
  @ApiProperty({ example: 'eco-organism-declaration' })
  id!: string;

  @ApiProperty({ type: LocalizedNameDto })
  label!: LocalizedNameDto;

  /** Who must act: the producer, or its eco-organism on its behalf. */
  @ApiProperty({ enum: ['producer', 'eco_organism'] })
  by!: 'producer' | 'eco_organism';

  @ApiProperty({ format: 'date', example: '2027-02-28' })
  due!: string;

  @ApiProperty({ enum: ['official_text', 'secondary_source', 'unverified'] })
  verification!: 'official_text' | 'secondary_source' | 'unverified';

  @ApiProperty({ type: [String], example: ['https://www.flexico.com/declaration-citeo/'] })
  sources!: string[];
}

export class DeclarationReferenceDto {
  @ApiProperty({ format: 'uuid' })
  id!: string;

  @ApiProperty({ type: 'integer', minimum: 1, example: 1 })
  revision!: number;

  @ApiProperty({ example: 'EPR-2025S1-R1-7K3QH9XM' })
  receipt!: string;
}

export class PeriodObligationDto {
  @ApiProperty({ example: '2025-S1', pattern: PERIOD_PATTERN_TEXT })
  period!: string;

  @ApiProperty({ format: 'date', example: '2025-01-01' })
  start!: string;

  @ApiProperty({ format: 'date', example: '2025-06-30' })
  end!: string;

  /** The half-year is over (its last day is before today in France). */
  @ApiProperty()
  ended!: boolean;

  /**
   * `declared`: a current declaration of the period has lines of this stream; `open`: the half-year
   * is in progress; `to_declare`: it has ended, is not declared, and its filing deadline (`due_date`)
   * has not passed; `overdue`: it has ended, is not declared, and `due_date` has passed. S1 and S2 of
   * a year are added together for the eco-organism's annual declaration, so both share its deadline.
   */
  @ApiProperty({ enum: ['open', 'to_declare', 'overdue', 'declared'] })
  status!: 'open' | 'to_declare' | 'overdue' | 'declared';

  /** The period's filing deadline: its first published deadline for the producer; null when none is published. */
  @ApiProperty({ type: String, format: 'date', nullable: true, example: '2026-02-28' })
  due_date!: string | null;

  /** The current declaration of the period; null when missing. */
  @ApiProperty({ type: DeclarationReferenceDto, nullable: true })
  declaration!: DeclarationReferenceDto | null;

  /** The stream's published deadlines for this period that fall today or later, soonest first. */
  @ApiProperty({ type: [DueDeadlineDto] })
  next_deadlines!: DueDeadlineDto[];
}

export class StreamObligationsDto {
  @ApiProperty({ example: 'EMB' })
  stream!: string;

  @ApiProperty({ type: LocalizedNameDto })
  name!: LocalizedNameDto;

  /** The half-year that contains the stream's `declarable_from`. */
  @ApiProperty({ example: '2022-S1' })
  first_period!: string;

  /**
   * The first half-year the client is liable for: by default the half-year the operator confirmed
   * the client in (never before `first_period`). Periods start there; a half-year declared before
   * it is still listed, as declared.
   */
  @ApiProperty({ example: '2026-S2' })
  liable_from!: string;

  /** The half-year that contains the stream's `declarable_until`; null while the stream is open. */
  @ApiProperty({ type: String, nullable: true, example: null })
  last_period!: string | null;

  /** The stream that takes over after `last_period`. */
  @ApiProperty({ type: String, nullable: true, example: null })
  replaced_by!: string | null;

  /** Oldest first, from `liable_from` up to the current half-year (or `last_period`). */
  @ApiProperty({ type: [PeriodObligationDto] })
  periods!: PeriodObligationDto[];
}

@ApiSchema({
  description:
    'Your declaration obligations, computed from the published reference data (streams.json) and your current declarations. An account whose profile is not confirmed yet gets `account_status: "pending"`, a `detail` and no streams: this is also how a client system discovers its onboarding state.',
})
export class ObligationsDto {
  @ApiProperty({ example: 'exemple-sas' })
  client_id!: string;

  /** `pending` until the operator confirms the profile; only then are streams and periods computed. */
  @ApiProperty({ enum: ['pending', 'confirmed'] })
  account_status!: 'pending' | 'confirmed';

  /** Why there is nothing to show yet (pending account); null otherwise. */
  @ApiProperty({ type: String, nullable: true })
  detail!: string | null;

  /** Today's date in France, the date the answer was computed for. */
  @ApiProperty({ format: 'date', example: '2026-11-23' })
  today!: string;

  /** `catalogue_version` of streams.json, which the answer was computed from. */
  @ApiProperty({ type: 'integer', minimum: 1, example: 2 })
  catalogue_version!: number;

  /** One entry per stream of the confirmed account. */
  @ApiProperty({ type: [StreamObligationsDto] })
  streams!: StreamObligationsDto[];

  static from(o: AccountObligations): ObligationsDto {
    return {
      client_id: o.clientId,
      account_status: o.accountStatus,
      detail: o.detail,
      today: o.today,
      catalogue_version: o.catalogueVersion,
      streams: o.streams,
    };
  }
}
