import { CSV_DIALECTS, type CsvDialectName } from '../common/csv/csv-dialect.js';
import { CSV_COLUMNS, CSV_HEADERS } from '../common/csv/declaration-file.js';
import { type CsvRecord, decodeCsv, readCsvTable } from '../common/csv/read-csv.js';
import { writeCsv } from '../common/csv/write-csv.js';
import type { FieldError } from '../common/problem/problem.js';
import { DECLARATION_COLUMNS } from '../declarations/csv/declaration-csv.js';
import { MAX_LINES } from '../declarations/declaration-validator.js';
import { fieldMessage } from '../i18n/field-messages.js';
import type { Language } from '../i18n/language.js';
import { MESSAGES } from '../i18n/messages/index.js';

type Column = (typeof CSV_COLUMNS)[number];

/** A problem of an uploaded file: an error refuses the file; a warning is said and may be kept. */
export type ReportedProblem = FieldError & { severity?: 'error' | 'warning' };

/** The error report of an upload, as the page offers it: a `data:` link (nothing kept on the server) and what the page says of it. */
export interface UploadReport {
  href: string;
  fileName: string;
  /** Problems found, listed in the report or not. */
  total: number;
  /** The most the report lists. */
  max: number;
}

/**
 * The uploaded file back as an error report: one row per problem, in the order of the
 * file, with the row number a spreadsheet shows, the column, its type (error or warning),
 * what to do (the catalogue's message in the page's language), then the cells of that row as the
 * file wrote them. Written in the file's dialect (its separator, hence its decimal sign), so that it
 * opens beside it; a file that cannot be read as a table gets the page's. `problems` are those the
 * service listed (at most `max`), of `total` found.
 */
export function uploadReport(
  language: Language,
  file: { bytes: Buffer; name: string | undefined },
  problems: readonly ReportedProblem[],
  total: number,
  max: number,
): UploadReport {
  const words = MESSAGES[language].files.report;
  let dialect: CsvDialectName = language;
  const rows = new Map<number, CsvRecord<Column>>();
  try {
    const table = readCsvTable(decodeCsv(file.bytes, undefined, 'text/csv'), DECLARATION_COLUMNS, MAX_LINES);
    dialect = table.delimiter === ';' ? 'fr' : 'en';
    for (const record of table.records) rows.set(record.row, record);
  } catch {
    // A file that is not a table of these columns: its problems are the file's, with no cells to repeat.
  }
  // No column of codes: a person reads what is wrong and what to do in words (the codes are the API's).
  const header = [words.row, words.column, words.type, words.message, ...CSV_HEADERS[language]];
  const body = problems.map((problem) => {
    const row = problem.row ?? rowOf(problem.pointer);
    const column = columnOf(problem);
    const cells = row === undefined ? undefined : rows.get(row)?.cells;
    return [
      row === undefined ? null : String(row),
      column === undefined ? null : CSV_HEADERS[language][CSV_COLUMNS.indexOf(column)]!,
      problem.severity === 'warning' ? words.warning : words.error,
      fieldMessage(language, problem),
      ...CSV_COLUMNS.map((c) => cells?.[c] ?? null),
    ];
  });
  const bytes = writeCsv(header, body, CSV_DIALECTS[dialect]);
  const base =
    (file.name ?? '')
      .replace(/\.csv$/i, '')
      .replace(/[^\p{L}\p{N}_-]+/gu, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 60) || 'declaration';
  return { href: `data:text/csv;charset=utf-8;base64,${bytes.toString('base64')}`, fileName: words.fileName(base), total, max };
}

const rowOf = (pointer: string) => {
  const match = /^\/rows\/(\d+)/.exec(pointer);
  return match ? Number(match[1]) : undefined;
};

function columnOf(problem: ReportedProblem): Column | undefined {
  const named = /^\/rows\/\d+\/(\w+)$/.exec(problem.pointer)?.[1] ?? problem.params?.field ?? problem.params?.column;
  return (CSV_COLUMNS as readonly unknown[]).includes(named) ? (named as Column) : undefined;
}
