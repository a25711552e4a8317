import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { LocalizedNameDto } from '../../declarations/dto/declaration.dto.js';
import { PERIOD_PATTERN_TEXT } from '../../calendar/half-year.js';
import type { Page } from '../../common/paging/keyset-cursor.js';
import type { ReferenceCatalogue } from '../../reference/reference-catalogue.js';
import type {
  Derivation,
  DerivedDeclaration,
  FiledProduct,
  PackagingElement,
  Product,
  ProductContributionPage,
  ProductsResult,
  ProductVersion,
  SalesResult,
} from '../product.js';

/** What names a material category: the catalogue (a retired code still names its category). */
type Names = Pick<ReferenceCatalogue, 'categoryName'>;

const nameOf = (names: Names, stream: string, code: string): LocalizedNameDto | null => {
  const name = names.categoryName(stream, code);
  return name ? { fr: name.fr, en: name.en } : null;
};

const DECIMAL = '^[0-9]+(\\.[0-9]+)?$';

export class PackagingElementDto {
  /** The material category code of the stream's grid. */
  @ApiProperty({ example: 'glass' })
  material!: string;

  @ApiProperty({ type: LocalizedNameDto, nullable: true })
  material_name!: LocalizedNameDto | null;

  /** Grams of one element, exact (at most 3 decimals). */
  @ApiProperty({ type: Number, example: 410.5 })
  weight_g!: number;

  @ApiProperty({ example: 1 })
  per_unit!: number;

  @ApiProperty({ type: String, nullable: true, example: null })
  packaging_category!: string | null;

  @ApiProperty({ type: String, nullable: true, example: null })
  reuse_status!: string | null;

  static from(element: PackagingElement, stream: string, names: Names): PackagingElementDto {
    return {
      material: element.material,
      material_name: nameOf(names, stream, element.material),
      weight_g: Number(element.weightG),
      per_unit: element.perUnit,
      packaging_category: element.packagingCategory,
      reuse_status: element.reuseStatus,
    };
  }
}

export class ProductVersionDto {
  @ApiProperty({ example: '2026-S1', pattern: PERIOD_PATTERN_TEXT })
  valid_from!: string;

  @ApiProperty({ example: 'Vin rouge 75 cl' })
  name!: string;

  @ApiProperty({ example: 'EMB' })
  stream!: string;

  @ApiProperty({ type: String, nullable: true, example: '3017620422003' })
  gtin!: string | null;

  /** UTC, when this version was recorded. */
  @ApiProperty({ example: '2026-03-15T10:00:00.000000Z' })
  recorded_at!: string;

  /** A filed derived declaration used this version: it can no longer be replaced (post another `valid_from` instead). */
  @ApiProperty({ example: false })
  filed!: boolean;

  @ApiProperty({ type: [PackagingElementDto] })
  elements!: PackagingElementDto[];

  static from(version: ProductVersion, names: Names): ProductVersionDto {
    return {
      valid_from: version.validFrom,
      name: version.name,
      stream: version.stream,
      gtin: version.gtin,
      recorded_at: version.recordedAt,
      filed: version.filed,
      elements: version.elements.map((e) => PackagingElementDto.from(e, version.stream, names)),
    };
  }
}

@ApiSchema({ description: 'A product of your catalogue with every version, the latest `valid_from` first.' })
export class ProductDto {
  @ApiProperty({ example: 'BTL-75-ROUGE' })
  reference!: string;

  @ApiProperty({ type: [ProductVersionDto] })
  versions!: ProductVersionDto[];

  static from(product: Product, names: Names): ProductDto {
    return { reference: product.reference, versions: product.versions.map((v) => ProductVersionDto.from(v, names)) };
  }
}

export class ProductPageDto {
  @ApiProperty({ type: [ProductDto] })
  data!: ProductDto[];

  @ApiProperty({ example: false })
  has_more!: boolean;

  @ApiProperty({ type: String, nullable: true, example: null })
  next_cursor!: string | null;

  static from(page: Page<Product>, names: Names): ProductPageDto {
    return { data: page.items.map((p) => ProductDto.from(p, names)), has_more: page.hasMore, next_cursor: page.nextCursor };
  }
}

