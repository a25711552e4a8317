import { Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Injectable } from '@nestjs/common';
import { stringify } from 'csv-stringify/sync';
import type { Response } from 'express';
import { type FieldError, NotFoundProblem, ValidationProblem } from '../common/problem/problem.js';
import { neutraliseCell } from '../common/csv/spreadsheet-cells.js';
import { API_CSV_DIALECT, CSV_DIALECTS, type CsvDialect, type CsvDialectName } from '../common/csv/csv-dialect.js';
import { perLanguage } from '../i18n/languages.js';
import { csvDecimal, csvRow } from '../common/csv/write-csv.js';
import { csvHeader } from '../i18n/csv-columns.js';
import { PERIOD_PATTERN } from '../calendar/half-year.js';
import { Clock } from '../calendar/clock.js';
import { ReferenceCatalogue } from '../reference/reference-catalogue.js';
import { periodEnded } from '../calendar/half-year.js';
import type { PeriodSummary } from './period-summary.js';
import { type ExportDetailRow, type ExportLineRow, PeriodExportRepository } from './period-export.repository.js';
import {
  type ExportDetail,
  NO_PRODUCT_CELLS,
  PRODUCT_COLUMN_CODES,
  PRODUCT_CSV_COLUMNS,
  productCells,
  type ProductElementRow,
  productJson,
} from './export-products.js';

export type ExportFormat = 'json' | 'csv';

/** The CSV columns, in order (one row per client and line). */
export const CSV_COLUMNS = [
  'period',
  'client_id',
  'company',
  'country',
  'idus',
  'declaration_id',
  'revision',
  'receipt',
  'submitted_at',
  'stream',
  'material',
  'material_category',
  'unit',
  'quantity',
  'eco_organism',
] as const;

/**
 * The header row in each dialect, from the catalogue of its language (`files.columns.periodExport`):
 * the codes, or the French words (the annual export's where they are the same columns).
 */
export const CSV_HEADERS: Readonly<Record<CsvDialectName, readonly string[]>> = perLanguage((language) =>
  csvHeader('periodExport', CSV_COLUMNS, language),
);

/** The CSV columns with `detail=products`: the export's, then the product's (empty on a line of a declaration entered directly). */
export const CSV_DETAIL_COLUMNS = [...CSV_COLUMNS, ...PRODUCT_COLUMN_CODES] as const;
export const CSV_DETAIL_HEADERS: Readonly<Record<CsvDialectName, readonly string[]>> = perLanguage((language) => [
  ...CSV_HEADERS[language],
  ...PRODUCT_CSV_COLUMNS[language],
]);

/** IDUs share one CSV cell. */
export const IDU_SEPARATOR = '; ';

/** How an export is written: its opening, one chunk per declaration (its rows, in line order), its end. */
interface ExportFormatter {
  start(): string;
  declaration(rows: ExportLineRow[], index: number): string;
  end(): string;
}

/**
 * Rows arrive in client, then line order: the rows of one declaration (at most 1000) are
 * gathered and written as one chunk. Bounded memory; backpressure comes from the response
 * (a Transform stops taking rows while its output is not read).
 */
class ByDeclaration extends Transform {
  private started = false;
  private written = 0;
  private rows: ExportLineRow[] = [];

  constructor(private readonly formatter: ExportFormatter) {
    super({ writableObjectMode: true });
  }

  override _transform(row: ExportLineRow, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.start();
    if (this.rows.length > 0 && this.rows[0]!.declarationId !== row.declarationId) this.writeDeclaration();
    this.rows.push(row);
    callback();
  }

  override _flush(callback: TransformCallback): void {
    this.start();
    this.writeDeclaration();
    this.push(this.formatter.end());
    callback();
  }

  private start(): void {
    if (this.started) return;
    this.started = true;
    this.push(this.formatter.start());
  }

  private writeDeclaration(): void {
    if (this.rows.length === 0) return;
    this.push(this.formatter.declaration(this.rows, this.written++));
    this.rows = [];
  }
}

