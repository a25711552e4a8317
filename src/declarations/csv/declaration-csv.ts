import { ExactNumber } from '../../common/http/json-body.js';
import type { FieldError, FieldErrorParam } from '../../common/problem/problem.js';
import { type CsvCharset, type CsvColumns, decodeCsv, readCsvTable } from '../../common/csv/read-csv.js';
import { COMMENT_MARK, CSV_COLUMNS } from '../../common/csv/declaration-file.js';
import { csvHeaderNames } from '../../i18n/csv-columns.js';
import { type NumberContext, type NumberProblemCode, numberContext, readNumber } from '../../i18n/read-number.js';

type Column = (typeof CSV_COLUMNS)[number];

/** A declaration file as sent: its bytes and the charset its Content-Type names, if any. */
export interface DeclarationFile {
  bytes: Buffer;
  charset: CsvCharset | undefined;
}

/**
 * The columns of a declaration file and their header names, English then French from the catalogues
 * (compared ignoring case and accents); rows starting with `#` are comments (the template's examples).
 */
export const DECLARATION_COLUMNS: CsvColumns<Column> = {
  columns: CSV_COLUMNS,
  names: csvHeaderNames('declaration', CSV_COLUMNS),
  comment: COMMENT_MARK,
};

/** A declaration file read as the JSON body it stands for, and where each of its lines came from. */
export interface DeclarationSheet {
  /**
   * `{ period, lines, units_sold? }` for the validator; quantities as written (decimal comma made a point).
   * A row in `uvc` without a material states the stream's units sold (UNITS_SOLD_ROW).
   */
  body: { period: string | undefined; lines: Record<string, unknown>[]; units_sold?: Record<string, unknown>[] };
  /** Spreadsheet row number (header = 1) of each line of `body.lines`. */
  rows: number[];
  /** Spreadsheet row number of each entry of `body.units_sold`. */
  unitsSoldRows: number[];
  /** Cells that cannot stand for a value at all (pointers `/rows/<row>/<column>`). */
  errors: FieldError[];
  /** Rows skipped as comments (`#`, the template's examples). */
  comments: number;
}

/**
 * A declaration file as the JSON body it stands for (common/csv/read-csv.ts reads it as a table:
 * either separator, rows numbered as a spreadsheet shows them, blank rows ignored). A file that
 * cannot be read as a table of these columns is refused whole (415 or 422, saying how to fix it);
 * cells that cannot stand for a value are reported in `errors`, with the validator's findings.
 */
export function readDeclarationCsv(file: DeclarationFile, period: string | undefined, maxLines: number): DeclarationSheet {
  const text = decodeCsv(file.bytes, file.charset, 'application/json, text/csv');
  const table = readCsvTable(text, DECLARATION_COLUMNS, maxLines);
  const sheet: DeclarationSheet = {
    body: { period, lines: [] },
    rows: [],
    unitsSoldRows: [],
    errors: [...table.errors],
    comments: table.comments,
  };
  // The evidence of every quantity of the file at once: "1.200" is 1200 in a file that writes "12,5" elsewhere.
  const context = numberContext(
    table.records.slice(0, maxLines).map(({ cells }) => (typeof cells.quantity === 'string' ? cells.quantity : '')),
  );
  for (const { row, cells } of table.records) {
    if (sheet.rows.length === maxLines) {
      sheet.errors.push({
        pointer: `/rows/${row}`,
        code: 'too_many_lines',
        detail: `row ${row}: a declaration has at most ${maxLines} lines; this row is line ${maxLines + 1}`,
        row,
        params: { max: maxLines },
      });
      break;
    }
    // The table is this function's own: its cells become the line (the quantity read as a number).
    const line: Record<string, unknown> = cells;
    if (typeof line.quantity === 'string') line.quantity = quantityOf(line.quantity, context, row, sheet.errors);
    if (isUnitsSoldRow(cells)) {
      (sheet.body.units_sold ??= []).push({ stream: line.stream, quantity: line.quantity });
      sheet.unitsSoldRows.push(row);
      continue;
    }
    sheet.body.lines.push(line);
    sheet.rows.push(row);
  }
  // In the order of the file.
  sheet.errors.sort((a, b) => (a.row ?? 0) - (b.row ?? 0));
  return sheet;
}

/**
 * A row of the file that states a stream's consumer sales units rather than a material's: unit `uvc`,
 * material cell empty (`EMB;;uvc;90000`). Every unit counted once, whatever its materials.
 */
export const UNITS_SOLD_UNIT = 'uvc';
const isUnitsSoldRow = (cells: Partial<Record<Column, string>>) =>
  cells.material === undefined && cells.unit !== undefined && cells.unit.trim().toLowerCase() === UNITS_SOLD_UNIT;

