import { CsvError, parse } from 'csv-parse/sync';
import { ExactNumber } from '../../common/http/json-body.js';
import type { CsvBody } from '../../common/http/request-body.js';
import { type FieldError, Problem, ValidationProblem } from '../../common/problem/problem.js';
import { CSV_COLUMNS, NEUTRALISED, UTF8_BOM } from './declaration-csv-writer.js';

type Column = (typeof CSV_COLUMNS)[number];

/** Header names accepted for each column, compared trimmed, ignoring case and accents. */
const HEADER_NAMES: Record<string, Column> = {
  stream: 'stream',
  flux: 'stream',
  material: 'material',
  materiau: 'material',
  unit: 'unit',
  unite: 'unit',
  quantity: 'quantity',
  quantite: 'quantity',
};
const HEADER_HELP = 'stream, material, unit, quantity (or in French: flux, matériau, unité, quantité), in any order';

/** A declaration file read as the JSON body it stands for, and where each of its lines came from. */
export interface DeclarationSheet {
  /** `{ period, lines }` for the validator; quantities as written (decimal comma made a point). */
  body: { period: string | undefined; lines: Record<string, unknown>[] };
  /** Spreadsheet row number (header = 1) of each line of `body.lines`. */
  rows: number[];
  /** Cells that cannot stand for a value at all (pointers `/rows/<row>/<column>`). */
  errors: FieldError[];
}

// Characters no spreadsheet writes in a CSV file: C0 controls but tab, CR and LF; DEL; C1 controls
// (where Windows-1252 leaves bytes undefined).
const NOT_TEXT = /(?![\t\r\n])\p{Cc}/u;

const notText = (detail: string) => new Problem('unsupported_media_type', detail, { headers: { 'Accept-Post': 'application/json, text/csv' } });
const invalidFile = (errors: FieldError[]) => new ValidationProblem(errors);

/**
 * The text of a CSV file: UTF-8 (with or without BOM) or, when it is not valid UTF-8 and names no
 * charset, Windows-1252 (what a French spreadsheet saves as "CSV (séparateur : point-virgule)").
 */
export function decodeCsv(csv: CsvBody): string {
  const { bytes } = csv;
  if ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff)) {
    throw notText('The file is UTF-16 ("Unicode text"); save it as "CSV UTF-8" (or "CSV (séparateur : point-virgule)") instead.');
  }
  if (bytes.includes(0)) throw notText('The body is not a text file (it holds NUL bytes); send the declaration as a CSV file saved by a spreadsheet, or as JSON.');
  const body = bytes.subarray(0, 3).equals(UTF8_BOM) ? bytes.subarray(3) : bytes;
  let text: string;
  try {
    text = new TextDecoder(csv.charset ?? 'utf-8', { fatal: csv.charset !== 'windows-1252' }).decode(body);
  } catch {
    if (csv.charset === 'utf-8') throw notText('The file is not valid UTF-8 although its Content-Type says charset=utf-8; save it as "CSV UTF-8", or leave the charset out.');
    text = new TextDecoder('windows-1252').decode(body);
  }
  if (NOT_TEXT.test(text)) throw notText('The body is not a text file (it holds control characters); send the declaration as a CSV file saved by a spreadsheet, or as JSON.');
  return text;
}

/** `Matériau ` → `materiau`. */
const headerKey = (cell: string) => cell.trim().normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();

/** Cells a spreadsheet would take for a formula are written with a leading `'` (see writeDeclarationCsv): read them back without it. */
const unneutralise = (cell: string) => (cell.startsWith("'") && NEUTRALISED.test(cell) ? cell.slice(1) : cell);

