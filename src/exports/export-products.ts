import type { CsvDialectName } from '../common/csv/csv-dialect.js';
import { perLanguage } from '../i18n/languages.js';
import type { FieldError } from '../common/problem/problem.js';
import { csvHeader } from '../i18n/csv-columns.js';
import type { SnapshotQuery } from '../database/streamed-query.js';
import type { ReferenceCatalogue } from '../reference/reference-catalogue.js';
import { type ProductElementRow, usedProductElements } from '../products/used-products.read-model.js';

/**
 * `detail=products` on the operator's period and annual exports: for each declaration derived from a
 * client's catalogue and sales, the product versions it used, their units sold and their packaging
 * elements with the kg each gave, read in the export's own snapshot through products/'s read model
 * (products/used-products.read-model.ts), a bounded chunk of products at a time.
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

export type { ProductElementRow };

/** The eco-organism set for each stream of the client `$1` (accounts' settings, read in the export's snapshot). */
const CLIENT_ECO_ORGANISMS = `SELECT stream, eco_organism AS "ecoOrganism" FROM client_streams WHERE client_id = $1`;

/** One packaging element of a product version a derived declaration used, with the eco-organism of its stream. */
export type ProductElementOfClient = ProductElementRow & { ecoOrganism: string | null };

/**
 * The packaging elements of the product versions the derived declaration `declarationId` of the
 * client `clientId` used (those of a stream set to the eco-organism `eco`, when not null), by
 * reference then position, as products/ reads them in the snapshot of `query`. Returns whether it
 * found any element at all (of any stream).
 */
export async function* productElements(
  query: SnapshotQuery,
  declarationId: string,
  clientId: string,
  eco: string | null = null,
): AsyncGenerator<ProductElementOfClient, boolean> {
  const rows = await query<{ stream: string; ecoOrganism: string | null }>(CLIENT_ECO_ORGANISMS, [clientId]);
  const ecoOf = new Map(rows.map((row) => [row.stream, row.ecoOrganism]));
  const elements = usedProductElements(query, declarationId, clientId);
  for (;;) {
    const next = await elements.next();
    if (next.done) return next.value;
    const ecoOrganism = ecoOf.get(next.value.stream) ?? null;
    if (eco === null || ecoOrganism === eco) yield { ...next.value, ecoOrganism };
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
export const PRODUCT_CSV_COLUMNS: Readonly<Record<CsvDialectName, readonly string[]>> = perLanguage((language) =>
  csvHeader('productDetail', PRODUCT_COLUMN_CODES, language),
);

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
