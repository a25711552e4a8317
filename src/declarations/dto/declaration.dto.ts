import { TOKEN_MODES, type TokenMode } from '../../common/token-format.js';
import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import type { ReferenceCatalogue } from '../../reference/reference-catalogue.js';
import type {
  Declaration,
  DeclarationLine,
  DeclarationRecord,
  DeclarationSummary,
  DeclarationTotal,
  SubmittedBy,
  UnitsSold,
} from '../declaration.js';
import { PERIOD_PATTERN_TEXT } from '../../calendar/half-year.js';
import type { Page } from '../../common/paging/keyset-cursor.js';

export class LocalizedNameDto {
  @ApiProperty({ example: 'Verre' })
  fr!: string;

  @ApiProperty({ example: 'Glass' })
  en!: string;
}

/** A material category published in the streams data (`/api/v1/streams.json`). */
export class MaterialCategoryDto {
  @ApiProperty({ example: 'glass' })
  code!: string;

  /** As published: a current material, or one of the stream's `retired_materials` for a code of an earlier catalogue version. */
  @ApiProperty({ type: LocalizedNameDto, nullable: true })
  name!: LocalizedNameDto | null;
}

export class DeclarationLineDto {
  @ApiProperty({ example: 'EMB' })
  stream!: string;

  /** As submitted, trimmed. */
  @ApiProperty({ example: 'Verre' })
  material!: string;

  /** The published category the material names (by code or name, ignoring case), or null. */
  @ApiProperty({ type: MaterialCategoryDto, nullable: true })
  material_category!: MaterialCategoryDto | null;

  @ApiProperty({ example: 'kg' })
  unit!: string;

  /** Exactly as stored (at most 3 decimals, at most 10^12: exact as a JSON number). */
  @ApiProperty({ type: Number, example: 1200.5 })
  quantity!: number;

  static from(line: DeclarationLine, category: MaterialCategoryDto | null): DeclarationLineDto {
    return { stream: line.stream, material: line.material, material_category: category, unit: line.unit, quantity: Number(line.quantity) };
  }
}

@ApiSchema({
  description:
    "The sum of a declaration's lines for one stream and unit, for units that add up across materials (`kg`). Counts of sales units (`uvc`) are never summed across materials: a `uvc` line counts the units whose packaging contains its material, so one unit is on as many lines as it has materials; the units sold are `units_sold`.",
})
export class DeclarationTotalDto {
  @ApiProperty({ example: 'EMB' })
  stream!: string;

  @ApiProperty({ example: 'kg' })
  unit!: string;

  /**
   * Exact decimal sum as a STRING without trailing zeros (`"0.3"`, `"1200"`): a sum of up to
   * 1000 quantities can exceed what a JSON number (a double) holds exactly.
   */
  @ApiProperty({ example: '1200.5', pattern: '^[0-9]+(\\.[0-9]{1,3})?$' })
  quantity!: string;

  static from(total: DeclarationTotal): DeclarationTotalDto {
    return { stream: total.stream, unit: total.unit, quantity: total.quantity };
  }
}

@ApiSchema({
  description:
    "The consumer sales units (UVC) of one stream placed on the market in the half-year, as stated: every unit once, whatever its materials. Not the sum of the stream's `uvc` lines.",
})
export class UnitsSoldDto {
  @ApiProperty({ example: 'EMB' })
  stream!: string;

  /** A whole number, 0 to 10^12. */
  @ApiProperty({ type: 'integer', example: 90000, minimum: 0 })
  quantity!: number;

  static from(entry: UnitsSold): UnitsSoldDto {
    return { stream: entry.stream, quantity: Number(entry.quantity) };
  }
}

@ApiSchema({
  description:
    'Who filed a revision: a client token (`token_id`, `token_prefix`; never the secret), the dashboard (`session_id` of the signed-in session, and `declared_by_name`: the person who declared it), or the operator (`name`).',
})
export class SubmittedByDto {
  @ApiProperty({ enum: ['token', 'dashboard', 'operator'] })
  type!: 'token' | 'dashboard' | 'operator';

  @ApiProperty({ type: String, format: 'uuid', required: false })
  token_id?: string;

  /** The token's visible prefix, as listed with the client's tokens. */
  @ApiProperty({ type: String, nullable: true, required: false, example: 'epr_7Kq2' })
  token_prefix?: string | null;

