import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { KeysetPosition } from '../common/paging/keyset-cursor.js';
import { ReferenceCatalogue } from '../reference/reference-catalogue.js';
import {
  additiveTotals,
  DECLARATION_COLUMNS,
  type LineAggregate,
  type LineAggregateRow,
  lineAggregates,
  RECORD_LINES_AND_TOTALS,
} from './declarations.repository.js';
import type { Declaration, DeclarationRecord, DeclarationStatus, DeclarationSummary } from './declaration.js';

/** The operator's listing across clients. */
export interface AdminListQuery {
  clientId?: string;
  period?: string;
  stream?: string;
  status?: DeclarationStatus;
  /** `submitted_at >= submittedFrom` (RFC 3339). */
  submittedFrom?: string;
  /** `submitted_at < submittedTo` (RFC 3339). */
  submittedTo?: string;
  after?: KeysetPosition;
  /** Rows to read (the service asks one more than a page). */
  limit: number;
}

export interface Statement {
  text: string;
  values: unknown[];
}

/**
 * THE statement of one page of the operator's listing (exported so that the scale test explains
 * this very statement). Newest first, keyset on `(submitted_at, id)`: every combination of
 * filters reads an index in the order of the page (by client, by period, status=current, or all
 * of them, with the date range as the index range), so no page sorts the table.
 */
export function adminListStatement(query: AdminListQuery): Statement {
  // The operator sees live declarations only: a client's sandbox (mode 'test') is the client's alone.
  const where: string[] = [`mode = 'live'`];
  const values: unknown[] = [];
  if (query.clientId !== undefined) where.push(`client_id = $${values.push(query.clientId)}`);
  if (query.period !== undefined) where.push(`period = $${values.push(query.period)}`);
  if (query.status !== undefined) where.push(`status = $${values.push(query.status)}`);
  if (query.submittedFrom !== undefined) where.push(`submitted_at >= $${values.push(query.submittedFrom)}::timestamptz`);
  if (query.submittedTo !== undefined) where.push(`submitted_at < $${values.push(query.submittedTo)}::timestamptz`);
  if (query.stream !== undefined) {
    where.push(
      `EXISTS (SELECT 1 FROM declaration_lines l WHERE l.declaration_id = declarations.id AND l.stream = $${values.push(query.stream)})`,
    );
  }
  if (query.after) {
    where.push(`(submitted_at, id) < ($${values.push(query.after.at)}::timestamptz, $${values.push(query.after.id)}::uuid)`);
  }
  const text = `SELECT ${DECLARATION_COLUMNS} FROM declarations
     WHERE ${where.join(' AND ')}
     ORDER BY submitted_at DESC, id DESC
     LIMIT $${values.push(query.limit)}`;
  return { text, values };
}

/** See `findRecord`. */
const FIND_RECORD = `WITH declaration AS (SELECT * FROM declarations WHERE id = $1 AND mode = 'live'),
                          line AS (SELECT l.* FROM declaration_lines l JOIN declaration ON declaration.id = l.declaration_id)
                     SELECT ${DECLARATION_COLUMNS}, ${RECORD_LINES_AND_TOTALS('line')} FROM declaration`;

/**
 * The SQL of the operator's reads of declarations: across clients, by design (admin routes only;
 * the client API's reads are in DeclarationsRepository, scoped by client).
 */
@Injectable()
export class DeclarationsAdminRepository {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly catalogue: ReferenceCatalogue,
  ) {}

  async listPage(query: AdminListQuery): Promise<DeclarationSummary[]> {
    const { text, values } = adminListStatement(query);
    const rows: Declaration[] = await this.dataSource.query(text, values);
    const aggregates = await this.aggregate(rows.map((r) => r.id));
    return rows.map((row) => ({ ...row, lineCount: aggregates.get(row.id)?.lineCount ?? 0, totals: aggregates.get(row.id)?.totals ?? [] }));
  }

  /** Any client's declaration by id. */
  async findRecord(id: string): Promise<DeclarationRecord | undefined> {
    const [record] = await this.dataSource.query<DeclarationRecord[]>(FIND_RECORD, [id]);
    return record && { ...record, totals: additiveTotals(record.totals, this.catalogue) };
  }

  /** Line counts and exact totals per stream and unit, summed as numeric by PostgreSQL. */
  private async aggregate(ids: string[]): Promise<Map<string, LineAggregate>> {
    if (ids.length === 0) return new Map();
    const rows: LineAggregateRow[] = await this.dataSource.query(
      `SELECT declaration_id AS "declarationId", stream, unit, trim_scale(sum(quantity))::text AS quantity, count(*)::int AS lines
         FROM declaration_lines WHERE declaration_id = ANY($1::uuid[])
        GROUP BY declaration_id, stream, unit
        ORDER BY declaration_id, stream, unit`,
      [ids],
    );
    return lineAggregates(rows, this.catalogue);
  }
}
