import { ExactNumber } from '../../common/http/json-body.js';
import type { FieldError } from '../../common/problem/problem.js';
import { type CsvCharset, type CsvColumns, decodeCsv, readCsvTable } from '../../common/csv/read-csv.js';
import { CSV_COLUMNS } from './declaration-csv-writer.js';

type Column = (typeof CSV_COLUMNS)[number];

/** A declaration file as sent: its bytes and the charset its Content-Type names, if any. */
export interface DeclarationFile {
  bytes: Buffer;
  charset: CsvCharset | undefined;
}

/** The columns of a declaration file and their header names, English then French (compared ignoring case and accents). */
export const DECLARATION_COLUMNS: CsvColumns<Column> = {
  columns: CSV_COLUMNS,
  names: { stream: ['stream', 'flux'], material: ['material', 'matériau'], unit: ['unit', 'unité'], quantity: ['quantity', 'quantité'] },
};

/** A declaration file read as the JSON body it stands for, and where each of its lines came from. */
export interface DeclarationSheet {
  /** `{ period, lines }` for the validator; quantities as written (decimal comma made a point). */
  body: { period: string | undefined; lines: Record<string, unknown>[] };
  /** Spreadsheet row number (header = 1) of each line of `body.lines`. */
  rows: number[];
  /** Cells that cannot stand for a value at all (pointers `/rows/<row>/<column>`). */
  errors: FieldError[];
}

const JSON_NUMBER = /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/;

/**
 * A declaration file as the JSON body it stands for (common/csv/read-csv.ts reads it as a table:
 * either separator, rows numbered as a spreadsheet shows them, blank rows ignored). A file that
 * cannot be read as a table of these columns is refused whole (415 or 422, saying how to fix it);
 * cells that cannot stand for a value are reported in `errors`, with the validator's findings.
 */
export function readDeclarationCsv(file: DeclarationFile, period: string | undefined, maxLines: number): DeclarationSheet {
  const text = decodeCsv(file.bytes, file.charset, 'application/json, text/csv');
  const table = readCsvTable(text, DECLARATION_COLUMNS, maxLines);
  const sheet: DeclarationSheet = { body: { period, lines: [] }, rows: [], errors: [...table.errors] };
  for (const { row, cells } of table.records) {
    if (sheet.rows.length === maxLines) {
      sheet.errors.push({ pointer: `/rows/${row}`, code: 'too_many_lines', detail: `row ${row}: a declaration has at most ${maxLines} lines; this row is line ${maxLines + 1}`, row, params: { max: maxLines } });
      break;
    }
    const line: Record<string, unknown> = { ...cells };
    if (typeof line.quantity === 'string') line.quantity = quantityOf(line.quantity, table.delimiter, row, sheet.errors);
    sheet.body.lines.push(line);
    sheet.rows.push(row);
  }
  // In the order of the file.
  sheet.errors.sort((a, b) => (a.row ?? 0) - (b.row ?? 0));
  return sheet;
}

/** The number a quantity cell writes (decimal comma allowed in a semicolon-separated file), kept exactly as written. */
function quantityOf(cell: string, delimiter: string, row: number, errors: FieldError[]): ExactNumber | string {
  const written = delimiter === ';' && !cell.includes('.') ? cell.replace(/^(-?\d+),(\d+)$/, '$1.$2') : cell;
  if (JSON_NUMBER.test(written)) return new ExactNumber(written);
  const hint =
    delimiter === ',' && /^\d+,\d+$/.test(cell)
      ? 'in a comma-separated file write decimals with a point (1200.5), or separate cells with semicolons'
      : 'write digits with a decimal point or comma and no thousands separator or unit, e.g. 1200.5 (or 1200,5 in a semicolon-separated file)';
  errors.push({
    pointer: `/rows/${row}/quantity`,
    code: 'quantity_not_a_number',
    detail: `row ${row}: quantity "${cell}" is not a number: ${hint}`,
    row,
    params: { field: 'quantity', value: cell.length > 40 ? `${cell.slice(0, 39)}…` : cell, delimiter: delimiter as ',' | ';' },
  });
  return cell;
}

/** A line error's params at the file's cells: its row instead of its line, other lines as their rows. */
function paramsAtRows(sheet: DeclarationSheet, params: FieldError['params']): FieldError['params'] {
  if (!params) return params;
  const { line: _line, lines, ...rest } = params;
  return Array.isArray(lines) ? { ...rest, rows: (lines as number[]).map((at) => sheet.rows[at - 1]!) } : rest;
}

/**
 * The validator's errors, which point into `body`, pointed at the file's cells instead: `/lines/3/unit`
 * → `/rows/5/unit` (with `row`), `/period` → `/query/period`. A cell already reported by the reader
 * keeps the reader's error only.
 */
export function pointAtCells(sheet: DeclarationSheet, errors: FieldError[]): FieldError[] {
  const read = new Set(sheet.errors.map((error) => error.pointer));
  const mapped = errors.map((error): FieldError => {
    const line = /^\/lines\/(\d+)(\/.*)?$/.exec(error.pointer);
    if (line) {
      const row = sheet.rows[Number(line[1])]!;
      return { pointer: `/rows/${row}${line[2] ?? ''}`, code: error.code, detail: `row ${row}: ${error.detail}`, row, params: paramsAtRows(sheet, error.params) };
    }
    if (error.pointer === '/lines') return { ...error, pointer: '/rows' };
    if (error.pointer === '/period') return { ...error, pointer: '/query/period', detail: `${error.detail} (in the address: ?period=2025-S1)` };
    return error;
  });
  const all = [...sheet.errors, ...mapped.filter((error) => !read.has(error.pointer))];
  // In the order of the file: whole-file problems first, then by row (stable within a row).
  return all.sort((a, b) => (a.row ?? 0) - (b.row ?? 0));
}