/** A declaration of the JSON export: its head from `first`, its `rows` as lines. */
const declarationJson = (first: ExportLineRow, rows: ExportLineRow[], index: number) => {
  const declaration = {
    client_id: first.clientId,
    company: first.company,
    country: first.country,
    idus: first.idus,
    declaration_id: first.declarationId,
    revision: first.revision,
    receipt: first.receipt,
    submitted_at: first.submittedAt,
    lines: rows.map((row) => ({
      stream: row.stream,
      material: row.material,
      material_category: row.materialCode,
      unit: row.unit,
      quantity: row.quantity,
      eco_organism: row.ecoOrganism,
    })),
    units_sold: (first.unitsSold ?? []).map((entry) => ({ stream: entry.stream, quantity: entry.quantity })),
  };
  return `${index === 0 ? '' : ','}\n${JSON.stringify(declaration)}`;
};

const jsonFormatter = (period: string): ExportFormatter => ({
  start: () => `{"period":${JSON.stringify(period)},"declarations":[`,
  declaration: (rows, index) => declarationJson(rows[0]!, rows, index),
  end: () => '\n]}\n',
});

/**
 * A declaration's rows as CSV cells, in the order of CSV_COLUMNS; `quantity` writes the exact decimal text.
 * Its units sold follow its lines: one row per stream, unit `uvc`, material empty (as the client's files write them).
 */
const csvCells = (period: string, rows: ExportLineRow[], quantity: (value: string) => string) => [
  ...lineCells(period, rows, quantity),
  ...lineCells(period, unitsSoldRows(rows), quantity),
];

/** The units sold of the declaration of `rows`, as rows of the export (unit `uvc`, no material). */
function unitsSoldRows(rows: ExportLineRow[]): ExportLineRow[] {
  const first = rows[0];
  if (!first) return [];
  return (first.unitsSold ?? []).map((entry) => ({
    ...first,
    stream: entry.stream,
    material: '',
    materialCode: null,
    unit: 'uvc',
    quantity: entry.quantity,
    ecoOrganism: rows.find((row) => row.stream === entry.stream)?.ecoOrganism ?? null,
  }));
}

const lineCells = (period: string, rows: ExportLineRow[], quantity: (value: string) => string) =>
  rows.map((row) => [
    period,
    row.clientId,
    row.company ?? '',
    row.country ?? '',
    row.idus.join(IDU_SEPARATOR),
    row.declarationId,
    String(row.revision),
    row.receipt,
    row.submittedAt,
    row.stream,
    row.material,
    row.materialCode ?? '',
    row.unit,
    quantity(row.quantity),
    row.ecoOrganism ?? '',
  ]);

/** A dialect other than the API's (French: `;`, decimal comma, French headers, BOM), written by the annual export's writer (common/csv/write-csv.ts). */
const spreadsheetCsvFormatter = (period: string, dialect: CsvDialect): ExportFormatter => {
  return {
    start: () => `\ufeff${csvRow(CSV_HEADERS[dialect.name], dialect)}`,
    declaration: (rows) =>
      csvCells(period, rows, (value) => csvDecimal(value, dialect))
        .map((cells) => csvRow(cells, dialect))
        .join(''),
    end: () => '',
  };
};

const csvFormatter = (period: string): ExportFormatter => {
  // Every part of a cell a spreadsheet could run as a formula, after whichever separator it splits on, starts with `'`
  // (neutraliseCell); a cell holding `;` or a tab is quoted too, so that a spreadsheet splitting on it keeps the cell whole.
  const options = { cast: { string: neutraliseCell }, quoted_match: /[;\t]/ };
  return {
    start: () => stringify([[...CSV_HEADERS.en]]),
    declaration: (rows) =>
      stringify(
        csvCells(period, rows, (value) => value),
        options,
      ),
    end: () => '',
  };
};

/**
 * How an export with `detail=products` is written: a declaration's head and lines once its lines
 * are read, then each product version it was derived from as its elements arrive, then its end.
 */
interface DetailFormatter {
  start(): string;
  /** `head`: the declaration's first row; `lines`: its lines; `index`: the declaration's rank. */
  open(head: ExportDetailRow, lines: ExportDetailRow[], index: number): string;
  /** One product version's elements (consecutive rows of one reference); `index`: its rank in the declaration. */
  product(elements: ExportDetailRow[], index: number): string;
  /** `head`: the declaration's first row; `products`: how many product versions were written. */
  close(head: ExportDetailRow, products: number): string;
  end(): string;
}