export class ProductOutcomeDto {
  @ApiProperty({ example: 'BTL-75-ROUGE' })
  reference!: string;

  @ApiProperty({ example: '2026-S1', pattern: PERIOD_PATTERN_TEXT })
  valid_from!: string;

  /** `created`: a new version; `replaced`: the version of that `valid_from` changed (nothing was filed from it); `unchanged`: identical to the stored one. */
  @ApiProperty({ enum: ['created', 'replaced', 'unchanged'], example: 'created' })
  outcome!: 'created' | 'replaced' | 'unchanged';
}

export class ProductsResultDto {
  @ApiProperty({ example: 1 })
  created!: number;

  @ApiProperty({ example: 0 })
  replaced!: number;

  @ApiProperty({ example: 0 })
  unchanged!: number;

  @ApiProperty({ type: [ProductOutcomeDto] })
  versions!: ProductOutcomeDto[];

  static from(result: ProductsResult): ProductsResultDto {
    return {
      created: result.created,
      replaced: result.replaced,
      unchanged: result.unchanged,
      versions: result.versions.map((v) => ({ reference: v.reference, valid_from: v.validFrom, outcome: v.outcome })),
    };
  }
}

export class SalesResultDto {
  @ApiProperty({ example: '2026-S1', pattern: PERIOD_PATTERN_TEXT })
  period!: string;

  /** Sales recorded by this request. */
  @ApiProperty({ example: 2 })
  recorded!: number;

  /** Products with sales in the period, after this request. */
  @ApiProperty({ example: 2 })
  products!: number;

  /** Units of the period, after this request: exact whole number as a string. */
  @ApiProperty({ example: '60000', pattern: '^[0-9]+$' })
  units!: string;

  static from(result: SalesResult): SalesResultDto {
    return { period: result.period, recorded: result.recorded, products: result.products, units: result.units };
  }
}

export class ContributionDto {
  @ApiProperty({ example: 'BTL-75-ROUGE' })
  reference!: string;

  @ApiProperty({ example: 'Vin rouge 75 cl' })
  name!: string;

  /** The version used: the latest `valid_from` not after the period. */
  @ApiProperty({ example: '2026-S1', pattern: PERIOD_PATTERN_TEXT })
  valid_from!: string;

  /** Units sold, exact whole number as a string. */
  @ApiProperty({ example: '48000', pattern: '^[0-9]+$' })
  units!: string;

  /** Elements of this material placed on the market: Σ units × per_unit. */
  @ApiProperty({ example: '48000', pattern: '^[0-9]+$' })
  elements!: string;

  /** Σ units × per_unit × weight_g / 1000, exact (up to 6 decimals), as a string. */
  @ApiProperty({ example: '19704', pattern: DECIMAL })
  kg!: string;
}

export class DerivedLineDto {
  @ApiProperty({ example: 'EMB' })
  stream!: string;

  /** The material category code (what the filed line's `material` holds). */
  @ApiProperty({ example: 'glass' })
  material!: string;

  @ApiProperty({ type: LocalizedNameDto, nullable: true })
  material_name!: LocalizedNameDto | null;

  /** Σ of the contributions, exact, as a string. */
  @ApiProperty({ example: '19704.0255', pattern: DECIMAL })
  kg_exact!: string;

  /** What the `kg` line of the declaration holds: `kg_exact` rounded to the gram (3 decimals, half away from zero), once, on the line. */
  @ApiProperty({ type: Number, example: 19704.026 })
  kg!: number;

  /** Sales units whose packaging carries this material (each unit counted once per material); null for a stream without a `uvc` unit (EPRO). */
  @ApiProperty({ type: Number, nullable: true, example: 48000 })
  uvc!: number | null;

  @ApiProperty({ type: [ContributionDto] })
  contributions!: ContributionDto[];
}

export class MaterialContributionDto {
  /** The material category code. */
  @ApiProperty({ example: 'glass' })
  material!: string;

  @ApiProperty({ type: LocalizedNameDto, nullable: true })
  material_name!: LocalizedNameDto | null;