/** The separator of the file: the one that splits its header into known column names. */
function detectDelimiter(text: string): ',' | ';' {
  const lines = text.split(/\r\n|\n|\r/);
  // The first row with a cell that is not empty (`;;;` is an empty row).
  const at = Math.max(0, lines.findIndex((line) => line.replace(/[\s,;"]/g, '') !== ''));
  const firstLine = lines[at] ?? '';
  const row = at + 1;
  const known = (delimiter: string) => {
    try {
      const [header = []] = parse(firstLine, { delimiter, relax_column_count: true, to: 1 }) as string[][];
      return header.filter((cell) => HEADER_NAMES[headerKey(cell)] !== undefined).length;
    } catch {
      return 0;
    }
  };
  const comma = known(',');
  const semicolon = known(';');
  if (comma > semicolon) return ',';
  if (semicolon > comma) return ';';
  const tab = firstLine.includes('\t') ? ' The file looks tab-separated: save it as CSV instead.' : '';
  const detail =
    comma === 0
      ? `row ${row}: the header must name the columns ${HEADER_HELP}, separated by commas or semicolons.${tab}`
      : `row ${row}: the header splits into known column names with commas and with semicolons alike; use one separator only.`;
  throw invalidFile([{ pointer: `/rows/${row}`, code: 'invalid_csv_header', detail, row }]);
}

/** The column of each header cell; 422 for an unknown, repeated or missing column. */
function readHeader(header: string[], row: number): (Column | undefined)[] {
  const errors: FieldError[] = [];
  const columns = header.map((cell, index) => {
    const column = HEADER_NAMES[headerKey(cell)];
    if (column === undefined && cell.trim() !== '') {
      errors.push({ pointer: `/rows/${row}`, code: 'unknown_column', detail: `row ${row}: unknown column "${cell.trim()}" (column ${index + 1}); the columns are ${HEADER_HELP}`, row });
    }
    return column;
  });
  for (const column of CSV_COLUMNS) {
    const count = columns.filter((c) => c === column).length;
    if (count === 0) errors.push({ pointer: `/rows/${row}`, code: 'missing_column', detail: `row ${row}: the column ${column} is missing; the columns are ${HEADER_HELP}`, row });
    if (count > 1) errors.push({ pointer: `/rows/${row}`, code: 'duplicate_column', detail: `row ${row}: the column ${column} is named ${count} times`, row });
  }
  if (errors.length > 0) throw invalidFile(errors);
  return columns;
}

const JSON_NUMBER = /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/;

/**
 * A declaration file as the JSON body it stands for. Rows are numbered as a spreadsheet shows them
 * (the header is row 1, after any blank rows); blank rows and trailing empty cells are ignored. A file that cannot be read
 * as a table of these columns is refused whole (415 or 422, saying how to fix it); cells that
 * cannot stand for a value are reported in `errors`, with the validator's findings.
 */
export function readDeclarationCsv(csv: CsvBody, period: string | undefined, maxLines: number): DeclarationSheet {
  const text = decodeCsv(csv);
  const delimiter = detectDelimiter(text);
  let records: string[][];
  try {
    records = parse(text, { delimiter, relax_column_count: true, skip_empty_lines: false }) as string[][];
  } catch (error) {
    if (!(error instanceof CsvError)) throw error;
    const row = Number((error as CsvError & { records?: number }).records ?? 0) + 1;
    const detail =
      error.code === 'CSV_QUOTE_NOT_CLOSED'
        ? `row ${row}: a quote (") opens a cell that is never closed`
        : `row ${row}: ${error.message.replace(/ at line \d+.*$/, '')}; a cell that contains quotes must be quoted, its quotes doubled ("")`;
    throw invalidFile([{ pointer: `/rows/${row}`, code: 'invalid_csv', detail, row }]);
  }
  const headerIndex = records.findIndex((record) => record.some((cell) => cell.trim() !== ''));
  const columns = readHeader(records[headerIndex] ?? [], headerIndex + 1 || 1);
  const width = columns.findLastIndex((column) => column !== undefined) + 1;

  const sheet: DeclarationSheet = { body: { period, lines: [] }, rows: [], errors: [] };
  records.forEach((record, index) => {
    const row = index + 1;
    const cells = record.map((cell) => unneutralise(cell.trim()));
    if (index <= headerIndex || cells.every((cell) => cell === '')) return;
    if (sheet.rows.length === maxLines) {
      if (sheet.errors.every((e) => e.code !== 'too_many_lines')) {
        sheet.errors.push({ pointer: `/rows/${row}`, code: 'too_many_lines', detail: `row ${row}: a declaration has at most ${maxLines} lines; this row is line ${maxLines + 1}`, row });
      }
      return;
    }
    const used = cells.findLastIndex((cell) => cell !== '') + 1;
    if (used > width) {
      sheet.errors.push({
        pointer: `/rows/${row}`,
        code: 'too_many_cells',
        detail: `row ${row}: ${used} cells, but the header names ${width} columns; quote a cell that contains the separator (${delimiter})`,
        row,
      });
    }
    const line: Record<string, unknown> = {};
    columns.forEach((column, at) => {
      if (column !== undefined && cells[at]) line[column] = cells[at];
    });
    if (typeof line.quantity === 'string') line.quantity = quantityOf(line.quantity, delimiter, row, sheet.errors);
    sheet.body.lines.push(line);
    sheet.rows.push(row);
  });
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
  errors.push({ pointer: `/rows/${row}/quantity`, code: 'quantity_not_a_number', detail: `row ${row}: quantity "${cell}" is not a number: ${hint}`, row });
  return cell;
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
      return { pointer: `/rows/${row}${line[2] ?? ''}`, code: error.code, detail: `row ${row}: ${error.detail}`, row };
    }
    if (error.pointer === '/lines') return { ...error, pointer: '/rows' };
    if (error.pointer === '/period') return { ...error, pointer: '/query/period', detail: `${error.detail} (in the address: ?period=2025-S1)` };
    return error;
  });
  const all = [...sheet.errors, ...mapped.filter((error) => !read.has(error.pointer))];
  // In the order of the file: whole-file problems first, then by row (stable within a row).
  return all.sort((a, b) => (a.row ?? 0) - (b.row ?? 0));
}
