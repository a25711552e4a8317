import { ValidationProblem } from '../problem/problem.js';

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

/** The `dialect` query parameter of a route that writes CSV, as the OpenAPI document describes it. */
export const CSV_DIALECT_QUERY = {
  name: 'dialect',
  required: false,
  description:
    'For CSV: `en` (the default: `,` between cells, `.` before decimals, English headers) or `fr` (what French Excel opens as columns: `;` between cells, decimal comma, French headers, UTF-8 with a byte order mark). Anything else: 422 `invalid_csv_dialect`, pointer `/query/dialect`.',
  schema: { type: 'string' as const, enum: ['en', 'fr'] },
};

/** The dialect a `dialect` query parameter asks for (absent: `en`); anything else is a 422 pointing at it. */
export function csvDialectQuery(value: unknown): CsvDialect {
  if (value === undefined) return CSV_DIALECTS.en;
  if (!isCsvDialectName(value))
    throw new ValidationProblem([{ pointer: '/query/dialect', code: 'invalid_csv_dialect', detail: 'must be en or fr' }]);
  return CSV_DIALECTS[value];
}