/**
 * Rows arrive per declaration, its lines first, then its product elements by reference: a
 * declaration's lines (at most 1000) are gathered, then each product's elements (at most 50), so
 * that a declaration derived from 10,000 products streams too. Backpressure as in ByDeclaration.
 */
class ByDeclarationWithProducts extends Transform {
  private started = false;
  private written = 0;
  private head: ExportDetailRow | undefined;
  private lines: ExportDetailRow[] = [];
  private opened = false;
  private products = 0;
  private product: ExportDetailRow[] = [];

  constructor(private readonly formatter: DetailFormatter) {
    super({ writableObjectMode: true });
  }

  override _transform(row: ExportDetailRow, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.start();
    if (this.head && this.head.declarationId !== row.declarationId) this.closeDeclaration();
    this.head ??= row;
    if (!row.element) {
      this.lines.push(row);
    } else {
      if (!this.opened) this.open();
      if (this.product.length > 0 && this.product[0]!.reference !== row.reference) this.writeProduct();
      this.product.push(row);
    }
    callback();
  }

  override _flush(callback: TransformCallback): void {
    this.start();
    this.closeDeclaration();
    this.push(this.formatter.end());
    callback();
  }

  private start(): void {
    if (this.started) return;
    this.started = true;
    this.push(this.formatter.start());
  }

  private open(): void {
    this.opened = true;
    this.push(this.formatter.open(this.head!, this.lines, this.written++));
    this.lines = [];
  }

  private writeProduct(): void {
    this.push(this.formatter.product(this.product, this.products++));
    this.product = [];
  }

  private closeDeclaration(): void {
    if (!this.head) return;
    if (!this.opened) this.open();
    if (this.product.length > 0) this.writeProduct();
    this.push(this.formatter.close(this.head, this.products));
    this.head = undefined;
    this.opened = false;
    this.products = 0;
  }
}

/** An element row's product fields (set on every element row). */
const elementOf = (row: ExportDetailRow): ProductElementRow => ({
  reference: row.reference!,
  name: row.name!,
  gtin: row.gtin,
  validFrom: row.validFrom!,
  stream: row.stream,
  units: row.units!,
  position: row.position!,
  materialCode: row.materialCode!,
  weightG: row.weightG!,
  perUnit: row.perUnit!,
  kg: row.quantity,
  packagingCategory: row.packagingCategory,
  reuseStatus: row.reuseStatus,
});

/** The JSON export with each declaration's `products`: the versions it was derived from, or null for a declaration entered directly. */
const jsonDetailFormatter = (period: string, catalogue: ReferenceCatalogue): DetailFormatter => {
  const plain = jsonFormatter(period);
  return {
    start: plain.start,
    // The declaration as without the detail (its head from its first row), its closing brace left open for `products`.
    open: (head, lines, index) => declarationJson(head, lines, index).slice(0, -1),
    product: (elements, index) =>
      `${index === 0 ? ',"products":[' : ','}\n${JSON.stringify(productJson(elements.map(elementOf), catalogue))}`,
    close: (head, products) => (!head.derived ? ',"products":null}' : products === 0 ? ',"products":[]}' : '\n]}'),
    end: plain.end,
  };
};

/**
 * The CSV export with `detail=products`: a declaration derived from the catalogue is written as
 * one row per packaging element of each product version it used (unit `kg`, quantity the kg the
 * element gave, exact), a declaration entered directly as its lines with the product columns empty.
 */
const csvDetailFormatter = (period: string, dialect: CsvDialect): DetailFormatter => {
  const french = dialect.name !== API_CSV_DIALECT.name;
  const options = { cast: { string: neutraliseCell }, quoted_match: /[;\t]/ };
  const decimal = (value: string) => (french ? csvDecimal(value, dialect) : value);
  const write = (rows: string[][]) => (french ? rows.map((cells) => csvRow(cells, dialect)).join('') : stringify(rows, options));
  return {
    start: () => (french ? `\ufeff${csvRow(CSV_DETAIL_HEADERS[dialect.name], dialect)}` : stringify([[...CSV_DETAIL_HEADERS.en]])),
    open: (head, lines) =>
      head.derived || lines.length === 0 ? '' : write(csvCells(period, lines, decimal).map((cells) => [...cells, ...NO_PRODUCT_CELLS])),
    product: (elements) => {
      const products = elements.map(elementOf);
      return write(lineCells(period, elements, decimal).map((cells, i) => [...cells, ...productCells(products[i]!, decimal)]));
    },
    // A derived declaration's units sold follow its products (written after its lines for one entered directly).
    close: (head) =>
      head.derived ? write(lineCells(period, unitsSoldRows([head]), decimal).map((cells) => [...cells, ...NO_PRODUCT_CELLS])) : '',
    end: () => '',
  };
};

