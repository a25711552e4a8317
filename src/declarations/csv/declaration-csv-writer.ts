/**
 * Writing declaration files. No dependencies: the build uses it for the public template
 * (src/reference/render-reference.ts), the API for downloads.
 */

/** The columns of a declaration file, in the order the service writes them. */
export const CSV_COLUMNS = ['stream', 'material', 'unit', 'quantity'] as const;

export const UTF8_BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/**
 * What a spreadsheet runs as a formula (OWASP "CSV injection"; `-` too, though a quantity is never
 * negative), after any `'`: such a cell is written with one more `'` in front, which an upload removes.
 */
export const NEUTRALISED = /^'*[=+\-@\t\r]/;

export interface CsvLine {
  stream: string;
  material: string;
  unit: string;
  /** Exact decimal text. */
  quantity: string;
}

/** A cell as written to a file: quoted when needed; one a spreadsheet would execute starts with `'` (an upload removes one). */
function cell(value: string): string {
  const safe = NEUTRALISED.test(value) ? `'${value}` : value;
  return /[",;\r\n]/.test(safe) || safe !== safe.trim() ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** CSV as spreadsheets open it right: UTF-8 with BOM, comma-separated, CRLF (RFC 4180), header first. */
export function writeDeclarationCsv(lines: readonly CsvLine[]): Buffer {
  const rows = [CSV_COLUMNS.join(','), ...lines.map((line) => CSV_COLUMNS.map((column) => cell(line[column])).join(','))];
  return Buffer.concat([UTF8_BOM, Buffer.from(`${rows.join('\r\n')}\r\n`, 'utf8')]);
}
