import { Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Injectable } from '@nestjs/common';
import { stringify } from 'csv-stringify/sync';
import type { Response } from 'express';
import { NotFoundProblem } from '../../common/problem/problem.js';
import { neutraliseCell } from '../../common/csv/spreadsheet-cells.js';
import { CSV_DIALECTS, type CsvDialect } from '../../common/csv/csv-dialect.js';
import { csvDecimal, csvRow } from '../../common/csv/write-csv.js';
import { PERIOD_PATTERN } from '../period.js';
import { Clock } from '../clock.js';
import { periodEnded } from './liability.js';
import type { PeriodSummaryDto } from './dto/period-export.dto.js';
import { type ExportLineRow, PeriodExportRepository } from './period-export.repository.js';

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

/** The columns in French, for the French dialect (the annual export's words where they are the same columns). */
export const CSV_COLUMNS_FR: Readonly<Record<(typeof CSV_COLUMNS)[number], string>> = {
  period: 'période',
  client_id: 'identifiant client',
  company: 'société',
  country: 'pays',
  idus: 'IDU',
  declaration_id: 'identifiant de déclaration',
  revision: 'révision',
  receipt: 'reçu',
  submitted_at: 'date de dépôt',
  stream: 'filière',
  material: 'matériau',
  material_category: 'catégorie de matériau',
  unit: 'unité',
  quantity: 'quantité',
  eco_organism: 'éco-organisme',
};

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

const jsonFormatter = (period: string): ExportFormatter => ({
  start: () => `{"period":${JSON.stringify(period)},"declarations":[`,
  declaration: (rows, index) => {
    const first = rows[0]!;
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
    };
    return `${index === 0 ? '' : ','}\n${JSON.stringify(declaration)}`;
  },
  end: () => '\n]}\n',
});

/** A declaration's rows as CSV cells, in the order of CSV_COLUMNS; `quantity` writes the exact decimal text. */
const csvCells = (period: string, rows: ExportLineRow[], quantity: (value: string) => string) =>
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

/** The French dialect (`;`, decimal comma, French headers, BOM), written by the annual export's writer (common/csv/write-csv.ts). */
const frenchCsvFormatter = (period: string): ExportFormatter => {
  const dialect = CSV_DIALECTS.fr;
  return {
    start: () =>
      `\ufeff${csvRow(
        CSV_COLUMNS.map((c) => CSV_COLUMNS_FR[c]),
        dialect,
      )}`,
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
    start: () => stringify([[...CSV_COLUMNS]]),
    declaration: (rows) =>
      stringify(
        csvCells(period, rows, (value) => value),
        options,
      ),
    end: () => '',
  };
};

/** A period's filing export (streamed) and its summary. */
@Injectable()
export class PeriodExportService {
  constructor(
    private readonly repository: PeriodExportRepository,
    private readonly clock: Clock,
  ) {}

  /**
   * Writes the export to `res` as it is read: headers once the snapshot is taken, then the body
   * with backpressure. A failure before the first byte is a problem response; after it, the
   * connection is cut (a truncated body must never look complete).
   */
  async writeExport(period: string, format: ExportFormat, res: Response, dialect: CsvDialect = CSV_DIALECTS.en): Promise<void> {
    checkPeriod(period);
    await this.repository.streamLines(period, async (rows) => {
      res.status(200);
      if (format === 'csv') {
        res.setHeader('Content-Type', 'text/csv; charset=utf-8');
        res.setHeader('Content-Disposition', `attachment; filename="epr-declarations-${period}.csv"`);
      } else {
        res.setHeader('Content-Type', 'application/json; charset=utf-8');
      }
      const formatter =
        format === 'json' ? jsonFormatter(period) : dialect.name === 'fr' ? frenchCsvFormatter(period) : csvFormatter(period);
      await pipeline(rows, new ByDeclaration(formatter), res);
    });
  }

  async summary(period: string): Promise<PeriodSummaryDto> {
    checkPeriod(period);
    const ended = periodEnded(period, this.clock.now());
    const s = await this.repository.summary(period, ended);
    return {
      period,
      ended,
      clients: { confirmed: s.confirmedClients, liable: s.liableClients, declared: s.declaredClients, missing: s.missing.length },
      missing_clients: s.missing.map((m) => ({ client_id: m.clientId, company: m.company, email: m.email })),
      totals: s.totals.map((t) => ({
        stream: t.stream,
        material_category: t.materialCode,
        material: t.material,
        unit: t.unit,
        quantity: t.quantity,
        client_count: t.clientCount,
        line_count: t.lineCount,
      })),
      stream_totals: s.streamTotals,
    };
  }
}

function checkPeriod(period: string): void {
  if (!PERIOD_PATTERN.test(period)) throw new NotFoundProblem('The period (a half-year is written YYYY-S1 or YYYY-S2)');
}