  /** Elements of this material placed on the market: Σ units × per_unit. */
  @ApiProperty({ example: '48000', pattern: '^[0-9]+$' })
  elements!: string;

  /** Σ units × per_unit × weight_g / 1000, exact (up to 6 decimals), as a string. */
  @ApiProperty({ example: '19704', pattern: DECIMAL })
  kg!: string;
}

@ApiSchema({ description: 'What one product gives the derived declaration of a half-year, per material.' })
export class ProductContributionDto {
  @ApiProperty({ example: 'BTL-75-ROUGE' })
  reference!: string;

  @ApiProperty({ example: 'Vin rouge 75 cl' })
  name!: string;

  /** The version used: the latest `valid_from` not after the period. */
  @ApiProperty({ example: '2026-S1', pattern: PERIOD_PATTERN_TEXT })
  valid_from!: string;

  @ApiProperty({ example: 'EMB' })
  stream!: string;

  /** Units sold in the period, exact whole number as a string. */
  @ApiProperty({ example: '48000', pattern: '^[0-9]+$' })
  units!: string;

  /** Per material category, by code. */
  @ApiProperty({ type: [MaterialContributionDto] })
  materials!: MaterialContributionDto[];
}

export class ProductContributionPageDto {
  @ApiProperty({ example: '2026-S1', pattern: PERIOD_PATTERN_TEXT })
  period!: string;

  /** Products sold in the period with a version in force, by reference. */
  @ApiProperty({ type: [ProductContributionDto] })
  data!: ProductContributionDto[];

  @ApiProperty({ example: false })
  has_more!: boolean;

  @ApiProperty({ type: String, nullable: true, example: null })
  next_cursor!: string | null;

  static from(page: ProductContributionPage, names: Names): ProductContributionPageDto {
    return {
      period: page.period,
      data: page.items.map((row) => ({
        reference: row.reference,
        name: row.name,
        valid_from: row.validFrom,
        stream: row.stream,
        units: row.units,
        materials: row.materials.map((m) => ({ ...m, material_name: nameOf(names, row.stream, m.material) })),
      })),
      has_more: page.hasMore,
      next_cursor: page.nextCursor,
    };
  }
}

export class DerivedFilingDto {
  @ApiProperty({ format: 'uuid' })
  declaration_id!: string;

  @ApiProperty({ example: 1 })
  revision!: number;

  @ApiProperty({ example: '2026S1-R1-ABCD-EFGH' })
  receipt!: string;

  @ApiProperty({ enum: ['current', 'superseded'] })
  status!: 'current' | 'superseded';

  @ApiProperty({ example: '2026-07-02T08:00:00.000000Z' })
  derived_at!: string;
}

@ApiSchema({ description: 'The declaration computed from your catalogue and sales for a half-year, before (or after) it is filed.' })
export class DerivedDeclarationDto {
  @ApiProperty({ example: '2026-S1', pattern: PERIOD_PATTERN_TEXT })
  period!: string;

  /** Products with sales (units > 0) in the period and a version in force. */
  @ApiProperty({ example: 2 })
  products!: number;

  /**
   * Whether each line's `contributions` lists the products that gave it: true when at most 1,000
   * products did; beyond, the lines' `contributions` are empty and the per-product detail is read
   * page by page from `GET /api/v1/periods/{period}/derived-declaration/contributions`.
   */
  @ApiProperty({ example: true })
  contributions_included!: boolean;

  @ApiProperty({ type: [DerivedLineDto] })
  lines!: DerivedLineDto[];

  /** The declaration lines that `POST` would file, as `POST /api/v1/declarations` takes them. */
  @ApiProperty({
    type: 'array',
    items: {
      type: 'object',
      properties: { stream: { type: 'string' }, material: { type: 'string' }, unit: { type: 'string' }, quantity: { type: 'number' } },
    },
  })
  declaration_lines!: { stream: string; material: string; unit: string; quantity: number }[];

  /**
   * The consumer sales units of the half-year per stream that counts them (household packaging): the units sold of the
   * products with packaging in the stream, each product once whatever its materials; what `POST` files as `units_sold`.
   */
  @ApiProperty({
    type: 'array',
    items: { type: 'object', properties: { stream: { type: 'string', example: 'EMB' }, quantity: { type: 'integer', example: 90000 } } },
  })
  units_sold!: { stream: string; quantity: number }[];

