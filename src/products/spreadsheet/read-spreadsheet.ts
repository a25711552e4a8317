import type { WorkBook } from '@e965/xlsx';
import { parse } from 'csv-parse/sync';
import { unquotedCells } from '../../common/csv/unquoted-cells.js';
import { inflateRawSync } from 'node:zlib';
import { strToU8, Unzip, type UnzipDecoder, unzipSync, zipSync } from 'fflate';
import { csvTooBig } from '../../common/csv/csv-bounds.js';
import { decodeCsv } from '../../common/csv/read-csv.js';
import { Problem } from '../../common/problem/problem.js';

/** The formats a per-product file is read from. */
/** SheetJS (a megabyte of code), loaded on the first .xlsx or .ods read or written rather than with the service. */
export const sheetJs = () => import('@e965/xlsx');

export type SpreadsheetFormat = 'xlsx' | 'ods' | 'csv';

/** The first sheet of a file as text cells: row 1 is the header (rows with nothing in them kept, so that numbers match the file's). */
export interface SpreadsheetTable {
  format: SpreadsheetFormat;
  rows: string[][];
}

export interface SpreadsheetLimits {
  /** Rows read at most (the header included); a longer sheet is refused. */
  maxRows: number;
  /** Bytes the zip container may inflate to, all its parts together (.xlsx, .ods). */
  maxInflatedBytes: number;
  /** Parts a zip container may hold. */
  maxEntries: number;
}

/** What the service accepts: the row bound of a catalogue upload and room for a 1,000-product file's XML. */
export const SPREADSHEET_LIMITS: SpreadsheetLimits = { maxRows: 10_001, maxInflatedBytes: 16 * 1024 * 1024, maxEntries: 200 };

const ACCEPT = 'multipart/form-data (an .xlsx, .ods or .csv file)';

/** A file that is not one of the three formats, or past a bound: a 422 that names why. */
export type RefusedCode = 'not_a_spreadsheet' | 'spreadsheet_too_big' | 'too_many_rows' | 'empty_file';

export class SpreadsheetRefused extends Error {
  constructor(
    readonly code: RefusedCode,
    readonly detail: string,
    readonly params: Record<string, string | number> = {},
  ) {
    super(detail);
  }
}

const ZIP = Buffer.from([0x50, 0x4b, 0x03, 0x04]);
const ODS_MIMETYPE = 'application/vnd.oasis.opendocument.spreadsheet';
/** Bytes of the archive given to the zip reader at a time. */
const STEP = 64 * 1024;

/**
 * The first sheet of an .xlsx, .ods or CSV file (either dialect: `;` or `,`), read by content, not
 * by name. A zip container is inflated once as a stream, counting bytes and stopping at
 * `maxInflatedBytes`, and its central directory must say the same sizes, before SheetJS reads it;
 * SheetJS reads cached cell values only (formulas are never evaluated) and at most `maxRows` rows.
 */
export async function readSpreadsheet(bytes: Buffer, limits: SpreadsheetLimits = SPREADSHEET_LIMITS): Promise<SpreadsheetTable> {
  if (bytes.length === 0) throw new SpreadsheetRefused('empty_file', 'the file is empty');
  if (bytes.subarray(0, 4).equals(ZIP)) return readZipped(bytes, limits);
  if (bytes.subarray(0, 8).equals(Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1])))
    throw new SpreadsheetRefused('not_a_spreadsheet', 'the file is an old Excel file (.xls): save it as .xlsx, .ods or CSV');
  return readCsv(bytes, limits);
}

