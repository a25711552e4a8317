import type { CsvDialectName } from '../common/csv/csv-dialect.js';
import type { FieldError } from '../common/problem/problem.js';
import { csvHeader } from '../i18n/csv-columns.js';
import type { SnapshotQuery } from '../database/streamed-query.js';
import type { ReferenceCatalogue } from '../reference/reference-catalogue.js';

/**
 * `detail=products` on the operator's period and annual exports: for each declaration derived from a
 * client's catalogue and sales, the product versions it used, their units sold and their packaging
 * elements with the kg each gave, read in the export's own snapshot, a bounded chunk of products at a time. The
 * versions a filing used never change (products/ refuses to replace them; foreign keys RESTRICT their
 * deletion), so what is read is what was filed.
 */
export type ExportDetail = 'products';

export const EXPORT_DETAILS: readonly ExportDetail[] = ['products'];

/** The `detail` query parameter as the OpenAPI document describes it (the period and the annual exports). */
export const EXPORT_DETAIL_QUERY = {
  name: 'detail',
  required: false,
  description:
    '`products`: add, for each declaration derived from the client’s product catalogue and sales (`POST /api/v1/periods/{period}/derived-declaration`), ' +
    'the product versions it used with their units sold in the half-year and each packaging element (material, grams, elements per unit, kg, EPRO category and reuse status): ' +
    'what a filing per consumer sales unit needs. Absent: the export without it, unchanged. Anything else: 422 `invalid_export_detail`, pointer `/query/detail`.',
  schema: { type: 'string' as const, enum: [...EXPORT_DETAILS] },
};

/** The problems of a `detail` query parameter (none when absent or `products`). */
export function exportDetailErrors(value: unknown): FieldError[] {
  if (value === undefined || (typeof value === 'string' && (EXPORT_DETAILS as readonly string[]).includes(value))) return [];
  return [
    {
      pointer: '/query/detail',
      code: 'invalid_export_detail',
      detail: `must be one of: ${EXPORT_DETAILS.join(', ')}`,
      params: { listed: [...EXPORT_DETAILS] },
    },
  ];
}

/** The detail a checked `detail` parameter asks for. */
export const exportDetail = (value: unknown): ExportDetail | undefined => (value === 'products' ? 'products' : undefined);

/** One packaging element of a product version a derived declaration used (one row of the detail). */
export interface ProductElementRow {
  reference: string;
  name: string;
  gtin: string | null;
  validFrom: string;
  stream: string;
  /** Units sold in the period (whole number as text). */
  units: string;
  position: number;
  materialCode: string;
  /** Grams of one element, exact, trailing zeros trimmed. */
  weightG: string;
  perUnit: number;
  /** units × per_unit × grams / 1000, exact (up to 6 decimals), trailing zeros trimmed. */
  kg: string;
  packagingCategory: string | null;
  reuseStatus: string | null;
}

/** Product versions read per statement of the detail: at most 100 × 20 elements in the process, and no statement sorts more. */
export const PRODUCTS_PER_CHUNK = 100;

/**
 * The packaging elements of the product versions the derived declaration `$1` of the client `$2`
 * used, for the products with a reference after `$3`, at most `$4` of them: one row per element (by
 * reference, then position; a version without elements gives one row with a null position), each
 * with the eco-organism set for the client and the version's stream and whether it is `$5` (always,
 * when `$5` is null). The client's products' index is walked in order and stopped at `$4`, so that no
 * statement sorts the whole catalogue (as the operator's derivation). Units are the same on every
 * contribution of a version (one per material): max() takes them once. kg multiplies by 0.001 rather
 * than dividing by 1000: numeric multiplication is exact.
 */
