import { type CsvCharset, type CsvColumns, decodeCsv, readCsvTable } from '../../common/csv/read-csv.js';
import { ExactNumber } from '../../common/http/json-body.js';
import type { FieldError } from '../../common/problem/problem.js';
import { csvHeaderNames } from '../../i18n/csv-columns.js';
import { numberContext, readNumber } from '../../i18n/read-number.js';

/** A CSV body as sent: its bytes and the charset its Content-Type names, if any. */
export interface CsvFile {
  bytes: Buffer;
  charset: CsvCharset | undefined;
}

/** The columns of a catalogue file, in the order the service writes them: one row per packaging element. */
export const PRODUCT_CSV_COLUMNS = [
  'reference',
  'name',
  'stream',
  'gtin',
  'valid_from',
  'material',
  'weight_g',
  'per_unit',
  'packaging_category',
  'reuse_status',
] as const;
type ProductColumn = (typeof PRODUCT_CSV_COLUMNS)[number];

/** Header names, English then French from the catalogues (compared ignoring case and accents), then other spellings accepted. */
export const PRODUCT_COLUMNS: CsvColumns<ProductColumn> = {
  columns: PRODUCT_CSV_COLUMNS,
  optional: ['gtin', 'per_unit', 'packaging_category', 'reuse_status'],
  names: csvHeaderNames('products', PRODUCT_CSV_COLUMNS, {
    name: ['nom'],
    gtin: ['ean'],
    valid_from: ['valable à partir de'],
    weight_g: ['poids_g', 'poids'],
    per_unit: ['nombre_par_uvc', 'nombre par unité'],
    packaging_category: ["catégorie d'emballage", 'categorie_emballage'],
    reuse_status: ['statut_reemploi'],
  }),
};

export const SALE_CSV_COLUMNS = ['reference', 'units'] as const;
type SaleColumn = (typeof SALE_CSV_COLUMNS)[number];
export const SALE_COLUMNS: CsvColumns<SaleColumn> = {
  columns: SALE_CSV_COLUMNS,
  names: csvHeaderNames('sales', SALE_CSV_COLUMNS, { units: ['unités', 'uvc'] }),
};

/** A file read as the JSON body it stands for, and the spreadsheet rows each item came from. */
export interface Sheet<B> {
  body: B;
  /** Per product (or sale): the row of each of its elements (a sale: one row). */
  rows: number[][];
  errors: FieldError[];
}

const JSON_NUMBER = /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/;

/** A number cell as written (decimal comma allowed in a semicolon file), kept exact; else the text, which the rules refuse. */
function numberOf(cell: string | undefined, delimiter: string): ExactNumber | string | undefined {
  if (cell === undefined) return undefined;
  const written = delimiter === ';' && !cell.includes('.') ? cell.replace(/^(-?\d+),(\d+)$/, '$1.$2') : cell;
  return JSON_NUMBER.test(written) ? new ExactNumber(written) : cell;
}

/**
 * A catalogue file (one row per packaging element; a product's rows repeat its reference, name,
 * stream, GTIN and valid_from) as the JSON body `{ products }` it stands for. The rows of one
 * product version are those of one reference and valid_from, wherever they are in the file.
 */
