import { headerKey } from '../../common/csv/read-csv.js';
import { ExactNumber } from '../../common/http/json-body.js';
import type { FieldError } from '../../common/problem/problem.js';
import { MESSAGES } from '../../i18n/messages/index.js';
import { type DecimalSeparator, numberContext, readNumber } from '../../i18n/read-number.js';

/** The columns of a per-product file: one row per packaging element of a product. */
export const PRODUCT_FILE_FIELDS = ['product', 'units', 'element', 'material', 'weight_g', 'per_unit', 'stream'] as const;
export type ProductFileField = (typeof PRODUCT_FILE_FIELDS)[number];
/** The columns a file must have; `element` is her own label, `per_unit` is 1 when absent, `stream` the account's only one. */
export const REQUIRED_FIELDS: readonly ProductFileField[] = ['product', 'units', 'material', 'weight_g'];

/** Header names other than the templates' (the catalogues' `dashboardPages.productFile.columns`, in each language): what people write. */
const ALIASES: Readonly<Record<ProductFileField, readonly string[]>> = {
  product: [
    'products',
    'produits',
    'reference',
    MESSAGES.fr.files.columns.products.reference,
    MESSAGES.fr.files.columns.products.name,
    'designation',
    'nom',
    'name',
    'product name',
    'nom du produit',
    'article',
  ],
  units: [
    'units sold',
    'units',
    'uvc vendues',
    MESSAGES.fr.files.columns.sales.units,
    'uvc',
    'ventes',
    'sales',
    'quantité vendue',
    'units_sold',
  ],
  element: ['element', 'élément', 'composant', 'component', 'emballage', 'packaging'],
  material: ['matière', 'materiau'],
  weight_g: ['poids', 'weight', 'poids en g', 'poids (grammes)', 'grammes', 'grams', 'weight_g', 'poids_g', 'poids unitaire (g)'],
  per_unit: ['nombre', 'per unit', 'par uvc', 'nombre par unité', 'quantity per unit', 'per_unit', 'nombre_par_uvc'],
  stream: ['filiere', 'flux'],
};
const NAMES = Object.fromEntries(
  PRODUCT_FILE_FIELDS.map((field) => [
    field,
    [MESSAGES.en.dashboardPages.productFile.columns[field], MESSAGES.fr.dashboardPages.productFile.columns[field], ...ALIASES[field]],
  ]),
) as unknown as Record<ProductFileField, readonly string[]>;
const KEYS = new Map(
  PRODUCT_FILE_FIELDS.flatMap((field) => NAMES[field].map((name): [string, ProductFileField] => [headerKey(name), field])),
);

/** Which column (0-based) holds each field. */
export type ColumnMapping = Partial<Record<ProductFileField, number>>;

/** The fields the header names, by their known names in either language; and the required ones it lacks. */
export function recogniseColumns(header: readonly string[]): { mapping: ColumnMapping; missing: ProductFileField[] } {
  const mapping: ColumnMapping = {};
  header.forEach((cell, index) => {
    const field = KEYS.get(headerKey(cell));
    if (field !== undefined && mapping[field] === undefined) mapping[field] = index;
  });
  return { mapping, missing: REQUIRED_FIELDS.filter((field) => mapping[field] === undefined) };
}

/** A mapping remembered as header keys (what she calls each column) applied to a new header; undefined when a required one is not there. */
export function rememberedColumns(header: readonly string[], saved: Readonly<Record<string, string>>): ColumnMapping | undefined {
  const keys = header.map(headerKey);
  const mapping: ColumnMapping = {};
  for (const field of PRODUCT_FILE_FIELDS) {
    const key = Object.hasOwn(saved, field) ? saved[field] : undefined;
    if (key === undefined) continue;
    const index = keys.indexOf(key);
    if (index >= 0) mapping[field] = index;
  }
  return REQUIRED_FIELDS.every((field) => mapping[field] !== undefined) ? mapping : undefined;
}

/** The mapping as header keys, to remember. */
export function columnKeys(header: readonly string[], mapping: ColumnMapping): Record<string, string> {
  return Object.fromEntries(
    PRODUCT_FILE_FIELDS.filter((field) => mapping[field] !== undefined).map((field) => [field, headerKey(header[mapping[field]!] ?? '')]),
  );
}

/** Whether a mapping names each required field, each column once, within the header. */
export function validMapping(header: readonly string[], mapping: ColumnMapping): boolean {
  const used = PRODUCT_FILE_FIELDS.flatMap((field) => (mapping[field] === undefined ? [] : [mapping[field]]));
  return (
    REQUIRED_FIELDS.every((field) => mapping[field] !== undefined) &&
    used.every((index) => Number.isInteger(index) && index >= 0 && index < header.length) &&
    new Set(used).size === used.length
  );
}

