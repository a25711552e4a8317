import { Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Injectable } from '@nestjs/common';
import type { Response } from 'express';
import { CSV_DIALECTS, type CsvDialectName } from '../common/csv/csv-dialect.js';
import { perLanguage } from '../i18n/languages.js';
import { CSV_MEDIA_TYPE, csvDecimal, csvRow, UTF8_BOM } from '../common/csv/write-csv.js';
import { NotFoundProblem, ValidationProblem } from '../common/problem/problem.js';
import { csvHeader } from '../i18n/csv-columns.js';
import { ReferenceCatalogue } from '../reference/reference-catalogue.js';
import { Clock } from '../calendar/clock.js';
import { type AnnualDetailRow, type AnnualRow, AnnualExportRepository, type AnnualSnapshot } from './annual-export.repository.js';
import { periodEnded } from '../calendar/half-year.js';
import {
  type ExportDetail,
  PRODUCT_COLUMN_CODES,
  PRODUCT_CSV_COLUMNS,
  productCells,
  type ProductElementRow,
  productJson,
} from './export-products.js';

export interface MissingRow {
  clientId: string;
  company: string | null;
  email: string | null;
  missing: string[];
}

/** The columns of the CSV, by code. */
export const ANNUAL_COLUMN_CODES = [
  'kind',
  'year',
  'eco_organism',
  'client_id',
  'company',
  'country',
  'idus',
  'stream',
  'material',
  'material_category',
  'unit',
  'quantity',
  's1_receipt',
  's2_receipt',
  'missing_periods',
] as const;

/** The columns of the CSV, in each dialect's words, from the catalogue of its language (French headers for the French dialect). */
export const ANNUAL_CSV_COLUMNS: Readonly<Record<CsvDialectName, readonly string[]>> = perLanguage((language) =>
  csvHeader('annualExport', ANNUAL_COLUMN_CODES, language),
);

/** With `detail=products`: the CSV's columns, then the half-year of a `product` row, then the product's columns. */
export const ANNUAL_CSV_DETAIL_COLUMNS: Readonly<Record<CsvDialectName, readonly string[]>> = perLanguage((language) => [
  ...ANNUAL_CSV_COLUMNS[language],
  ...csvHeader('annualExport', ['period'], language),
  ...PRODUCT_CSV_COLUMNS[language],
]);

/** A detail row among the filing's rows, as the writers receive it. */
class DetailItem {
  constructor(readonly row: AnnualDetailRow) {}
}

/**
 * The annual filing per eco-organism: what each client files for a year, S1 + S2 from
 * the current revisions, and who has an ended, liable half-year of it undeclared. Streamed from
 * one REPEATABLE READ snapshot through a cursor, like the period export.
 */
@Injectable()
export class AnnualExportService {
  constructor(
    private readonly repository: AnnualExportRepository,
    private readonly catalogue: ReferenceCatalogue,
    private readonly clock: Clock,
  ) {}

  async write(
    yearText: string,
    ecoOrganism: string | undefined,
    format: 'json' | 'csv',
    dialectName: CsvDialectName,
    res: Response,
    detail?: ExportDetail,
  ): Promise<void> {
    if (!/^[0-9]{4}$/.test(yearText)) throw new NotFoundProblem('The year (four digits, e.g. 2025)');
    const year = Number(yearText);
    if (ecoOrganism !== undefined) this.checkEcoOrganism(ecoOrganism);
    const eco = ecoOrganism ?? null;
    const dialect = CSV_DIALECTS[dialectName];
    await this.repository.streamRows(year, eco, async (totals, snapshot) => {
      // With the detail, its cursor is opened once the totals' is read to its end, on the same connection and snapshot.
      const rows = detail === 'products' ? withDetail(totals, snapshot) : totals;
      res.status(200);
      if (format === 'csv') {
        res.setHeader('Content-Type', CSV_MEDIA_TYPE);
        res.setHeader(
          'Content-Disposition',
          `attachment; filename="epr-annual-${year}${eco ? `-${eco.normalize('NFD').replace(/[^A-Za-z0-9]+/g, '-')}` : ''}.csv"`,
        );
      } else {
        res.setHeader('Content-Type', 'application/json; charset=utf-8');
      }
      // The missing half-years are read after the rows, in the same snapshot, and written last.
      const missing = () => this.missing(snapshot, year);
      const withProducts = detail === 'products';
      const writer =
        format === 'csv'
          ? new CsvWriter(year, eco, dialect, missing, withProducts)
          : new JsonWriter(year, eco, missing, withProducts, this.catalogue);
      await pipeline(rows, writer, res);
    });
  }

