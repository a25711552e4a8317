import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { PERIOD_PATTERN_TEXT } from '../../calendar/half-year.js';
import { LocalizedNameDto } from '../../declarations/dto/declaration.dto.js';
import type { PeriodSummary } from '../period-summary.js';

/** An exact decimal string without trailing zeros (the kg of a product element has up to 6 decimals, grams up to 3). */
const EXACT_DECIMAL = '^[0-9]+(\\.[0-9]+)?$';

export class ExportProductElementDto {
  /** The published material category of the stream's grid. */
  @ApiProperty({ example: 'glass' })
  material_category!: string;

  /** Its published name, or null if the published data no longer names it. */
  @ApiProperty({ type: LocalizedNameDto, nullable: true })
  material_name!: LocalizedNameDto | null;

  /** Grams of one element, exact decimal string (at most 3 decimals). */
  @ApiProperty({ example: '410.5', pattern: EXACT_DECIMAL })
  weight_g!: string;

  /** Elements of this kind on one unit. */
  @ApiProperty({ type: 'integer', minimum: 1, example: 1 })
  per_unit!: number;

  /** What this element gave the declaration: units × per_unit × weight_g / 1000, exact (up to 6 decimals), before the declaration's rounding to the gram. */
  @ApiProperty({ example: '19704', pattern: EXACT_DECIMAL })
  kg!: string;

  /** Professional packaging (EPRO): the published packaging category; null otherwise. */
  @ApiProperty({ type: String, nullable: true, example: null })
  packaging_category!: string | null;

  /** Professional packaging (EPRO): the published reuse status; null otherwise. */
  @ApiProperty({ type: String, nullable: true, example: null })
  reuse_status!: string | null;
}

@ApiSchema({ description: 'A product version a derived declaration used: what a filing per consumer sales unit (UVC) needs.' })
export class ExportProductDto {
  /** The client's own reference. */
  @ApiProperty({ example: 'BTL-75-ROUGE' })
  reference!: string;

  @ApiProperty({ example: 'Vin rouge 75 cl' })
  name!: string;

  @ApiProperty({ type: String, nullable: true, example: '3017620422003' })
  gtin!: string | null;

  /** The half-year from which this version of its packaging applies (the one in force in the period). */
  @ApiProperty({ example: '2026-S1', pattern: PERIOD_PATTERN_TEXT })
  valid_from!: string;

  @ApiProperty({ example: 'EMB' })
  stream!: string;

  /** Sales units placed on the market in the period, exact whole number as a string. */
  @ApiProperty({ example: '48000', pattern: '^[0-9]+$' })
  units!: string;

  /** The packaging of one unit as filed, in element order. */
  @ApiProperty({ type: [ExportProductElementDto] })
  elements!: ExportProductElementDto[];
}

export class ExportLineDto {
  @ApiProperty({ example: 'EMB' })
  stream!: string;

  /** As submitted. */
  @ApiProperty({ example: 'Verre' })
  material!: string;

  /** The published material category code the material names, or null. */
  @ApiProperty({ type: String, nullable: true, example: 'glass' })
  material_category!: string | null;

  @ApiProperty({ example: 'kg' })
  unit!: string;

  /** Exact decimal string, without trailing zeros. */
  @ApiProperty({ example: '1200.5', pattern: '^[0-9]+(\\.[0-9]{1,3})?$' })
  quantity!: string;

  /** The eco-organism set for the client and this stream (`PUT /admin/clients/{id}/streams/{stream}`); null when none is set. */
  @ApiProperty({ type: String, nullable: true, example: 'Citeo' })
  eco_organism!: string | null;
}

@ApiSchema({ description: "A client's current revision for the period, with the client's confirmed company, country and IDUs." })
export class ExportDeclarationDto {
  @ApiProperty({ example: 'exemple-sas' })
  client_id!: string;

  @ApiProperty({ type: String, nullable: true, example: 'Exemple SAS' })
  company!: string | null;

  @ApiProperty({ type: String, nullable: true, example: 'FR' })
  country!: string | null;

  @ApiProperty({ type: [String], example: ['FR000000_01ABCD'] })
  idus!: string[];

  @ApiProperty({ format: 'uuid' })
  declaration_id!: string;

  @ApiProperty({ type: 'integer', minimum: 1 })
  revision!: number;

  @ApiProperty({ example: 'EPR-2025S1-R1-7K3QH9XM' })
  receipt!: string;

  @ApiProperty({ format: 'date-time', example: '2025-07-15T08:30:00.123456Z' })
  submitted_at!: string;

  @ApiProperty({ type: [ExportLineDto] })
  lines!: ExportLineDto[];

  /**
   * Only with `detail=products` (absent otherwise): for a declaration derived from the client's product catalogue and sales,
   * each product version it used, by reference; `null` for a declaration entered directly (no product detail exists).
   */
  @ApiProperty({ type: [ExportProductDto], nullable: true, required: false })
  products?: ExportProductDto[] | null;
}

@ApiSchema({ description: "A period's filing export: the current revision of every client that declared, in client id order." })
export class PeriodExportDto {
  @ApiProperty({ example: '2025-S1', pattern: PERIOD_PATTERN_TEXT })
  period!: string;

