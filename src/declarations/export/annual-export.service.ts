import { Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Injectable } from '@nestjs/common';
import type { Response } from 'express';
import { CSV_DIALECTS, type CsvDialectName } from '../../common/csv/csv-dialect.js';
import { CSV_MEDIA_TYPE, csvDecimal, csvRow, UTF8_BOM } from '../../common/csv/write-csv.js';
import { NotFoundProblem, ValidationProblem } from '../../common/problem/problem.js';
import { ReferenceCatalogue } from '../../reference/reference-catalogue.js';
import { Clock } from '../clock.js';
import { type AnnualRow, AnnualExportRepository, type AnnualSnapshot } from './annual-export.repository.js';
import { periodEnded } from './liability.js';

export interface MissingRow {
  clientId: string;
  company: string | null;
  email: string | null;
  missing: string[];
}

/** The columns of the CSV, in each dialect's words (French headers for the French dialect). */
export const ANNUAL_CSV_COLUMNS = {
  en: [
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
  ],
  fr: [
    'type',
    'année',
    'éco-organisme',
    'identifiant client',
    'société',
    'pays',
    'IDU',
    'filière',
    'matériau',
    'catégorie de matériau',
    'unité',
    'quantité',
    'reçu S1',
    'reçu S2',
    'semestres manquants',
  ],
} as const;

/**
 * The annual filing per eco-organism (issue 33): what each client files for a year, S1 + S2 from
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
  ): Promise<void> {
    if (!/^[0-9]{4}$/.test(yearText)) throw new NotFoundProblem('The year (four digits, e.g. 2025)');
    const year = Number(yearText);
    if (ecoOrganism !== undefined) this.checkEcoOrganism(ecoOrganism);
    const eco = ecoOrganism ?? null;
    const dialect = CSV_DIALECTS[dialectName];
    await this.repository.streamRows(year, eco, async (rows, snapshot) => {
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
      const writer = format === 'csv' ? new CsvWriter(year, eco, dialect, missing) : new JsonWriter(year, eco, missing);
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

abstract class ExportWriter extends Transform {
  private started = false;
  constructor() {
    super({ writableObjectMode: true });
  }
  protected abstract head(): string | Buffer;
  protected abstract row(row: AnnualRow, index: number): string;
  protected abstract tail(): Promise<string>;
  private index = 0;

  override _transform(row: AnnualRow, _encoding: BufferEncoding, callback: TransformCallback): void {
    if (!this.started) {
      this.started = true;
      this.push(this.head());
    }
    this.push(this.row(row, this.index++));
    callback();
  }

  override _flush(callback: TransformCallback): void {
    if (!this.started) this.push(this.head());
    this.tail().then((text) => callback(null, text), callback);
  }
}

class JsonWriter extends ExportWriter {
  constructor(
    private readonly year: number,
    private readonly eco: string | null,
    private readonly missing: () => Promise<MissingRow[]>,
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
      material: r.categorised ? null : r.material,
      material_category: r.categorised ? r.material : null,
      unit: r.unit,
      quantity: r.quantity,
      revisions: { s1: r.s1Receipt, s2: r.s2Receipt },
    };
    return `${index === 0 ? '' : ','}\n${JSON.stringify(row)}`;
  }
  protected async tail(): Promise<string> {
    const missing = (await this.missing()).map((m) => ({
      client_id: m.clientId,
      company: m.company,
      email: m.email,
      missing_periods: m.missing,
    }));
    return `\n],"missing_clients":${JSON.stringify(missing)}}\n`;
  }
}

class CsvWriter extends ExportWriter {
  constructor(
    private readonly year: number,
    private readonly eco: string | null,
    private readonly dialect: (typeof CSV_DIALECTS)[CsvDialectName],
    private readonly missing: () => Promise<MissingRow[]>,
  ) {
    super();
  }
  protected head(): Buffer {
    return Buffer.concat([UTF8_BOM, Buffer.from(csvRow(ANNUAL_CSV_COLUMNS[this.dialect.name], this.dialect), 'utf8')]);
  }
  protected row(r: AnnualRow): string {
    return csvRow(
      [
        'total',
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
          ],
          this.dialect,
        ),
      )
      .join('');
  }
}