async function readZipped(bytes: Buffer, limits: SpreadsheetLimits): Promise<SpreadsheetTable> {
  const parts = inflatedParts(bytes, limits);
  const format: SpreadsheetFormat | undefined =
    parts.get('mimetype')?.text === ODS_MIMETYPE && parts.has('content.xml')
      ? 'ods'
      : parts.has('xl/workbook.xml') || parts.has('[Content_Types].xml')
        ? 'xlsx'
        : undefined;
  if (!format) throw new SpreadsheetRefused('not_a_spreadsheet', 'the file is a zip archive but no .xlsx or .ods spreadsheet');
  // An .ods writes identical neighbours once with a repeat count (a million empty rows, a thousand empty cells): counts past what a
  // file of ours holds are cut before SheetJS, which would otherwise make every repeated cell.
  const input = format === 'ods' ? clampedOds(bytes, parts.get('content.xml')?.text ?? '', limits) : bytes;
  const XLSX = await sheetJs();
  let workbook: WorkBook;
  try {
    workbook = XLSX.read(input, {
      type: 'buffer',
      dense: true,
      cellFormula: false,
      cellHTML: false,
      cellStyles: false,
      cellDates: false,
      cellNF: false,
      cellText: false,
      bookVBA: false,
      bookDeps: false,
      sheetRows: limits.maxRows + 1,
      sheets: 0,
      WTF: false,
    });
  } catch {
    throw new SpreadsheetRefused('not_a_spreadsheet', `the ${format} file cannot be read: save it again from the spreadsheet`);
  }
  const name = workbook.SheetNames[0];
  const sheet = name === undefined ? undefined : workbook.Sheets[name];
  if (!sheet) throw new SpreadsheetRefused('not_a_spreadsheet', `the ${format} file has no sheet`);
  // A cell far to the right (XFD1) would widen every row: the sheet is read on its first MAX_COLUMNS columns.
  if (sheet['!ref']) {
    const range = XLSX.utils.decode_range(sheet['!ref']);
    range.e.c = Math.min(range.e.c, range.s.c + MAX_COLUMNS - 1);
    range.e.r = Math.min(range.e.r, range.s.r + limits.maxRows);
    sheet['!ref'] = XLSX.utils.encode_range(range);
  }
  const raw = XLSX.utils.sheet_to_json<unknown[]>(sheet, { header: 1, raw: true, defval: '', blankrows: true });
  const rows = raw.map((row) => row.map(cellText));
  return { format, rows: withinRows(trimEmptyTail(rows), limits) };
}

/**
 * Inflates every part of the zip as a stream, counting, and refuses it past the bounds; then checks
 * that the central directory (which SheetJS reads) lists the same parts with the same sizes. Keeps
 * the small `mimetype` part's text.
 */
function inflatedParts(bytes: Buffer, limits: SpreadsheetLimits): Map<string, { size: number; text?: string }> {
  const tooBig = () =>
    new SpreadsheetRefused(
      'spreadsheet_too_big',
      `the spreadsheet inflates to more than ${limits.maxInflatedBytes.toLocaleString('en')} bytes: it is not a file of at most ${(limits.maxRows - 1).toLocaleString('en')} rows`,
      { max: limits.maxInflatedBytes },
    );
  const parts = new Map<string, { size: number; text?: string }>();
  let total = 0;
  let failure: Error | undefined;
  const unzip = new Unzip((file) => {
    if (parts.size >= limits.maxEntries) {
      failure ??= new SpreadsheetRefused('spreadsheet_too_big', `the zip archive holds more than ${limits.maxEntries} parts`);
      return;
    }
    const part: { size: number; text?: string } = { size: 0 };
    parts.set(file.name, part);
    const chunks: Uint8Array[] = [];
    file.ondata = (error, chunk, final) => {
      if (error) {
        failure ??= new SpreadsheetRefused('not_a_spreadsheet', 'the zip archive is damaged');
        return;
      }
      part.size += chunk.length;
      total += chunk.length;
      if (total > limits.maxInflatedBytes) {
        failure ??= tooBig();
        file.terminate();
        return;
      }
      if ((file.name === 'mimetype' && part.size <= 100) || file.name === 'content.xml') chunks.push(chunk);
      if (final && chunks.length > 0)
        part.text = file.name === 'mimetype' ? Buffer.concat(chunks).toString('latin1').trim() : Buffer.concat(chunks).toString('utf8');
    };
    file.start();
  });
  // Deflated parts are inflated by zlib, natively, each at most to what is left of the budget (maxOutputLength): fflate walks the archive.
  let budget = limits.maxInflatedBytes;
  class BoundedInflate implements UnzipDecoder {
    static readonly compression = 8;
    ondata: UnzipDecoder['ondata'] = () => undefined;
    private readonly chunks: Uint8Array[] = [];
    push(chunk: Uint8Array, final: boolean): void {
      this.chunks.push(chunk.slice());
      if (!final) return;
      let out: Buffer;
      try {
        out = inflateRawSync(Buffer.concat(this.chunks), { maxOutputLength: Math.max(1, budget + 1) });
      } catch (error) {
        const code = (error as { code?: unknown }).code;
        failure ??= code === 'ERR_BUFFER_TOO_LARGE' ? tooBig() : new SpreadsheetRefused('not_a_spreadsheet', 'the zip archive is damaged');
        return;
      }
      budget -= out.length;
      this.ondata(null, new Uint8Array(out), true);
    }
  }
  unzip.register(BoundedInflate);
  try {
    for (let at = 0; at < bytes.length && !failure; at += STEP) unzip.push(bytes.subarray(at, at + STEP), at + STEP >= bytes.length);
  } catch (error) {
    if (error instanceof SpreadsheetRefused) throw error;
    failure ??= new SpreadsheetRefused('not_a_spreadsheet', 'the zip archive is damaged');
  }
  if (failure) throw failure;
  // What SheetJS will inflate is what the central directory lists: the same parts, of the sizes just counted.
  let listed: Map<string, number>;
  try {
    listed = new Map();
    unzipSync(bytes, {
      filter: (file) => {
        listed.set(file.name, file.originalSize);
        return false;
      },
    });
  } catch {
    throw new SpreadsheetRefused('not_a_spreadsheet', 'the zip archive is damaged');
  }
  if (listed.size !== parts.size || [...listed].some(([name, size]) => parts.get(name)?.size !== size))
    throw new SpreadsheetRefused('not_a_spreadsheet', 'the zip archive is damaged (its directory does not match its parts)');
  return parts;
}

