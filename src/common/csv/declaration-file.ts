// The shape of a declaration file (its columns, how its lines are written): published by reference/ as the
// blank template and written by declarations/ for a download, so it sits below both.
import { csvHeader } from '../../i18n/csv-columns.js';
import { perLanguage } from '../../i18n/languages.js';
import { CSV_DIALECTS, type CsvDialect, type CsvDialectName } from './csv-dialect.js';
import { csvDecimal, csvRow, UTF8_BOM, writeCsv } from './write-csv.js';

/** The columns of a declaration file, in the order the service writes them. */
export const CSV_COLUMNS = ['stream', 'material', 'unit', 'quantity'] as const;

/** The header of a declaration file in each dialect, from the catalogue of its language: the API's names, or the French template's. */
export const CSV_HEADERS: Readonly<Record<CsvDialectName, readonly string[]>> = perLanguage((language) =>
  csvHeader('declaration', CSV_COLUMNS, language),
);

/**
 * A row whose first cell starts with this is a comment, which the reader of declaration files skips
 * (the template's explanation and example rows: a forgotten example is never filed).
 */
export const COMMENT_MARK = '#';

export interface CsvLine {
  stream: string;
  material: string;
  unit: string;
  /** Exact decimal text. */
  quantity: string;
}

/**
 * A quantity as the file writes it, so that the service reads it back as the same number: a decimal
 * with one to three digits before the separator and exactly three after it ("1.234", "12,500") could
 * also be read as thousands ("1234"), so it gets a fourth, zero place ("1.2340"), which a spreadsheet
 * shows as the same number and the rules on decimals ignore.
 */
export function fileQuantity(value: string, dialect: CsvDialect): string {
  const written = csvDecimal(value, dialect);
  return /^-?[1-9]\d{0,2}[.,]\d{3}$/.test(written) ? `${written}0` : written;
}

/**
 * A declaration as a spreadsheet opens it (common/csv/write-csv.ts): the header in the dialect's words,
 * one row per line, then one row per stream whose consumer sales units are stated: unit `uvc`, material
 * empty (`EMB,,uvc,90000`), as the upload reads them.
 */
export function writeDeclarationCsv(
  lines: readonly CsvLine[],
  dialect: CsvDialect = CSV_DIALECTS.en,
  unitsSold: readonly { stream: string; quantity: string }[] = [],
): Buffer {
  return writeCsv(
    CSV_HEADERS[dialect.name],
    [
      ...lines.map((line) => [line.stream, line.material, line.unit, fileQuantity(line.quantity, dialect)]),
      ...unitsSold.map((entry) => [entry.stream, '', 'uvc', fileQuantity(entry.quantity, dialect)]),
    ],
    dialect,
  );
}

/**
 * The blank declaration file: the header, then comment rows (a row of `note`, then each example
 * line with `#` before its first cell). A spreadsheet shows the examples as rows of the table; the
 * reader skips them, so a file sent with its examples left in files none of them.
 */
export function writeDeclarationTemplate(examples: readonly CsvLine[], note: string, dialect: CsvDialect = CSV_DIALECTS.en): Buffer {
  const rows = [
    csvRow(CSV_HEADERS[dialect.name], dialect),
    csvRow([`${COMMENT_MARK} ${note}`], dialect),
    ...examples.map((line) =>
      csvRow([`${COMMENT_MARK} ${line.stream}`, line.material, line.unit, fileQuantity(line.quantity, dialect)], dialect),
    ),
  ];
  return Buffer.concat([UTF8_BOM, Buffer.from(rows.join(''), 'utf8')]);
}