export function readProductCsv(file: CsvFile, maxRows: number): Sheet<{ products: Record<string, unknown>[] }> {
  const text = decodeCsv(file.bytes, file.charset, 'application/json, text/csv');
  const table = readCsvTable(text, PRODUCT_COLUMNS, maxRows);
  const sheet: Sheet<{ products: Record<string, unknown>[] }> = { body: { products: [] }, rows: [], errors: [...table.errors] };
  const byKey = new Map<string, number>();
  for (const { row, cells } of table.records) {
    const key = `${cells.reference ?? ''}\u0000${cells.valid_from ?? ''}`;
    let index = byKey.get(key);
    const element: Record<string, unknown> = { material: cells.material, weight_g: numberOf(cells.weight_g, table.delimiter) };
    if (cells.per_unit !== undefined) element.per_unit = numberOf(cells.per_unit, table.delimiter);
    if (cells.packaging_category !== undefined) element.packaging_category = cells.packaging_category;
    if (cells.reuse_status !== undefined) element.reuse_status = cells.reuse_status;
    if (index === undefined) {
      index = sheet.body.products.length;
      byKey.set(key, index);
      const product: Record<string, unknown> = {
        reference: cells.reference,
        name: cells.name,
        stream: cells.stream,
        valid_from: cells.valid_from,
        elements: [],
      };
      if (cells.gtin !== undefined) product.gtin = cells.gtin;
      sheet.body.products.push(product);
      sheet.rows.push([]);
    } else {
      const product = sheet.body.products[index]!;
      for (const column of ['name', 'stream', 'gtin'] as const) {
        if ((cells[column] ?? undefined) !== product[column]) {
          sheet.errors.push({
            pointer: `/rows/${row}/${column}`,
            code: 'inconsistent_product',
            detail: `row ${row}: ${column} differs from row ${sheet.rows[index]![0]}, the first row of product ${String(cells.reference)} (${String(cells.valid_from)}); every row of one product repeats the same ${column}`,
            row,
            params: { field: column, first: sheet.rows[index]![0]! },
          });
        }
      }
    }
    (sheet.body.products[index]!.elements as unknown[]).push(element);
    sheet.rows[index]!.push(row);
  }
  sheet.errors.sort((a, b) => (a.row ?? 0) - (b.row ?? 0));
  return sheet;
}

/** A sales file (reference, units) as the JSON body `{ sales }` it stands for. */
export function readSaleCsv(file: CsvFile, maxRows: number): Sheet<{ sales: Record<string, unknown>[] }> {
  const text = decodeCsv(file.bytes, file.charset, 'application/json, text/csv');
  const table = readCsvTable(text, SALE_COLUMNS, maxRows);
  const sheet: Sheet<{ sales: Record<string, unknown>[] }> = { body: { sales: [] }, rows: [], errors: [...table.errors] };
  // Units as people write them ("60 000", "1.200" in a file that writes "1 200,5" elsewhere), read as the
  // declaration upload reads its quantities; the rules keep whole numbers only.
  const context = numberContext(table.records.map(({ cells }) => cells.units ?? ''));
  for (const { row, cells } of table.records) {
    const read = cells.units === undefined ? undefined : readNumber(cells.units, context);
    const units = read === undefined ? undefined : read.ok ? new ExactNumber(read.value) : cells.units;
    sheet.body.sales.push({ reference: cells.reference, units });
    sheet.rows.push([row]);
  }
  return sheet;
}

/**
 * The rules' errors, which point into the body, pointed at the file's cells instead:
 * `/products/3/elements/1/weight_g` → `/rows/7/weight_g`, `/products/3/name` → the product's first
 * row, `/sales/2/units` → `/rows/4/units`; `/products` → `/rows`. A cell the reader already
 * reported keeps the reader's error only. In the order of the file.
 */
export function pointAtRows(sheet: Sheet<unknown>, errors: FieldError[]): FieldError[] {
  const read = new Set(sheet.errors.map((error) => error.pointer));
  const mapped = errors.map((error): FieldError => {
    const match = /^\/(?:products|sales)\/(\d+)(?:\/elements\/(\d+))?(\/[^/]*)?$/.exec(error.pointer);
    if (match) {
      const rows = sheet.rows[Number(match[1])]!;
      const row = match[2] !== undefined ? rows[Number(match[2])]! : rows[0]!;
      const column = match[3] ?? '';
      const { line: _line, element: _element, ...params } = (error.params ?? {}) as Record<string, never>;
      return { pointer: `/rows/${row}${column}`, code: error.code, detail: `row ${row}: ${error.detail}`, row, params };
    }
    if (error.pointer === '/products' || error.pointer === '/sales') return { ...error, pointer: '/rows' };
    return error;
  });
  return [...sheet.errors, ...mapped.filter((error) => !read.has(error.pointer))].sort((a, b) => (a.row ?? 0) - (b.row ?? 0));
}