  /** The latest revision filed from the catalogue for this period, if any. */
  @ApiProperty({ type: DerivedFilingDto, nullable: true })
  last_filed!: DerivedFilingDto | null;

  static from(derived: DerivedDeclaration, names: Names): DerivedDeclarationDto {
    const last = derived.lastFiled;
    return {
      period: derived.period,
      products: derived.products,
      contributions_included: derived.contributionsIncluded,
      lines: derived.lines.map((line) => ({
        stream: line.stream,
        material: line.material,
        material_name: nameOf(names, line.stream, line.material),
        kg_exact: line.kgExact,
        kg: Number(line.kgRounded),
        uvc: line.uvc === null ? null : Number(line.uvc),
        contributions: line.contributions.map((c) => ({
          reference: c.reference,
          name: c.name,
          valid_from: c.validFrom,
          units: c.units,
          elements: c.elements,
          kg: c.kg,
        })),
      })),
      declaration_lines: derived.declarationLines,
      units_sold: derived.unitsSold,
      last_filed: last
        ? {
            declaration_id: last.declarationId,
            revision: last.revision,
            receipt: last.receipt,
            status: last.status,
            derived_at: last.derivedAt,
          }
        : null,
    };
  }
}

export class FiledProductDto {
  @ApiProperty({ example: 'BTL-75-ROUGE' })
  reference!: string;

  @ApiProperty({ example: 'Vin rouge 75 cl' })
  name!: string;

  @ApiProperty({ type: String, nullable: true, example: '3017620422003' })
  gtin!: string | null;

  @ApiProperty({ example: '2026-S1', pattern: PERIOD_PATTERN_TEXT })
  valid_from!: string;

  @ApiProperty({ example: 'EMB' })
  stream!: string;

  /** Sales units of the period, exact whole number as a string. */
  @ApiProperty({ example: '48000', pattern: '^[0-9]+$' })
  units!: string;

  /** The packaging of one unit as filed (a version a filing used never changes). */
  @ApiProperty({ type: [PackagingElementDto] })
  elements!: PackagingElementDto[];

  static from(product: FiledProduct, names: Names): FiledProductDto {
    return {
      reference: product.reference,
      name: product.name,
      gtin: product.gtin,
      valid_from: product.validFrom,
      stream: product.stream,
      units: product.units,
      elements: product.elements.map((e) => PackagingElementDto.from(e, product.stream, names)),
    };
  }
}

@ApiSchema({
  description:
    "A declaration revision derived from a client's catalogue and sales, with the per-product detail a filing per consumer sales unit needs.",
})
export class DerivationDto {
  @ApiProperty({ format: 'uuid' })
  declaration_id!: string;

  @ApiProperty({ example: 'exemple-sas' })
  client_id!: string;

  @ApiProperty({ example: '2026-S1', pattern: PERIOD_PATTERN_TEXT })
  period!: string;

  @ApiProperty({ example: 1 })
  revision!: number;

  @ApiProperty({ example: '2026S1-R1-ABCD-EFGH' })
  receipt!: string;

  @ApiProperty({ example: '2026-07-02T08:00:00.000000Z' })
  derived_at!: string;

  @ApiProperty({ type: [FiledProductDto] })
  products!: FiledProductDto[];

  /** The JSON text of a derivation, written a chunk of products at a time as they are read. */
  static async *json(derivation: Derivation, names: Names): AsyncGenerator<string> {
    const opening = JSON.stringify({
      declaration_id: derivation.declarationId,
      client_id: derivation.clientId,
      period: derivation.period,
      revision: derivation.revision,
      receipt: derivation.receipt,
      derived_at: derivation.derivedAt,
      products: [],
    });
    yield opening.slice(0, -2);
    let separator = '';
    for await (const products of derivation.products) {
      yield `${separator}${products.map((p) => JSON.stringify(FiledProductDto.from(p, names))).join(',')}`;
      separator = ',';
    }
    yield ']}';
  }
}