const PRODUCT_ELEMENTS_CHUNK = `
  WITH used AS (
    SELECT p.reference, v.id, v.name, v.gtin, v.valid_from, v.stream, v.units
      FROM products p
      CROSS JOIN LATERAL (SELECT v.id, v.name, v.gtin, v.valid_from, v.stream,
                                 (SELECT max(c.units) FROM declaration_derivation_contributions c WHERE c.declaration_id = $1 AND c.version_id = v.id) AS units
                            FROM product_versions v WHERE v.product_id = p.id) v
     WHERE p.client_id = $2 AND p.mode = 'live' AND p.reference > $3 AND v.units IS NOT NULL
     ORDER BY p.reference LIMIT $4)
  SELECT u.reference, u.name, u.gtin, u.valid_from AS "validFrom", u.stream, u.units::text AS units, e.position,
         e.material_code AS "materialCode", trim_scale(e.weight_g)::text AS "weightG", e.per_unit AS "perUnit",
         trim_scale(u.units * e.per_unit * e.weight_g * 0.001)::text AS kg,
         e.packaging_category AS "packagingCategory", e.reuse_status AS "reuseStatus",
         cs.eco_organism AS "ecoOrganism", ($5::text IS NULL OR cs.eco_organism = $5) AS kept
    FROM used u
    LEFT JOIN product_elements e ON e.version_id = u.id
    LEFT JOIN client_streams cs ON cs.client_id = $2 AND cs.stream = u.stream
   ORDER BY u.reference, e.position`;

/** A row of PRODUCT_ELEMENTS_CHUNK. */
type ChunkRow = Omit<ProductElementRow, 'position'> & { position: number | null; ecoOrganism: string | null; kept: boolean };

/** One packaging element of a product version a derived declaration used, with the eco-organism of its stream. */
export type ProductElementOfClient = ProductElementRow & { ecoOrganism: string | null };

/**
 * The packaging elements of the product versions the derived declaration `declarationId` of the
 * client `clientId` used (those of a stream set to the eco-organism `eco`, when not null), by
 * reference then position, read PRODUCTS_PER_CHUNK products a statement in the snapshot of `query`.
 * Returns whether it found any element at all (of any stream).
 */
export async function* productElements(
  query: SnapshotQuery,
  declarationId: string,
  clientId: string,
  eco: string | null = null,
): AsyncGenerator<ProductElementOfClient, boolean> {
  let after = '';
  let any = false;
  for (;;) {
    const rows = await query<ChunkRow>(PRODUCT_ELEMENTS_CHUNK, [declarationId, clientId, after, PRODUCTS_PER_CHUNK, eco]);
    let products = 0;
    for (const { kept, ...row } of rows) {
      if (row.reference !== after) {
        products++;
        after = row.reference;
      }
      if (row.position === null) continue;
      any = true;
      if (kept) yield row as ProductElementOfClient;
    }
    if (products < PRODUCTS_PER_CHUNK) return any;
  }
}

/** A product version and its elements as the JSON exports write it (`ExportProductDto`). */
export function productJson(elements: ProductElementRow[], catalogue: ReferenceCatalogue) {
  const first = elements[0]!;
  return {
    reference: first.reference,
    name: first.name,
    gtin: first.gtin,
    valid_from: first.validFrom,
    stream: first.stream,
    units: first.units,
    elements: elements.map((e) => {
      const name = catalogue.categoryName(e.stream, e.materialCode);
      return {
        material_category: e.materialCode,
        material_name: name ? { fr: name.fr, en: name.en } : null,
        weight_g: e.weightG,
        per_unit: e.perUnit,
        kg: e.kg,
        packaging_category: e.packagingCategory,
        reuse_status: e.reuseStatus,
      };
    }),
  };
}

/** The product columns of the CSV exports with `detail=products`, after the export's own columns, by code. */
export const PRODUCT_COLUMN_CODES = [
  'product_reference',
  'product_name',
  'gtin',
  'product_valid_from',
  'units',
  'weight_g',
  'per_unit',
  'packaging_category',
  'reuse_status',
] as const;

/** Their headers in each dialect's words, from the catalogue of its language (`files.columns.productDetail`). */
export const PRODUCT_CSV_COLUMNS: Readonly<Record<CsvDialectName, readonly string[]>> = {
  en: csvHeader('productDetail', PRODUCT_COLUMN_CODES, 'en'),
  fr: csvHeader('productDetail', PRODUCT_COLUMN_CODES, 'fr'),
};

/** An element's product cells, in the order of PRODUCT_COLUMN_CODES; `decimal` writes an exact decimal text in the dialect. */
export const productCells = (e: ProductElementRow, decimal: (value: string) => string): string[] => [
  e.reference,
  e.name,
  e.gtin ?? '',
  e.validFrom,
  e.units,
  decimal(e.weightG),
  String(e.perUnit),
  e.packagingCategory ?? '',
  e.reuseStatus ?? '',
];

/** As many empty cells as product columns (a row that is no product element). */
export const NO_PRODUCT_CELLS: readonly string[] = PRODUCT_COLUMN_CODES.map(() => '');