function readCsv(bytes: Buffer, limits: SpreadsheetLimits): SpreadsheetTable {
  let text: string;
  try {
    text = decodeCsv(bytes, undefined, ACCEPT);
  } catch (error) {
    if (!(error instanceof Problem)) throw error;
    throw new SpreadsheetRefused('not_a_spreadsheet', `the file is neither .xlsx, .ods nor a CSV text file: ${error.detail}`);
  }
  const tooBig = csvTooBig(text, limits.maxRows);
  if (tooBig)
    throw new SpreadsheetRefused('too_many_rows', `the file has more than ${limits.maxRows.toLocaleString('en')} rows`, {
      max: limits.maxRows - 1,
    });
  const firstLine = text.slice(0, text.search(/\r|\n|$/));
  const delimiter = count(firstLine, ';') >= count(firstLine, ',') && firstLine.includes(';') ? ';' : ',';
  let rows = unquotedCells(text, delimiter);
  if (!rows) {
    try {
      rows = parse(text, { delimiter, relax_column_count: true, relax_quotes: true, skip_empty_lines: false, bom: true }) as string[][];
    } catch {
      throw new SpreadsheetRefused('not_a_spreadsheet', 'the CSV file cannot be read: a quote is not closed');
    }
  }
  for (const row of rows) for (let i = 0; i < row.length; i++) row[i] = row[i]!.trim();
  return { format: 'csv', rows: withinRows(trimEmptyTail(rows), limits) };
}

/** Columns of a sheet that are read: a per-product file has seven, her own a few more. */
const MAX_COLUMNS = 32;

/** The .ods again, its content's repeat counts cut to MAX_COLUMNS cells and `maxRows` rows (the other parts as they were). */
function clampedOds(bytes: Buffer, content: string, limits: SpreadsheetLimits): Buffer {
  const files = unzipSync(bytes);
  const clamped = content
    .replace(/(table:number-columns-repeated=")(\d+)"/g, (_all, attr: string, n: string) => `${attr}${Math.min(Number(n), MAX_COLUMNS)}"`)
    .replace(/(table:number-rows-repeated=")(\d+)"/g, (_all, attr: string, n: string) => `${attr}${Math.min(Number(n), limits.maxRows)}"`);
  files['content.xml'] = strToU8(clamped);
  return Buffer.from(zipSync(files, { level: 1 }));
}

const count = (text: string, char: string) => text.split(char).length - 1;

function withinRows(rows: string[][], limits: SpreadsheetLimits): string[][] {
  if (rows.length > limits.maxRows)
    throw new SpreadsheetRefused('too_many_rows', `the file has more than ${limits.maxRows.toLocaleString('en')} rows`, {
      max: limits.maxRows - 1,
    });
  return rows;
}

/** Empty rows at the end (a spreadsheet's formatting past the data) are not rows of the file. */
function trimEmptyTail(rows: string[][]): string[][] {
  let end = rows.length;
  while (end > 0 && rows[end - 1]!.every((cell) => cell === '')) end--;
  return end === rows.length ? rows : rows.slice(0, end);
}

/** A cell's cached value as text: numbers as JavaScript writes them (45.5), text trimmed. */
function cellText(value: unknown): string {
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : '';
  if (typeof value === 'string') return value.trim();
  if (typeof value === 'boolean') return value ? 'TRUE' : 'FALSE';
  return '';
}
