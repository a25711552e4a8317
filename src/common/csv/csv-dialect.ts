import { ValidationProblem } from '../problem/problem.js';
import { LANGUAGE_REGISTRY, LANGUAGES, perLanguage, type Language } from '../../i18n/languages.js';

/**
 * The ways the service writes a CSV file: one per language of the registry (src/i18n/languages.ts),
 * with its separator and decimal mark and the headers of its catalogue. `en`, the API's default: `,`
 * between cells, `.` before decimals. `fr`, what French Excel and LibreOffice open as columns: `;`
 * between cells, `,` before decimals. UTF-8 with a byte order mark (so that Excel reads accents
 * right), CRLF. Readers accept every dialect, whatever the file says it is (see read-csv.ts).
 */
export type CsvDialectName = Language;

export interface CsvDialect {
  name: CsvDialectName;
  delimiter: ',' | ';';
  decimal: '.' | ',';
}

export const CSV_DIALECTS: Readonly<Record<CsvDialectName, CsvDialect>> = perLanguage((name) => ({
  name,
  ...LANGUAGE_REGISTRY.get(name).csv,
}));

export const CSV_DIALECT_NAMES = [...LANGUAGES];

/** The API speaks English: its CSV bytes are the English dialect's, which every other dialect departs from. */
export const API_CSV_DIALECT: CsvDialect = CSV_DIALECTS.en;

export const isCsvDialectName = (value: unknown): value is CsvDialectName => LANGUAGE_REGISTRY.has(value);

/** What a dialect name that is not one says (`must be en or fr`). */
export const CSV_DIALECT_DETAIL = `must be ${CSV_DIALECT_NAMES.slice(0, -1).join(', ')} or ${CSV_DIALECT_NAMES.at(-1)}`;

/** The `dialect` query parameter of a route that writes CSV, as the OpenAPI document describes it. */
export const CSV_DIALECT_QUERY = {
  name: 'dialect',
  required: false,
  description: `For CSV, a language of the service: ${CSV_DIALECT_NAMES.map((name) => `\`${name}\` (\`${CSV_DIALECTS[name].delimiter}\` between cells, \`${CSV_DIALECTS[name].decimal}\` before decimals, ${LANGUAGE_REGISTRY.get(name).englishName} headers${name === API_CSV_DIALECT.name ? ', the default' : ', UTF-8 with a byte order mark'})`).join(', ')}. Anything else: 422 \`invalid_csv_dialect\`, pointer \`/query/dialect\`.`,
  schema: { type: 'string' as const, enum: [...CSV_DIALECT_NAMES] },
};

/** The dialect a `dialect` query parameter asks for (absent: the API's); anything else is a 422 pointing at it. */
export function csvDialectQuery(value: unknown): CsvDialect {
  if (value === undefined) return API_CSV_DIALECT;
  if (!isCsvDialectName(value))
    throw new ValidationProblem([{ pointer: '/query/dialect', code: 'invalid_csv_dialect', detail: CSV_DIALECT_DETAIL }]);
  return CSV_DIALECTS[value];
}