  @ApiProperty({ type: String, format: 'uuid', nullable: true, required: false })
  session_id?: string | null;

  @ApiProperty({ type: String, required: false, example: 'ADMIN_TOKEN' })
  name?: string;

  /**
   * With `dashboard`: the full name the person typed to declare the revision, next to the statement that the
   * information declared is accurate and complete; absent for revisions filed before it was asked.
   */
  @ApiProperty({ type: String, required: false, example: 'Claire Martin' })
  declared_by_name?: string;
}

/** The fields every declaration view has (record and list summary). */
export abstract class DeclarationBaseDto {
  /** Random (UUID), not sequential. */
  @ApiProperty({ format: 'uuid' })
  id!: string;

  @ApiProperty({ example: 'exemple-sas' })
  client_id!: string;

  @ApiProperty({ example: '2025-S1', pattern: PERIOD_PATTERN_TEXT })
  period!: string;

  /** 1 for the first submission for the period, then 2, 3, … */
  @ApiProperty({ type: 'integer', example: 1, minimum: 1 })
  revision!: number;

  /** Exactly one revision per period is `current`; earlier ones are `superseded` and stay readable. */
  @ApiProperty({ enum: ['current', 'superseded'] })
  status!: 'current' | 'superseded';

  /** The revision this one replaced; null for revision 1. */
  @ApiProperty({ type: String, format: 'uuid', nullable: true })
  supersedes!: string | null;

  /** When the service acknowledged it (UTC, microseconds). */
  @ApiProperty({ format: 'date-time', example: '2025-07-15T08:30:00.123456Z' })
  submitted_at!: string;

  /** Human-readable acknowledgement reference, unique: `EPR-<period>-R<revision>-<8 characters>`; `TEST-EPR-…` in the sandbox. */
  @ApiProperty({ example: 'EPR-2025S1-R1-7K3QH9XM' })
  receipt!: string;

  /** The version of the reference catalogue (`catalogue_version` of streams.json) the declaration was validated against. */
  @ApiProperty({ type: 'integer', example: 2, minimum: 1 })
  catalogue_version!: number;

  /** `live`, or `test` for a declaration of the client's sandbox (made with an `eprt_` test token, never filed). */
  @ApiProperty({ enum: TOKEN_MODES, example: 'live' })
  mode!: TokenMode;
  /** Who filed this revision; null for revisions filed before the service recorded it. */
  @ApiProperty({ type: SubmittedByDto, nullable: true })
  submitted_by!: SubmittedBy | null;

  /**
   * The consumer sales units stated for the half-year, once per stream, in stream order; empty when the
   * declaration does not state them (then only the per-material `uvc` lines are known, which do not add up).
   */
  @ApiProperty({ type: [UnitsSoldDto] })
  units_sold!: UnitsSoldDto[];

  /** Exact sums per stream and unit (decimal strings), for units that add up across materials (`kg`): no `uvc` total. */
  @ApiProperty({ type: [DeclarationTotalDto] })
  totals!: DeclarationTotalDto[];
}

@ApiSchema({
  description: 'A declaration as stored: never changed after acknowledgement, except `status` when a later revision supersedes it.',
})
export class DeclarationDto extends DeclarationBaseDto {
  /** In the order submitted. */
  @ApiProperty({ type: [DeclarationLineDto] })
  lines!: DeclarationLineDto[];

  /** `catalogue` names each line's category (a retired code still names its category: the catalogue keeps retired materials). */
  static from(record: DeclarationRecord, catalogue: Pick<ReferenceCatalogue, 'categoryName'>): DeclarationDto {
    return {
      ...baseOf(record),
      lines: record.lines.map((line) => {
        if (line.materialCode === null) return DeclarationLineDto.from(line, null);
        const name = catalogue.categoryName(line.stream, line.materialCode);
        return DeclarationLineDto.from(line, { code: line.materialCode, name: name ? { fr: name.fr, en: name.en } : null });
      }),
      totals: record.totals.map(DeclarationTotalDto.from),
    };
  }

