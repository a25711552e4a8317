import { CsvError, parse } from 'csv-parse/sync';
import { type FieldError, Problem, ValidationProblem } from '../problem/problem.js';
import { csvTooBig, maxCsvRows } from './csv-bounds.js';
import { restoreCell } from './spreadsheet-cells.js';
import { unquotedCells } from './unquoted-cells.js';
import { UTF8_BOM } from './write-csv.js';

/** Charsets a CSV file may be read as (its Content-Type's, or detected). */
export type CsvCharset = 'utf-8' | 'windows-1252';

// Characters no spreadsheet writes in a CSV file: C0 controls but tab, CR and LF; DEL; C1 controls
// (where Windows-1252 leaves bytes undefined). A class, not a look-ahead at each character: a tenth of the cost on a long text.
export const NOT_TEXT = /[^\P{Cc}\t\r\n]/u;

/**
 * The text of a CSV file: UTF-8 (with or without BOM) or, when it is not valid UTF-8 and names no
 * charset, Windows-1252 (what a French spreadsheet saves as "CSV (séparateur : point-virgule)").
 * Anything else is not a spreadsheet's file: 415, with `acceptPost` (what the route takes instead).
 */
export function decodeCsv(bytes: Buffer, charset: CsvCharset | undefined, acceptPost: string): string {
  const notText = (detail: string) => new Problem('unsupported_media_type', detail, { headers: { 'Accept-Post': acceptPost } });
  if ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff)) {
    throw notText('The file is UTF-16 ("Unicode text"); save it as "CSV UTF-8" (or "CSV (séparateur : point-virgule)") instead.');
  }
  if (bytes.includes(0)) throw notText('The body is not a text file (it holds NUL bytes); send a CSV file saved by a spreadsheet.');
  const body = bytes.subarray(0, 3).equals(UTF8_BOM) ? bytes.subarray(3) : bytes;
  let text: string;
  try {
    text = new TextDecoder(charset ?? 'utf-8', { fatal: charset !== 'windows-1252' }).decode(body);
  } catch {
    if (charset === 'utf-8')
      throw notText(
        'The file is not valid UTF-8 although its Content-Type says charset=utf-8; save it as "CSV UTF-8", or leave the charset out.',
      );
    text = new TextDecoder('windows-1252').decode(body);
  }
  if (NOT_TEXT.test(text))
    throw notText('The body is not a text file (it holds control characters); send a CSV file saved by a spreadsheet.');
  return text;
}

/** The columns a file of some kind has. */
export interface CsvColumns<C extends string> {
  /** Every column, in the order the service writes them. */
  columns: readonly C[];
  /** Columns a file may leave out (the others are required). */
  optional?: readonly C[];
  /** The header names of each column: its English name first, then its French one, then any other accepted. */
  names: Readonly<Record<C, readonly string[]>>;
  /** A row whose first cell starts with this is a comment: skipped, before the header or after it (its number still counts). */
  comment?: string;
}

/** One row of the file with something in it: its number as a spreadsheet shows it (header = 1), and its cells by column (trimmed, non-empty). */
export interface CsvRecord<C extends string> {
  row: number;
  cells: Partial<Record<C, string>>;
}

/** A file read as a table: its separator, its records in order, and the rows that could not be read whole. */
export interface CsvTable<C extends string> {
  delimiter: ',' | ';';
  records: CsvRecord<C>[];
  errors: FieldError[];
  /** Comment rows after the header (`spec.comment`), skipped. */
  comments: number;
}

/** `Matériau ` → `materiau`. */
export const headerKey = (cell: string) => cell.trim().normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();

/** "stream, material, unit, quantity (or in French: filière, matériau, unité, quantité), in any order". */
export const columnsHelp = <C extends string>(spec: CsvColumns<C>) =>
  `${spec.columns.map((c) => spec.names[c][0]).join(', ')} (or in French: ${spec.columns.map((c) => spec.names[c][1]).join(', ')}), in any order`;

const invalidFile = (errors: FieldError[]) => new ValidationProblem(errors);

