import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { utcText } from '../declarations/declarations.repository.js';
import { inSnapshot, type SnapshotQuery, streamInSnapshot } from '../database/streamed-query.js';
import { periodEndInstant } from '../calendar/half-year.js';
import { LIABLE } from './liability.js';
import type { PeriodFigures } from './period-summary.js';
import { productElements, type ProductElementRow } from './export-products.js';

/** One line of a period's export, with its declaration and client (the CSV row). */
export interface ExportLineRow {
  clientId: string;
  company: string | null;
  country: string | null;
  idus: string[];
  declarationId: string;
  revision: number;
  receipt: string;
  submittedAt: string;
  stream: string;
  material: string;
  materialCode: string | null;
  unit: string;
  /** Exact decimal text without trailing zeros. */
  quantity: string;
  /** The eco-organism set for the client and the line's stream, if any. */
  ecoOrganism: string | null;
  /** The declaration's units sold (the same on each of its rows). */
  unitsSold: { stream: string; quantity: string }[];
}

/**
 * A row of the export with `detail=products`: a line of the declaration (`element` false), or one
 * packaging element of a product version it was derived from (`element` true: `stream`, `material`
 * and `materialCode` are the element's, `unit` is `kg` and `quantity` the kg the element gave).
 */
export type ExportDetailRow = ExportLineRow & {
  /** The declaration was derived from the client's catalogue and sales. */
  derived: boolean;
  element: boolean;
} & { [K in Exclude<keyof ProductElementRow, 'stream' | 'materialCode' | 'kg'>]: ProductElementRow[K] | null };

/**
 * The current revision of every client for `$1`, one row per line, in client then line order; `$2`
 * (nullable) keeps the lines, and units sold, of the streams the client has set to that eco-organism.
 */
export const EXPORT_LINES = `
  SELECT d.client_id AS "clientId", c.confirmed_company AS company, c.confirmed_country AS country, c.confirmed_idus AS idus,
         d.id AS "declarationId", d.revision, d.receipt, ${utcText('d.submitted_at')} AS "submittedAt",
         l.stream, l.material, l.material_code AS "materialCode", l.unit, trim_scale(l.quantity)::text AS quantity,
         cs.eco_organism AS "ecoOrganism",
         CASE WHEN $2::text IS NULL OR d.units_sold IS NULL THEN d.units_sold
              ELSE coalesce((SELECT jsonb_agg(u ORDER BY n) FROM jsonb_array_elements(d.units_sold) WITH ORDINALITY AS x (u, n)
                               WHERE EXISTS (SELECT 1 FROM client_streams e
                                              WHERE e.client_id = d.client_id AND e.stream = u->>'stream' AND e.eco_organism = $2)),
                            '[]'::jsonb) END AS "unitsSold"
    FROM declarations d
    JOIN clients c ON c.client_id = d.client_id
    JOIN declaration_lines l ON l.declaration_id = d.id
    LEFT JOIN client_streams cs ON cs.client_id = d.client_id AND cs.stream = l.stream
   WHERE d.period = $1 AND d.status = 'current' AND d.mode = 'live' AND ($2::text IS NULL OR cs.eco_organism = $2)
   ORDER BY d.client_id, l.position`;

/** Declarations read per statement of the detail, each with its lines (at most 1000) read apart. */
const DECLARATIONS_PER_CHUNK = 100;

/** The current revisions of `$1` of the clients after `$2`, at most `$3`, by client (one a client). */
const DECLARATION_HEADS = `
  SELECT d.client_id AS "clientId", c.confirmed_company AS company, c.confirmed_country AS country, c.confirmed_idus AS idus,
         d.id AS "declarationId", d.revision, d.receipt, ${utcText('d.submitted_at')} AS "submittedAt",
         d.units_sold AS "unitsSold", dx.declaration_id IS NOT NULL AS derived
    FROM declarations d
    JOIN clients c ON c.client_id = d.client_id
    LEFT JOIN declaration_derivations dx ON dx.declaration_id = d.id
   WHERE d.period = $1 AND d.status = 'current' AND d.mode = 'live' AND d.client_id > $2
   ORDER BY d.client_id LIMIT $3`;

/** The lines of the declaration `$1` of the client `$2`, in order. */
const DECLARATION_LINES = `
  SELECT l.position, l.stream, l.material, l.material_code AS "materialCode", l.unit, trim_scale(l.quantity)::text AS quantity,
         cs.eco_organism AS "ecoOrganism"
    FROM declaration_lines l
    LEFT JOIN client_streams cs ON cs.client_id = $2 AND cs.stream = l.stream
   WHERE l.declaration_id = $1
   ORDER BY l.position`;

type DeclarationHead = Pick<
  ExportDetailRow,
  'clientId' | 'company' | 'country' | 'idus' | 'declarationId' | 'revision' | 'receipt' | 'submittedAt' | 'derived' | 'unitsSold'
>;

const NO_PRODUCT = { reference: null, name: null, gtin: null, validFrom: null, units: null, weightG: null, perUnit: null };

/**
 * The export's rows with the per-product detail, per declaration by client: its lines, then the
 * packaging elements of the product versions it was derived from (by product reference, then
 * element position); the line rows come first so that a declaration's head can be written before
 * its products stream by. Read in bounded statements (DECLARATIONS_PER_CHUNK declarations, one
 * declaration's lines, PRODUCTS_PER_CHUNK products, products/used-products.read-model.ts) as the reader takes the rows: no statement sorts
 * a whole catalogue or period, and the embedded database answers others between them.
 */