  /**
   * A stored record (jsonb does not keep key order) in the key order of `from`, so that a
   * replayed response is byte-for-byte the first one.
   */
  static reorder(stored: DeclarationDto): DeclarationDto {
    const { id, client_id, period, revision, status, supersedes, submitted_at, receipt } = stored;
    return {
      id,
      client_id,
      period,
      revision,
      status,
      supersedes,
      submitted_at,
      receipt,
      // Responses stored before catalogue versions existed were all of version 1.
      catalogue_version: stored.catalogue_version ?? 1,
      // Responses stored before the sandbox existed were all live.
      mode: stored.mode ?? 'live',
      // Responses stored before `submitted_by` existed did not say.
      submitted_by: stored.submitted_by ?? null,
      // Responses stored before units sold could be stated had none.
      units_sold: (stored.units_sold ?? []).map(({ stream, quantity }) => ({ stream, quantity })),
      lines: stored.lines.map(({ stream, material, material_category: c, unit, quantity }) => ({
        stream,
        material,
        material_category: c && { code: c.code, name: c.name && { fr: c.name.fr, en: c.name.en } },
        unit,
        quantity,
      })),
      totals: stored.totals.map(DeclarationTotalDto.from),
    };
  }
}

@ApiSchema({
  description: 'Something a person should check in a declaration that was accepted: never an error, never stored with the declaration.',
})
export class DeclarationWarningDto {
  /** JSON Pointer into the request body (`/lines/3/material`), or the CSV cell (`/rows/4/material`). */
  @ApiProperty({ example: '/lines/2/material' })
  pointer!: string;

  /**
   * `material_uncategorised`: the material names no category of the stream's published grid (it is stored as written, but
   * will not match a line of the eco-organism's grid); `quantity_maybe_tonnes`: a kg line gives under 0.1 g of the material
   * per consumer sales unit of its uvc line, as tonnes typed as kilograms would.
   */
  @ApiProperty({ enum: ['material_uncategorised', 'quantity_maybe_tonnes'], example: 'material_uncategorised' })
  code!: string;

  @ApiProperty({
    example:
      '"Plastique" is not a material category of EMB: it is stored as written, but it will not match a line of the eco-organism\'s grid.',
  })
  detail!: string;
}

@ApiSchema({
  description: 'The answer to a submission: the declaration, and what to check in it (`warnings`, empty when there is nothing to say).',
})
export class SubmittedDeclarationDto extends DeclarationDto {
  /** Things to check that do not stop the filing; an empty array when there are none. The same on a replay with the same `Idempotency-Key`. */
  @ApiProperty({ type: [DeclarationWarningDto] })
  warnings!: DeclarationWarningDto[];
}

@ApiSchema({
  description:
    'A declaration in a list: the record without its lines (up to 1000 each), with `line_count`. The full record is `GET /api/v1/declarations/{id}`.',
})
export class DeclarationSummaryDto extends DeclarationBaseDto {
  @ApiProperty({ type: 'integer', example: 12, minimum: 1 })
  line_count!: number;

  static from(row: DeclarationSummary): DeclarationSummaryDto {
    return { ...baseOf(row), line_count: row.lineCount, totals: row.totals.map(DeclarationTotalDto.from) };
  }
}

@ApiSchema({ description: 'One page of declarations, newest first (`submitted_at`, then `id`, descending).' })
export class DeclarationPageDto {
  static from(page: Page<DeclarationSummary>): DeclarationPageDto {
    return { data: page.items.map(DeclarationSummaryDto.from), has_more: page.hasMore, next_cursor: page.nextCursor };
  }

  @ApiProperty({ type: [DeclarationSummaryDto] })
  data!: DeclarationSummaryDto[];

  /** Whether another page follows. */
  @ApiProperty()
  has_more!: boolean;

  /** Pass as `cursor` to get the next page; null on the last page. */
  @ApiProperty({ type: String, nullable: true })
  next_cursor!: string | null;
}

function baseOf(row: Declaration) {
  return {
    id: row.id,
    client_id: row.clientId,
    period: row.period,
    revision: row.revision,
    status: row.status,
    supersedes: row.supersedes,
    submitted_at: row.submittedAt,
    receipt: row.receipt,
    catalogue_version: row.catalogueVersion,
    mode: row.mode,
    submitted_by: row.submittedBy ?? null,
    units_sold: (row.unitsSold ?? []).map(UnitsSoldDto.from),
  };
}
