/**
 * The two ways the service writes a CSV file. `en`, the API's default: `,` between cells, `.`
 * before decimals. `fr`, what French Excel and LibreOffice open as columns: `;` between cells, `,`
 * before decimals. Both UTF-8 with a byte order mark (so that Excel reads accents right), CRLF.
 * Readers accept both, whatever the file says it is (see read-csv.ts).
 */
export type CsvDialectName = 'en' | 'fr';

export interface CsvDialect {
  name: CsvDialectName;
  delimiter: ',' | ';';
  decimal: '.' | ',';
}

export const CSV_DIALECTS: Readonly<Record<CsvDialectName, CsvDialect>> = {
  en: { name: 'en', delimiter: ',', decimal: '.' },
  fr: { name: 'fr', delimiter: ';', decimal: ',' },
};

export const CSV_DIALECT_NAMES = Object.keys(CSV_DIALECTS) as CsvDialectName[];

export const isCsvDialectName = (value: unknown): value is CsvDialectName => value === 'en' || value === 'fr';