/** One product of the file: the body the catalogue rules read, its units sold, and the rows it came from. */
export interface ProductSheet {
  /** `{ products }` as POST /api/v1/products takes it (stream and valid_from filled in). */
  body: { products: Record<string, unknown>[] };
  /** Per product: its units sold as read (text the rules refuse when not a number). */
  units: (ExactNumber | string | undefined)[];
  /** Per product: the row stating its units (its first row when none does), then the row of each element. */
  rows: { first: number; units: number; elements: number[] }[];
  /** The header cell of each field, to name the column in a message. */
  headers: Partial<Record<ProductFileField, string>>;
  /** Problems of the file itself (a row with no product above it, units stated twice differently), pointing at `/rows/N/field`. */
  errors: FieldError[];
}

/**
 * The rows of a per-product file (row 1 = header) as products. A row whose product cell is empty
 * belongs to the product above it; rows naming the same product, wherever they are, are one product.
 * The units sold may be on every row of a product or on one of them (the first, usually); stated
 * twice, they must agree. A row with a product and units but no material, weight or element states
 * the units only. Numbers as people write them (« 60 000 », « 45,5 »), each column read with the
 * evidence of all its cells.
 */
export function readProductSheet(
  rows: readonly (readonly string[])[],
  mapping: ColumnMapping,
  defaults: { stream: string | undefined; period: string; convention: DecimalSeparator | undefined },
): ProductSheet {
  const header = rows[0] ?? [];
  const cell = (row: readonly string[], field: ProductFileField) =>
    mapping[field] === undefined ? '' : (row[mapping[field]] ?? '').trim();
  const headers = Object.fromEntries(
    PRODUCT_FILE_FIELDS.filter((field) => mapping[field] !== undefined).map((field) => [field, header[mapping[field]!] ?? '']),
  ) as ProductSheet['headers'];
  const context = (field: ProductFileField) => ({
    ...numberContext(rows.slice(1).map((row) => cell(row, field))),
    convention: defaults.convention,
  });
  const contexts = { units: context('units'), weight_g: context('weight_g'), per_unit: context('per_unit') };
  const number = (text: string, field: 'units' | 'weight_g' | 'per_unit'): ExactNumber | string => {
    const read = readNumber(text, contexts[field]);
    return read.ok ? new ExactNumber(read.value) : text;
  };
  const sheet: ProductSheet = { body: { products: [] }, units: [], rows: [], headers, errors: [] };
  const byName = new Map<string, number>();
  let current: number | undefined;
  rows.forEach((cells, index) => {
    if (index === 0) return;
    const row = index + 1;
    if (cells.every((text) => text.trim() === '')) return;
    const name = cell(cells, 'product');
    const units = cell(cells, 'units');
    const stream = cell(cells, 'stream');
    if (name !== '') {
      current = byName.get(name.toLowerCase());
      if (current === undefined) {
        current = sheet.body.products.length;
        byName.set(name.toLowerCase(), current);
        sheet.body.products.push({
          reference: name,
          name,
          stream: stream !== '' ? stream : defaults.stream,
          valid_from: defaults.period,
          elements: [],
        });
        sheet.units.push(undefined);
        sheet.rows.push({ first: row, units: row, elements: [] });
      }
    } else if (current === undefined) {
      sheet.errors.push({
        pointer: `/rows/${row}/product`,
        code: 'product_missing',
        detail: `row ${row}: no product is named on this row or above it`,
        row,
        params: { field: 'product', column: headers.product ?? '' },
      });
      return;
    }
    const at = current;
    if (units !== '') {
      const read = number(units, 'units');
      const before = sheet.units[at];
      if (before === undefined) {
        sheet.units[at] = read;
        sheet.rows[at]!.units = row;
      } else if (String(before) !== String(read)) {
        sheet.errors.push({
          pointer: `/rows/${row}/units`,
          code: 'inconsistent_units',
          detail: `row ${row}: the units sold differ from row ${sheet.rows[at]!.units}, of the same product`,
          row,
          params: { field: 'units', column: headers.units ?? '', first: sheet.rows[at]!.units },
        });
      }
    }
    const material = cell(cells, 'material');
    const weight = cell(cells, 'weight_g');
    const perUnit = cell(cells, 'per_unit');
    // A row stating the product's units alone carries no element.
    if (material === '' && weight === '' && perUnit === '' && cell(cells, 'element') === '') return;
    const element: Record<string, unknown> = {};
    if (material !== '') element.material = material;
    if (weight !== '') element.weight_g = number(weight, 'weight_g');
    if (perUnit !== '') element.per_unit = number(perUnit, 'per_unit');
    (sheet.body.products[at]!.elements as unknown[]).push(element);
    sheet.rows[at]!.elements.push(row);
  });
  return sheet;
}