  /** Clients liable for an ended half-year of the year (for a stream of the eco-organism, if one is named) without a current declaration of it. */
  private async missing(snapshot: AnnualSnapshot, year: number): Promise<MissingRow[]> {
    const now = this.clock.now();
    const periods = [`${year}-S1`, `${year}-S2`].filter((p) => periodEnded(p, now));
    const out = new Map<string, MissingRow>();
    for (const period of periods) {
      const rows = await snapshot.undeclared(period);
      for (const row of rows) {
        const entry = out.get(row.clientId) ?? { ...row, missing: [] };
        entry.missing.push(period);
        out.set(row.clientId, entry);
      }
    }
    return [...out.values()].sort((a, b) => (a.clientId < b.clientId ? -1 : 1));
  }

  private checkEcoOrganism(name: string): void {
    const listed = [
      ...new Set(
        this.catalogue
          .streamCodes()
          .flatMap((code) =>
            (this.catalogue.stream(code)?.eco_organisms ?? []).filter((o) => o.role !== 'coordinating_body').map((o) => o.name),
          ),
      ),
    ];
    if (!listed.includes(name)) {
      throw new ValidationProblem([
        {
          pointer: '/query/eco_organism',
          code: 'unknown_eco_organism',
          detail: `"${name}" is not an eco-organism the published data lists; choose one of: ${listed.join(', ')}`,
          params: { value: name, listed },
        },
      ]);
    }
  }
}

/** The filing's total rows, then (once they are read, in the same snapshot) the detail's rows. */
async function* withDetail(totals: AsyncIterable<AnnualRow>, snapshot: AnnualSnapshot): AsyncGenerator<AnnualRow | DetailItem> {
  yield* totals;
  for await (const row of snapshot.detail()) yield new DetailItem(row);
}

/** An element of a detail row (one whose `reference` is set). */
const elementOf = (row: AnnualDetailRow) => row as ProductElementRow;

/**
 * The filing's rows, then with the detail its declarations: the writers write a declaration's
 * opening (`declaration`, at its first detail row), each product once its elements are read
 * (`productOf`, at most 50 elements held) and its end (`close`), so that the detail streams like the rows.
 */
abstract class ExportWriter extends Transform {
  private started = false;
  private current: AnnualDetailRow | undefined;
  private product: AnnualDetailRow[] = [];
  private products = 0;
  private declarations = 0;
  constructor() {
    super({ writableObjectMode: true });
  }
  protected abstract head(): string | Buffer;
  protected abstract row(row: AnnualRow, index: number): string;
  protected abstract tail(): Promise<string>;
  protected declaration(_head: AnnualDetailRow, _index: number): string {
    return '';
  }
  protected productOf(_elements: AnnualDetailRow[], _index: number): string {
    return '';
  }
  protected close(_head: AnnualDetailRow, _products: number): string {
    return '';
  }
  /** How many declarations the detail held (the JSON writer closes its array). */
  protected get declarationCount(): number {
    return this.declarations;
  }
  private index = 0;

  override _transform(item: AnnualRow | DetailItem, _encoding: BufferEncoding, callback: TransformCallback): void {
    if (!this.started) {
      this.started = true;
      this.push(this.head());
    }
    if (item instanceof DetailItem) this.detail(item.row);
    else this.push(this.row(item, this.index++));
    callback();
  }

  override _flush(callback: TransformCallback): void {
    if (!this.started) this.push(this.head());
    this.closeDeclaration();
    this.tail().then((text) => callback(null, text), callback);
  }

  private detail(row: AnnualDetailRow): void {
    if (this.current && this.current.declarationId !== row.declarationId) this.closeDeclaration();
    if (!this.current) {
      this.current = row;
      this.push(this.declaration(row, this.declarations++));
    }
    if (row.reference === null) return;
    if (this.product.length > 0 && this.product[0]!.reference !== row.reference) this.writeProduct();
    this.product.push(row);
  }

  private writeProduct(): void {
    this.push(this.productOf(this.product, this.products++));
    this.product = [];
  }

  private closeDeclaration(): void {
    if (!this.current) return;
    if (this.product.length > 0) this.writeProduct();
    this.push(this.close(this.current, this.products));
    this.current = undefined;
    this.products = 0;
  }
}

