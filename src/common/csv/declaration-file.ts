// The shape of a declaration file (its columns, how its lines are written): published by reference/ as the
// blank template and written by declarations/ for a download, so it sits below both.
import { CSV_DIALECTS, type CsvDialect } from './csv-dialect.js';
import { csvDecimal, writeCsv } from './write-csv.js';

/** The columns of a declaration file, in the order the service writes them. */
export const CSV_COLUMNS = ['stream', 'material', 'unit', 'quantity'] as const;

export interface CsvLine {
  stream: string;
  material: string;
  unit: string;
  /** Exact decimal text. */
  quantity: string;
}

/** A declaration as a spreadsheet opens it (common/csv/write-csv.ts): the header, then one row per line. */
export function writeDeclarationCsv(lines: readonly CsvLine[], dialect: CsvDialect = CSV_DIALECTS.en): Buffer {
  return writeCsv(
    CSV_COLUMNS,
    lines.map((line) => [line.stream, line.material, line.unit, csvDecimal(line.quantity, dialect)]),
    dialect,
  );
}