  @ApiProperty({ type: [ExportDeclarationDto] })
  declarations!: ExportDeclarationDto[];
}

export class SummaryClientsDto {
  /** Clients whose onboarding is confirmed. */
  @ApiProperty({ type: 'integer', minimum: 0 })
  confirmed!: number;

  /** Confirmed clients, not offboarded, liable for the period: one of their confirmed streams is declared from it or earlier (`liable_from`, else the half-year of the first confirmation). */
  @ApiProperty({ type: 'integer', minimum: 0 })
  liable!: number;

  /** Clients with a current declaration for the period. */
  @ApiProperty({ type: 'integer', minimum: 0 })
  declared!: number;

  /** Liable clients without one, once the period has ended (listed in `missing_clients`); 0 while it is open. */
  @ApiProperty({ type: 'integer', minimum: 0 })
  missing!: number;
}

export class MissingClientDto {
  @ApiProperty({ example: 'exemple-sas' })
  client_id!: string;

  @ApiProperty({ type: String, nullable: true, example: 'Exemple SAS' })
  company!: string | null;

  @ApiProperty({ type: String, nullable: true, example: 'compliance@example.fr' })
  email!: string | null;
}

export class SummaryTotalDto {
  @ApiProperty({ example: 'EMB' })
  stream!: string;

  /** The published material category; null for materials that name none (then `material` is the submitted text). */
  @ApiProperty({ type: String, nullable: true, example: 'glass' })
  material_category!: string | null;

  /** The submitted material text when it names no published category; null otherwise. */
  @ApiProperty({ type: String, nullable: true, example: null })
  material!: string | null;

  @ApiProperty({ example: 'kg' })
  unit!: string;

  /** Exact sum as a decimal string (PostgreSQL numeric), without trailing zeros. */
  @ApiProperty({ example: '125000.25', pattern: '^[0-9]+(\\.[0-9]{1,3})?$' })
  quantity!: string;

  @ApiProperty({ type: 'integer', minimum: 1 })
  client_count!: number;

  @ApiProperty({ type: 'integer', minimum: 1 })
  line_count!: number;
}

export class StreamTotalDto {
  @ApiProperty({ example: 'EMB' })
  stream!: string;

  @ApiProperty({ example: 'kg' })
  unit!: string;

  @ApiProperty({ example: '125000.25', pattern: '^[0-9]+(\\.[0-9]{1,3})?$' })
  quantity!: string;
}

export class UnitsSoldTotalDto {
  @ApiProperty({ example: 'EMB' })
  stream!: string;

  /** Σ of the units sold the clients state (a whole number as a decimal string). */
  @ApiProperty({ example: '90000', pattern: '^[0-9]+$' })
  quantity!: string;

  /** How many clients' current revisions state them (the others declared per-material counts only, which do not add up). */
  @ApiProperty({ type: 'integer', minimum: 1 })
  client_count!: number;
}

@ApiSchema({ description: "A period's totals across the current revisions of every client, and who has not declared." })
export class PeriodSummaryDto {
  static from(s: PeriodSummary): PeriodSummaryDto {
    return {
      period: s.period,
      ended: s.ended,
      clients: { confirmed: s.confirmedClients, liable: s.liableClients, declared: s.declaredClients, missing: s.missing.length },
      missing_clients: s.missing.map((m) => ({ client_id: m.clientId, company: m.company, email: m.email })),
      totals: s.totals.map((t) => ({
        stream: t.stream,
        material_category: t.materialCode,
        material: t.material,
        unit: t.unit,
        quantity: t.quantity,
        client_count: t.clientCount,
        line_count: t.lineCount,
      })),
      stream_totals: s.streamTotals,
      units_sold: s.unitsSold.map((u) => ({ stream: u.stream, quantity: u.quantity, client_count: u.clientCount })),
    };
  }

  @ApiProperty({ example: '2025-S1', pattern: PERIOD_PATTERN_TEXT })
  period!: string;

  /** Whether the half-year has ended (Paris time): only then can a client be missing. */
  @ApiProperty()
  ended!: boolean;

  @ApiProperty({ type: SummaryClientsDto })
  clients!: SummaryClientsDto;

  /** Liable clients without a current declaration for the ended period, by client id (empty while it is open). */
  @ApiProperty({ type: [MissingClientDto] })
  missing_clients!: MissingClientDto[];

  /** Per stream, material and unit. */
  @ApiProperty({ type: [SummaryTotalDto] })
  totals!: SummaryTotalDto[];

  /**
   * Per stream and unit that adds up across materials (`kg`). Counts of sales units (`uvc`) are summed per material
   * in `totals` (across clients), never across materials: a unit whose packaging combines two materials is on both lines.
   */
  @ApiProperty({ type: [StreamTotalDto] })
  stream_totals!: StreamTotalDto[];

  /** Per stream, the consumer sales units sold that the clients' current revisions state (`units_sold`), and how many clients state them. */
  @ApiProperty({ type: [UnitsSoldTotalDto] })
  units_sold!: UnitsSoldTotalDto[];
}