async function* detailRows(query: SnapshotQuery, period: string): AsyncGenerator<ExportDetailRow> {
  let after = '';
  for (;;) {
    const heads = await query<DeclarationHead>(DECLARATION_HEADS, [period, after, DECLARATIONS_PER_CHUNK]);
    for (const head of heads) {
      const lines = await query<
        Pick<ExportDetailRow, 'position' | 'stream' | 'material' | 'materialCode' | 'unit' | 'quantity' | 'ecoOrganism'>
      >(DECLARATION_LINES, [head.declarationId, head.clientId]);
      for (const line of lines) yield { ...head, ...line, element: false, ...NO_PRODUCT, packagingCategory: null, reuseStatus: null };
      if (!head.derived) continue;
      for await (const e of productElements(query, head.declarationId, head.clientId)) {
        yield {
          ...head,
          ...e,
          element: true,
          material: e.materialCode,
          unit: 'kg',
          quantity: e.kg,
        };
      }
    }
    if (heads.length < DECLARATIONS_PER_CHUNK) return;
    after = heads.at(-1)!.clientId;
  }
}

// Live declarations only, here and everywhere the operator looks: test data is the client's sandbox.
const CURRENT_LINES = `declarations d JOIN declaration_lines l ON l.declaration_id = d.id WHERE d.period = $1 AND d.status = 'current' AND d.mode = 'live'`;

/** Rows fetched per round trip by the export's cursor: what the process holds at most, besides socket buffers. */
const EXPORT_BATCH_ROWS = 500;

/**
 * A period's filing export, across clients (admin only). The export is read through a cursor in a
 * REPEATABLE READ, READ ONLY transaction (database/streamed-query.ts): one consistent snapshot,
 * never the whole result in memory, and the next batch is fetched only when the response has taken
 * the previous one (backpressure).
 */
@Injectable()
export class PeriodExportRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Streams the export's rows to `consume`, which must resolve once it has read the stream to its
   * end (or reject); the connection is released then, and destroyed if anything failed.
   */
  streamLines(
    period: string,
    consume: (rows: AsyncIterable<ExportLineRow>) => Promise<void>,
    ecoOrganism: string | null = null,
  ): Promise<void> {
    return streamInSnapshot<ExportLineRow>(
      this.dataSource,
      { text: EXPORT_LINES, values: [period, ecoOrganism], batchRows: EXPORT_BATCH_ROWS },
      (rows) => consume(rows),
    );
  }

  /** streamLines with the per-product detail of derived declarations (`detail=products`): detailRows's rows, in one snapshot. */
  streamLinesWithProducts(period: string, consume: (rows: AsyncIterable<ExportDetailRow>) => Promise<void>): Promise<void> {
    return inSnapshot(this.dataSource, (query) => consume(detailRows(query, period)));
  }

  /**
   * Totals across clients (exact, by PostgreSQL's numeric), who declared and who has not: one
   * snapshot. Missing: the clients liable for the period (see liability.ts) without a current
   * declaration, and only once the period has ended (`ended`).
   */
  async summary(period: string, ended: boolean): Promise<PeriodFigures> {
    const end = periodEndInstant(period);
    return this.dataSource.transaction('REPEATABLE READ', async (manager) => {
      const [counts]: { confirmedClients: number; liableClients: number; declaredClients: number }[] = await manager.query(
        `SELECT (SELECT count(*)::int FROM clients WHERE confirmed_at IS NOT NULL) AS "confirmedClients",
                (SELECT count(*)::int FROM clients c WHERE ${LIABLE('$1', '$2')}) AS "liableClients",
                (SELECT count(*)::int FROM declarations WHERE period = $1 AND status = 'current' AND mode = 'live') AS "declaredClients"`,
        [period, end],
      );
      const missing = ended
        ? await manager.query(
            `SELECT c.client_id AS "clientId", c.confirmed_company AS company, c.confirmed_email AS email
               FROM clients c
              WHERE ${LIABLE('$1', '$2')}
                AND NOT EXISTS (SELECT 1 FROM declarations d WHERE d.client_id = c.client_id AND d.period = $1 AND d.status = 'current' AND d.mode = 'live')
              ORDER BY c.client_id`,
            [period, end],
          )
        : [];
      const totals = await manager.query(
        `SELECT l.stream, l.material_code AS "materialCode", CASE WHEN l.material_code IS NULL THEN l.material END AS material, l.unit,
                trim_scale(sum(l.quantity))::text AS quantity, count(DISTINCT d.client_id)::int AS "clientCount", count(*)::int AS "lineCount"
           FROM ${CURRENT_LINES}
          GROUP BY l.stream, l.material_code, CASE WHEN l.material_code IS NULL THEN l.material END, l.unit
          ORDER BY l.stream, l.material_code NULLS LAST, material, l.unit`,
        [period],
      );
      const streamTotals = await manager.query(
        `SELECT l.stream, l.unit, trim_scale(sum(l.quantity))::text AS quantity FROM ${CURRENT_LINES} GROUP BY l.stream, l.unit ORDER BY l.stream, l.unit`,
        [period],
      );
      const unitsSold = await manager.query(
        `SELECT u.stream, sum(u.quantity::numeric)::text AS quantity, count(DISTINCT d.client_id)::int AS "clientCount"
           FROM declarations d CROSS JOIN LATERAL jsonb_to_recordset(d.units_sold) AS u (stream text, quantity text)
          WHERE d.period = $1 AND d.status = 'current' AND d.mode = 'live'
          GROUP BY u.stream ORDER BY u.stream`,
        [period],
      );
      return { ...counts!, missing, totals, streamTotals, unitsSold };
    });
  }
}