/** The first row with a cell that is not empty (`;;;` is an empty row) and is no comment, and its number as a spreadsheet counts lines; else the first row. */
function firstFilledLine(text: string, comment: string | undefined): { line: string; row: number } {
  const lineStart = (at: number) => Math.max(text.lastIndexOf('\n', at), text.lastIndexOf('\r', at)) + 1;
  // A comment row (its first cell starts with the mark, quoted or not): the next one.
  const commentAt = (at: number) => comment !== undefined && text.startsWith(comment, at) && /^\s*"?$/.test(text.slice(lineStart(at), at));
  let at = text.search(/[^\s,;"]/);
  while (at !== -1 && commentAt(at)) {
    const next = text.slice(at).search(/[\r\n]/);
    if (next === -1) {
      at = -1;
      break;
    }
    const rest = text.slice(at + next).search(/[^\s,;"]/);
    at = rest === -1 ? -1 : at + next + rest;
  }
  const start = at === -1 ? 0 : lineStart(at);
  const end = text.slice(start).search(/[\r\n]/);
  let row = 1;
  for (let i = 0; i < start; i++) {
    const char = text[i];
    if (char === '\n' || (char === '\r' && text[i + 1] !== '\n')) row++;
  }
  return { line: end === -1 ? text.slice(start) : text.slice(start, start + end), row };
}

/** The separator of the file: the one that splits its header into known column names. */
function detectDelimiter<C extends string>(text: string, spec: CsvColumns<C>, names: ReadonlyMap<string, C>): ',' | ';' {
  const { line: firstLine, row } = firstFilledLine(text, spec.comment);
  const known = (delimiter: string) => {
    try {
      // Without quotes, a line's cells are what lies between its separators.
      const [header = []] = firstLine.includes('"')
        ? (parse(firstLine, { delimiter, relax_column_count: true, to: 1 }) as string[][])
        : [firstLine.split(delimiter)];
      return header.filter((cell) => names.has(headerKey(cell))).length;
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
      ? `row ${row}: the header must name the columns ${columnsHelp(spec)}, separated by commas or semicolons.${tab}`
      : `row ${row}: the header splits into known column names with commas and with semicolons alike; use one separator only.`;
  throw invalidFile([
    {
      pointer: `/rows/${row}`,
      code: 'invalid_csv_header',
      detail,
      row,
      params: { reason: comma === 0 ? 'no_columns' : 'both_separators', tabs: tab !== '' },
    },
  ]);
}

/** The column of each header cell; 422 for an unknown, repeated or missing column. */
function readHeader<C extends string>(
  header: string[],
  row: number,
  spec: CsvColumns<C>,
  names: ReadonlyMap<string, C>,
): (C | undefined)[] {
  const errors: FieldError[] = [];
  const columns = header.map((cell, index) => {
    const column = names.get(headerKey(cell));
    if (column === undefined && cell.trim() !== '') {
      errors.push({
        pointer: `/rows/${row}`,
        code: 'unknown_column',
        detail: `row ${row}: unknown column "${cell.trim()}" (column ${index + 1}); the columns are ${columnsHelp(spec)}`,
        row,
        params: { name: cell.trim().slice(0, 40), column: index + 1 },
      });
    }
    return column;
  });
  for (const column of spec.columns) {
    const count = columns.filter((c) => c === column).length;
    if (count === 0 && !spec.optional?.includes(column)) {
      errors.push({
        pointer: `/rows/${row}`,
        code: 'missing_column',
        detail: `row ${row}: the column ${column} is missing; the columns are ${columnsHelp(spec)}`,
        row,
        params: { column },
      });
    }
    if (count > 1)
      errors.push({
        pointer: `/rows/${row}`,
        code: 'duplicate_column',
        detail: `row ${row}: the column ${column} is named ${count} times`,
        row,
        params: { column, count },
      });
  }
  if (errors.length > 0) throw invalidFile(errors);
  return columns;
}

/**
 * A CSV file as a table of `spec`'s columns, split on whichever of `,` and `;` makes its header known
 * names. Rows are numbered as a spreadsheet shows them; blank rows and trailing empty cells are ignored;
 * cells are trimmed and what `neutraliseCell` added is taken away. Bounded before parsing (csv-bounds.ts).
 * A file that is no such table is refused whole (422 saying how to fix it); a row with more cells than
 * the header is reported in `errors` and read as far as the columns go.
 */
export function readCsvTable<C extends string>(text: string, spec: CsvColumns<C>, maxRecords: number): CsvTable<C> {
  const tooBig = csvTooBig(text, maxCsvRows(maxRecords));
  if (tooBig) throw invalidFile([tooBig]);
  const names = new Map<string, C>();
  for (const column of spec.columns) for (const name of spec.names[column]) names.set(headerKey(name), column);
  const delimiter = detectDelimiter(text, spec, names);
  let rows: string[][];
  try {
    rows = unquotedCells(text, delimiter) ?? (parse(text, { delimiter, relax_column_count: true, skip_empty_lines: false }) as string[][]);
  } catch (error) {
    if (!(error instanceof CsvError)) throw error;
    const row = Number((error as CsvError & { records?: number }).records ?? 0) + 1;
    const detail =
      error.code === 'CSV_QUOTE_NOT_CLOSED'
        ? `row ${row}: a quote (") opens a cell that is never closed`
        : `row ${row}: ${error.message.replace(/ at line \d+.*$/, '')}; a cell that contains quotes must be quoted, its quotes doubled ("")`;
    throw invalidFile([
      {
        pointer: `/rows/${row}`,
        code: 'invalid_csv',
        detail,
        row,
        params: { reason: error.code === 'CSV_QUOTE_NOT_CLOSED' ? 'quote_not_closed' : 'quotes' },
      },
    ]);
  }
  const isComment = (cells: string[]) => spec.comment !== undefined && (cells[0] ?? '').trim().startsWith(spec.comment);
  const headerIndex = rows.findIndex((cells) => cells.some((cell) => cell.trim() !== '') && !isComment(cells));
  const columns = readHeader(rows[headerIndex] ?? [], headerIndex + 1 || 1, spec, names);
  const width = columns.findLastIndex((column) => column !== undefined) + 1;

  const table: CsvTable<C> = { delimiter, records: [], errors: [], comments: 0 };
  for (let index = headerIndex + 1; index < rows.length; index++) {
    const raw = rows[index]!;
    const row = index + 1;
    const cells = raw.map((cell) => restoreCell(cell.trim()));
    const used = cells.findLastIndex((cell) => cell !== '') + 1;
    if (used === 0) continue;
    if (isComment(raw)) {
      table.comments++;
      continue;
    }
    if (used > width) {
      table.errors.push({
        pointer: `/rows/${row}`,
        code: 'too_many_cells',
        detail: `row ${row}: ${used} cells, but the header names ${width} columns; quote a cell that contains the separator (${delimiter})`,
        row,
        params: { cells: used, columns: width, delimiter },
      });
    }
    const record: CsvRecord<C> = { row, cells: {} };
    for (let at = 0; at < width; at++) {
      const column = columns[at];
      if (column !== undefined && cells[at]) record.cells[column] = cells[at];
    }
    table.records.push(record);
  }
  return table;
}