/** A period's filing export (streamed) and its summary. */
@Injectable()
export class PeriodExportService {
  constructor(
    private readonly repository: PeriodExportRepository,
    private readonly clock: Clock,
    private readonly catalogue: ReferenceCatalogue,
  ) {}

  /**
   * Writes the export to `res` as it is read: headers once the snapshot is taken, then the body
   * with backpressure. A failure before the first byte is a problem response; after it, the
   * connection is cut (a truncated body must never look complete).
   */
  async writeExport(
    period: string,
    format: ExportFormat,
    res: Response,
    dialect: CsvDialect = CSV_DIALECTS.en,
    detail?: ExportDetail,
    ecoOrganism?: string,
  ): Promise<void> {
    checkPeriod(period);
    if (ecoOrganism !== undefined) this.checkEcoOrganism(ecoOrganism, detail);
    const head = () => {
      res.status(200);
      if (format === 'csv') {
        const suffix = ecoOrganism ? `-${ecoOrganism.normalize('NFD').replace(/[^A-Za-z0-9]+/g, '-')}` : '';
        res.setHeader('Content-Type', 'text/csv; charset=utf-8');
        res.setHeader('Content-Disposition', `attachment; filename="epr-declarations-${period}${suffix}.csv"`);
      } else {
        res.setHeader('Content-Type', 'application/json; charset=utf-8');
      }
    };
    if (detail === 'products') {
      await this.repository.streamLinesWithProducts(period, async (rows) => {
        head();
        const formatter = format === 'json' ? jsonDetailFormatter(period, this.catalogue) : csvDetailFormatter(period, dialect);
        await pipeline(rows, new ByDeclarationWithProducts(formatter), res);
      });
      return;
    }
    await this.repository.streamLines(
      period,
      async (rows) => {
        head();
        const formatter =
          format === 'json'
            ? jsonFormatter(period)
            : dialect.name !== API_CSV_DIALECT.name
              ? spreadsheetCsvFormatter(period, dialect)
              : csvFormatter(period);
        await pipeline(rows, new ByDeclaration(formatter), res);
      },
      ecoOrganism ?? null,
    );
  }

  /** 422 for an eco-organism the published data does not list, and with the per-product detail (not filtered by eco-organism). */
  private checkEcoOrganism(name: string, detail: ExportDetail | undefined): void {
    const listed = this.catalogue.ecoOrganismNames();
    const errors: FieldError[] = [];
    if (!listed.includes(name)) {
      errors.push({
        pointer: '/query/eco_organism',
        code: 'unknown_eco_organism',
        detail: `"${name}" is not an eco-organism the published data lists; choose one of: ${listed.join(', ')}`,
        params: { value: name, listed },
      });
    }
    if (detail === 'products') {
      errors.push({
        pointer: '/query/detail',
        code: 'invalid_export_detail',
        detail: 'detail=products cannot be combined with eco_organism; ask for the export without one of them',
      });
    }
    if (errors.length > 0) throw new ValidationProblem(errors);
  }

  async summary(period: string): Promise<PeriodSummary> {
    checkPeriod(period);
    const ended = periodEnded(period, this.clock.now());
    const figures = await this.repository.summary(period, ended);
    // Counts per material do not add up across materials: the stream totals are of masses only.
    return { ...figures, period, ended, streamTotals: figures.streamTotals.filter((t) => this.catalogue.addsAcrossMaterials(t.unit)) };
  }
}

function checkPeriod(period: string): void {
  if (!PERIOD_PATTERN.test(period)) throw new NotFoundProblem('The period (a half-year is written YYYY-S1 or YYYY-S2)');
}
