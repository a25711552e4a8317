import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { PERIOD_PATTERN_TEXT } from '../../period.js';

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

@ApiSchema({ description: "A period's totals across the current revisions of every client, and who has not declared." })
export class PeriodSummaryDto {
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

  /** Per stream and unit. */
  @ApiProperty({ type: [StreamTotalDto] })
  stream_totals!: StreamTotalDto[];
}