class JsonWriter extends ExportWriter {
  constructor(
    private readonly year: number,
    private readonly eco: string | null,
    private readonly missing: () => Promise<MissingRow[]>,
    private readonly withProducts = false,
    private readonly catalogue?: ReferenceCatalogue,
  ) {
    super();
  }
  protected head(): string {
    return `{"year":${this.year},"eco_organism":${JSON.stringify(this.eco)},"rows":[`;
  }
  protected row(r: AnnualRow, index: number): string {
    const row = {
      client_id: r.clientId,
      company: r.company,
      country: r.country,
      idus: r.idus,
      eco_organism: r.ecoOrganism,
      stream: r.stream,
      // The units sold are no material's: both null, unit `uvc`.
      material: r.categorised || r.unitsSold ? null : r.material,
      material_category: r.categorised ? r.material : null,
      unit: r.unit,
      quantity: r.quantity,
      revisions: { s1: r.s1Receipt, s2: r.s2Receipt },
    };
    return `${index === 0 ? '' : ','}\n${JSON.stringify(row)}`;
  }
  protected override declaration(head: AnnualDetailRow, index: number): string {
    const opening = index === 0 ? '\n],"declarations":[' : ',';
    const { clientId, period, declarationId, receipt } = head;
    const entry = JSON.stringify({ client_id: clientId, period, declaration_id: declarationId, receipt });
    return `${opening}\n${entry.slice(0, -1)},"products":${head.derived ? '[' : 'null'}`;
  }
  protected override productOf(elements: AnnualDetailRow[], index: number): string {
    return `${index === 0 ? '' : ','}\n${JSON.stringify(productJson(elements.map(elementOf), this.catalogue!))}`;
  }
  protected override close(head: AnnualDetailRow): string {
    return head.derived ? ']}' : '}';
  }
  protected async tail(): Promise<string> {
    const missing = (await this.missing()).map((m) => ({
      client_id: m.clientId,
      company: m.company,
      email: m.email,
      missing_periods: m.missing,
    }));
    // With the detail, `declarations` follows `rows` (opened by the first declaration, or empty).
    const declarations = !this.withProducts ? '' : this.declarationCount === 0 ? '\n],"declarations":[' : '';
    return `${declarations}\n],"missing_clients":${JSON.stringify(missing)}}\n`;
  }
}

class CsvWriter extends ExportWriter {
  constructor(
    private readonly year: number,
    private readonly eco: string | null,
    private readonly dialect: (typeof CSV_DIALECTS)[CsvDialectName],
    private readonly missing: () => Promise<MissingRow[]>,
    private readonly withProducts = false,
  ) {
    super();
  }
  /** With the detail, the empty cells of the half-year and product columns after a `total` or `missing` row. */
  private get noProduct(): null[] {
    return this.withProducts ? [null, ...PRODUCT_COLUMN_CODES.map(() => null)] : [];
  }
  protected head(): Buffer {
    const columns = (this.withProducts ? ANNUAL_CSV_DETAIL_COLUMNS : ANNUAL_CSV_COLUMNS)[this.dialect.name];
    return Buffer.concat([UTF8_BOM, Buffer.from(csvRow(columns, this.dialect), 'utf8')]);
  }
  /** A `product` row per packaging element of a derived declaration: unit `kg`, the kg the element gave, the receipt in its half-year's column. */
  protected override productOf(elements: AnnualDetailRow[]): string {
    return elements
      .map((row) => {
        const e = elementOf(row);
        const s1 = row.period.endsWith('-S1');
        return csvRow(
          [
            'product',
            String(this.year),
            row.ecoOrganism,
            row.clientId,
            row.company,
            row.country,
            row.idus.join('; '),
            e.stream,
            null,
            e.materialCode,
            'kg',
            csvDecimal(e.kg, this.dialect),
            s1 ? row.receipt : null,
            s1 ? null : row.receipt,
            null,
            row.period,
            ...productCells(e, (value) => csvDecimal(value, this.dialect)),
          ],
          this.dialect,
        );
      })
      .join('');
  }
  protected row(r: AnnualRow): string {
    return csvRow(
      [
        // The client's units sold (material empty, unit uvc), or a material's total.
        r.unitsSold ? 'units_sold' : 'total',
        String(this.year),
        r.ecoOrganism,
        r.clientId,
        r.company,
        r.country,
        r.idus.join('; '),
        r.stream,
        r.categorised ? null : r.material,
        r.categorised ? r.material : null,
        r.unit,
        csvDecimal(r.quantity, this.dialect),
        r.s1Receipt,
        r.s2Receipt,
        null,
        ...this.noProduct,
      ],
      this.dialect,
    );
  }
  protected async tail(): Promise<string> {
    return (await this.missing())
      .map((m) =>
        csvRow(
          [
            'missing',
            String(this.year),
            this.eco,
            m.clientId,
            m.company,
            null,
            null,
            null,
            null,
            null,
            null,
            null,
            null,
            null,
            m.missing.join(' '),
            ...this.noProduct,
          ],
          this.dialect,
        ),
      )
      .join('');
  }
}
