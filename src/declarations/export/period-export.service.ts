import { Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Injectable } from '@nestjs/common';
import { stringify } from 'csv-stringify';
import type { Response } from 'express';
import { NotFoundProblem } from '../../common/problem/problem.js';
import { PERIOD_PATTERN } from '../period.js';
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
] as const;

/** IDUs share one CSV cell. */
export const IDU_SEPARATOR = '; ';

/**
 * A cell a spreadsheet would run as a formula (`=`, `+`, `-`, `@`, or a tab or carriage return
 * first) is written after a `'`, so that it is shown as text (OWASP "CSV injection").
 */
export function neutraliseFormula(value: string): string {
  return /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
}

/** Rows of one declaration arrive together (client order, then line order): one JSON object per declaration. */
class DeclarationsJson extends Transform {
  private started = false;
  private written = 0;
  /** The declaration being read: its fields, and its lines so far (at most 1000). */
  private current: { id: string; fields: Record<string, unknown>; lines: unknown[] } | undefined;

  constructor(private readonly period: string) {
    super({ writableObjectMode: true });
  }

  override _transform(row: ExportLineRow, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.start();
    if (this.current?.id !== row.declarationId) {
      this.writeDeclaration();
      const fields = {
        client_id: row.clientId,
        company: row.company,
        country: row.country,
        idus: row.idus,
        declaration_id: row.declarationId,
        revision: row.revision,
        receipt: row.receipt,
        submitted_at: row.submittedAt,
      };
      this.current = { id: row.declarationId, fields, lines: [] };
    }
    this.current!.lines.push({ stream: row.stream, material: row.material, material_category: row.materialCode, unit: row.unit, quantity: row.quantity });
    callback();
  }

  override _flush(callback: TransformCallback): void {
    this.start();
    this.writeDeclaration();
    this.push('\n]}\n');
    callback();
  }

  private start(): void {
    if (this.started) return;
    this.started = true;
    this.push(`{"period":${JSON.stringify(this.period)},"declarations":[`);
  }

  private writeDeclaration(): void {
    if (!this.current) return;
    this.push(`${this.written++ === 0 ? '' : ','}\n${JSON.stringify({ ...this.current.fields, lines: this.current.lines })}`);
    this.current = undefined;
  }
}

function csvRows(period: string): Transform {
  return new Transform({
    objectMode: true,
    transform(row: ExportLineRow, _encoding, callback) {
      callback(null, [
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
        row.quantity,
      ]);
    },
  });
}

/** A period's filing export (streamed) and its summary. */
@Injectable()
export class PeriodExportService {
  constructor(private readonly repository: PeriodExportRepository) {}

  /**
   * Writes the export to `res` as it is read: headers once the snapshot is taken, then the body
   * with backpressure. A failure before the first byte is a problem response; after it, the
   * connection is cut (a truncated body must never look complete).
   */
  async writeExport(period: string, format: ExportFormat, res: Response): Promise<void> {
    checkPeriod(period);
    await this.repository.streamLines(period, async (rows) => {
      res.status(200);
      if (format === 'csv') {
        res.setHeader('Content-Type', 'text/csv; charset=utf-8');
        res.setHeader('Content-Disposition', `attachment; filename="epr-declarations-${period}.csv"`);
        const csv = stringify({ header: true, columns: [...CSV_COLUMNS], bom: false, cast: { string: neutraliseFormula } });
        await pipeline(rows, csvRows(period), csv, res);
      } else {
        res.setHeader('Content-Type', 'application/json; charset=utf-8');
        await pipeline(rows, new DeclarationsJson(period), res);
      }
    });
  }

  async summary(period: string): Promise<PeriodSummaryDto> {
    checkPeriod(period);
    const s = await this.repository.summary(period);
    return {
      period,
      clients: { confirmed: s.confirmedClients, declared: s.declaredClients, missing: s.missing.length },
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
  if (!PERIOD_PATTERN.test(period)) throw new NotFoundProblem(`Period "${period}" (a half-year is written YYYY-S1 or YYYY-S2)`);
}
