import type { CsvDialect } from './csv-dialect.js';
import { neutraliseCell } from './spreadsheet-cells.js';

export const UTF8_BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/** The text a `text/csv` response is declared with. */
export const CSV_MEDIA_TYPE = 'text/csv; charset=utf-8';

/**
 * A cell as written to a file: quoted when it holds a separator a spreadsheet may split on (`,`,
 * `;`, tab), a quote, a line break, or spaces at either end; each part of it a spreadsheet would run
 * as a formula starts with one more `'` (neutraliseCell; a reader removes it). `null` is an empty cell.
 */
export function csvCell(value: string | null): string {
  if (value === null) return '';
  const safe = neutraliseCell(value);
  return /[",;\t\r\n]/.test(safe) || safe !== safe.trim() ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** One row, ended by CRLF (RFC 4180): for writers that stream their rows. */
export function csvRow(cells: readonly (string | null)[], dialect: CsvDialect): string {
  return `${cells.map(csvCell).join(dialect.delimiter)}\r\n`;
}

/** An exact decimal text (`1200.5`) as the dialect writes it (`1200,5` in French). Never grouped: a spreadsheet reads it back as the same number. */
export function csvDecimal(value: string, dialect: CsvDialect): string {
  return dialect.decimal === '.' ? value : value.replace('.', ',');
}

/** A whole file: the BOM, the header row, the rows. */
export function writeCsv(header: readonly string[], rows: Iterable<readonly (string | null)[]>, dialect: CsvDialect): Buffer {
  const parts = [csvRow(header, dialect)];
  for (const row of rows) parts.push(csvRow(row, dialect));
  return Buffer.concat([UTF8_BOM, Buffer.from(parts.join(''), 'utf8')]);
}