/**
 * The number a quantity cell writes, as people write it (`readNumber`: "1 200,5", "1.200,5",
 * "4 800" with the no-break spaces Excel writes), kept exactly; a cell that cannot be read for sure
 * is reported with why and what to write.
 */
function quantityOf(cell: string, context: NumberContext, row: number, errors: FieldError[]): ExactNumber | string {
  const read = readNumber(cell, context);
  if (read.ok) return new ExactNumber(read.value);
  errors.push({
    pointer: `/rows/${row}/quantity`,
    code: read.code,
    detail: `row ${row}: quantity "${read.params.value}" ${NUMBER_DETAILS[read.code]}`,
    row,
    params: { ...read.params, field: 'quantity' },
  });
  return cell;
}

/** The API's English detail of each number problem (people read the catalogue's messages). */
const NUMBER_DETAILS: Record<NumberProblemCode, string> = {
  number_empty: 'is empty: write the quantity in digits, e.g. 1200.5',
  number_has_unit: 'holds a unit or symbol: write the number alone, e.g. 1200.5',
  number_scientific: 'is in scientific notation (rounded by a spreadsheet): write the whole number, e.g. 1200000',
  number_grouping: 'groups its thousands wrongly: groups of three digits, e.g. 1 200 000.5',
  number_ambiguous: 'can be read two ways (thousands or decimals): write it without a thousands separator, e.g. 1200 or 1.2',
  number_invalid: 'is not a number: write digits with a decimal point or comma, e.g. 1200.5',
};

/** A line error's params at the file's cells: its row instead of its line, other lines as their rows. */
function paramsAtRows(sheet: DeclarationSheet, params: FieldError['params']): FieldError['params'] {
  if (!params) return params;
  const atRows: Record<string, FieldErrorParam | undefined> = {};
  for (const key in params) if (key !== 'line' && key !== 'lines') atRows[key] = params[key];
  if (Array.isArray(params.lines)) atRows.rows = (params.lines as number[]).map((at) => sheet.rows[at - 1]!);
  return atRows;
}

/** `/lines/3/unit` with prefix `/lines/` → 3 and `/unit` (what follows the index, from a `/`, or nothing); else undefined. */
function indexed(pointer: string, prefix: string): { index: number; rest: string } | undefined {
  if (!pointer.startsWith(prefix)) return undefined;
  let end = prefix.length;
  while (end < pointer.length && pointer.charCodeAt(end) >= 0x30 && pointer.charCodeAt(end) <= 0x39) end++;
  if (end === prefix.length || (end < pointer.length && pointer.charCodeAt(end) !== 0x2f)) return undefined;
  const rest = pointer.slice(end);
  return LINE_BREAK.test(rest) ? undefined : { index: Number(pointer.slice(prefix.length, end)), rest };
}
const LINE_BREAK = /[\n\r\u2028\u2029]/;

/**
 * The validator's errors, which point into `body`, pointed at the file's cells instead: `/lines/3/unit`
 * → `/rows/5/unit` (with `row`), `/period` → `/query/period`. A cell already reported by the reader
 * keeps the reader's error only.
 */
export function pointAtCells(sheet: DeclarationSheet, errors: FieldError[]): FieldError[] {
  const read = new Set(sheet.errors.map((error) => error.pointer));
  const mapped = errors.map((error): FieldError => {
    const sold = indexed(error.pointer, '/units_sold/');
    if (sold) {
      const row = sheet.unitsSoldRows[sold.index]!;
      return {
        pointer: `/rows/${row}${sold.rest}`,
        code: error.code,
        detail: `row ${row}: ${error.detail}`,
        row,
        params: error.params,
      };
    }
    const line = indexed(error.pointer, '/lines/');
    if (line) {
      const row = sheet.rows[line.index]!;
      return {
        pointer: `/rows/${row}${line.rest}`,
        code: error.code,
        detail: `row ${row}: ${error.detail}`,
        row,
        params: paramsAtRows(sheet, error.params),
      };
    }
    // No line, but comment rows: most likely the template's examples, left commented.
    if (error.pointer === '/lines' && error.code === 'too_few_lines' && sheet.comments > 0) {
      return {
        ...error,
        pointer: '/rows',
        detail: `${error.detail}; the file's ${sheet.comments} row(s) starting with # are comments, which are not read: remove the # of the examples you keep`,
        params: { ...error.params, comments: sheet.comments },
      };
    }
    if (error.pointer === '/lines') return { ...error, pointer: '/rows' };
    if (error.pointer === '/period')
      return { ...error, pointer: '/query/period', detail: `${error.detail} (in the address: ?period=2025-S1)` };
    return error;
  });
  const all = [...sheet.errors, ...mapped.filter((error) => !read.has(error.pointer))];
  // In the order of the file: whole-file problems first, then by row (stable within a row).
  return all.sort((a, b) => (a.row ?? 0) - (b.row ?? 0));
}
