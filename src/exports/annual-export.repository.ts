import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { type SnapshotQuery, streamInSnapshot } from '../database/streamed-query.js';
import { productElements, type ProductElementRow } from './export-products.js';
import { periodEndInstant } from '../calendar/half-year.js';
import { LIABLE } from './liability.js';

/** One row of the annual filing: a client's S1 + S2 total for one stream, material and unit. */
export interface AnnualRow {
  clientId: string;
  company: string | null;
  country: string | null;
  idus: string[];
  ecoOrganism: string | null;
  stream: string;
  /** The published category code, or the submitted text when it names none. */
  material: string;
  categorised: boolean;
  unit: string;
  quantity: string;
  s1Receipt: string | null;
  s2Receipt: string | null;
  /**
   * The row gives the client's consumer sales units sold for the stream (S1 + S2 as stated, every
   * revision of the year with lines of the stream stating them; `material` empty, unit `uvc`), not a material's count.
   */
  unitsSold: boolean;
}

/**
 * One row of the detail (`detail=products`): a current revision of S1 or S2 summed in the filing
 * and, when it was derived from the catalogue, one packaging element of a product version it used
 * (the element's columns are null for a declaration entered directly).
 */
export type AnnualDetailRow = {
  clientId: string;
  company: string | null;
  country: string | null;
  idus: string[];
  period: string;
  declarationId: string;
  receipt: string;
  derived: boolean;
  /** The eco-organism set for the client and the product's stream. */
  ecoOrganism: string | null;
} & { [K in keyof ProductElementRow]: ProductElementRow[K] | null };

/** A client liable for a half-year without a current declaration of it. */
export interface UndeclaredClientRow {
  clientId: string;
  company: string | null;
  email: string | null;
}

/** Rows fetched per round trip by the cursor. */
const BATCH_ROWS = 500;

/**
 * The sums of current revisions of S1 and S2 per client, stream, material and unit, in client
 * order; `$3` (nullable) keeps the streams set to one eco-organism. After a stream's materials, its
 * units sold: the stated ones added up, only when every current revision of the year that declares the
 * stream states them (a sum of one half-year's units sold and nothing for the other would pass for the year's).
 */
export const ANNUAL_ROWS = `
  SELECT * FROM (
    SELECT d.client_id AS "clientId", c.confirmed_company AS company, c.confirmed_country AS country, c.confirmed_idus AS idus,
           cs.eco_organism AS "ecoOrganism", l.stream, coalesce(l.material_code, l.material) AS material, l.material_code IS NOT NULL AS categorised,
           l.unit, trim_scale(sum(l.quantity))::text AS quantity,
           max(d.receipt) FILTER (WHERE d.period = $1) AS "s1Receipt", max(d.receipt) FILTER (WHERE d.period = $2) AS "s2Receipt",
           false AS "unitsSold"
      FROM declarations d
      JOIN clients c ON c.client_id = d.client_id
      JOIN declaration_lines l ON l.declaration_id = d.id
      LEFT JOIN client_streams cs ON cs.client_id = d.client_id AND cs.stream = l.stream
     WHERE d.period IN ($1, $2) AND d.status = 'current' AND d.mode = 'live' AND ($3::text IS NULL OR cs.eco_organism = $3)
     GROUP BY d.client_id, c.confirmed_company, c.confirmed_country, c.confirmed_idus, cs.eco_organism, l.stream,
              coalesce(l.material_code, l.material), l.material_code IS NOT NULL, l.unit
    UNION ALL
    SELECT d.client_id, c.confirmed_company, c.confirmed_country, c.confirmed_idus, cs.eco_organism, u.stream, '', false, 'uvc',
           sum(u.quantity::numeric)::text,
           max(d.receipt) FILTER (WHERE d.period = $1), max(d.receipt) FILTER (WHERE d.period = $2), true
      FROM declarations d
      JOIN clients c ON c.client_id = d.client_id
      CROSS JOIN LATERAL jsonb_to_recordset(d.units_sold) AS u (stream text, quantity text)
      LEFT JOIN client_streams cs ON cs.client_id = d.client_id AND cs.stream = u.stream
     WHERE d.period IN ($1, $2) AND d.status = 'current' AND d.mode = 'live' AND ($3::text IS NULL OR cs.eco_organism = $3)
     GROUP BY d.client_id, c.confirmed_company, c.confirmed_country, c.confirmed_idus, cs.eco_organism, u.stream
    HAVING count(*) = (SELECT count(*) FROM declarations d2
                        WHERE d2.client_id = d.client_id AND d2.period IN ($1, $2) AND d2.status = 'current' AND d2.mode = 'live'
                          AND EXISTS (SELECT 1 FROM declaration_lines l2 WHERE l2.declaration_id = d2.id AND l2.stream = u.stream))
  ) AS rows
   ORDER BY "clientId", stream, "unitsSold", material, unit`;

/** Declarations read per statement of the detail. */
const DECLARATIONS_PER_CHUNK = 100;

/**
 * The current revisions of S1 and S2 that ANNUAL_ROWS sums (with `$3`, those with a line of a
 * stream set to that eco-organism), by client then half-year, after (`$4`, `$5`), at most `$6`.
 */
const DETAIL_DECLARATIONS = `
  SELECT d.client_id AS "clientId", c.confirmed_company AS company, c.confirmed_country AS country, c.confirmed_idus AS idus,
         d.period, d.id AS "declarationId", d.receipt, dx.declaration_id IS NOT NULL AS derived
    FROM declarations d
    JOIN clients c ON c.client_id = d.client_id
    LEFT JOIN declaration_derivations dx ON dx.declaration_id = d.id
   WHERE d.period IN ($1, $2) AND d.status = 'current' AND d.mode = 'live'
     AND ($3::text IS NULL OR EXISTS (SELECT 1 FROM declaration_lines l JOIN client_streams s ON s.client_id = d.client_id AND s.stream = l.stream
                                       WHERE l.declaration_id = d.id AND s.eco_organism = $3))
     AND (d.client_id, d.period) > ($4, $5)
   ORDER BY d.client_id, d.period LIMIT $6`;

type DetailHead = Pick<AnnualDetailRow, 'clientId' | 'company' | 'country' | 'idus' | 'period' | 'declarationId' | 'receipt' | 'derived'>;

/** The element columns of a declaration without product elements. */
const NO_ELEMENT = {
  reference: null,
  name: null,
  gtin: null,
  validFrom: null,
  stream: null,
  units: null,
  position: null,
  materialCode: null,
  weightG: null,
  perUnit: null,
  kg: null,
  packagingCategory: null,
  reuseStatus: null,
  ecoOrganism: null,
};

/**
 * The detail's rows: each declaration of DETAIL_DECLARATIONS with the packaging elements of the
 * product versions it was derived from (by reference, then position; with `eco`, of the products
 * of its streams), or one row with null elements for a declaration entered directly (or derived
 * from no element). Read in bounded statements (DECLARATIONS_PER_CHUNK declarations,
 * PRODUCTS_PER_CHUNK products, products/used-products.read-model.ts) as the reader takes the rows: no statement sorts a whole catalogue.
 */
async function* detailRows(query: SnapshotQuery, year: number, eco: string | null): AsyncGenerator<AnnualDetailRow> {
  let after = ['', ''];
  for (;;) {
    const heads = await query<DetailHead>(DETAIL_DECLARATIONS, [`${year}-S1`, `${year}-S2`, eco, ...after, DECLARATIONS_PER_CHUNK]);
    for (const head of heads) {
      if (!head.derived) {
        yield { ...head, ...NO_ELEMENT };
        continue;
      }
      const elements = productElements(query, head.declarationId, head.clientId, eco);
      let next = await elements.next();
      for (; !next.done; next = await elements.next()) yield { ...head, ...next.value };
      if (!next.value) yield { ...head, ...NO_ELEMENT };
    }
    if (heads.length < DECLARATIONS_PER_CHUNK) return;
    const last = heads.at(-1)!;
    after = [last.clientId, last.period];
  }
}

/** The clients liable for `$1` (ended at `$2`), with a stream set to the eco-organism `$3` if not null, without a current live declaration of it. */
const UNDECLARED = `
  SELECT c.client_id AS "clientId", c.confirmed_company AS company, c.confirmed_email AS email FROM clients c
   WHERE ${LIABLE('$1', '$2')}
     AND ($3::text IS NULL OR EXISTS (SELECT 1 FROM client_streams e WHERE e.client_id = c.client_id AND e.eco_organism = $3))
     AND NOT EXISTS (SELECT 1 FROM declarations d WHERE d.client_id = c.client_id AND d.period = $1 AND d.status = 'current' AND d.mode = 'live')
   ORDER BY c.client_id`;

/** Reads in the snapshot of the annual rows. */
export interface AnnualSnapshot {
  /** The clients liable for the half-year (and the eco-organism, if not null) without a current declaration of it. */
  undeclared(period: string): Promise<UndeclaredClientRow[]>;
  /** The per-product detail (`detail=products`, detailRows), read in bounded statements: to be read once the rows are read to their end. */
  detail(): AsyncIterable<AnnualDetailRow>;
}

/**
 * The SQL of the annual filing: its rows streamed through a cursor from one REPEATABLE READ
 * snapshot (database/streamed-query.ts, as the period export), and who has not declared, read in
 * the same snapshot.
 */
@Injectable()
export class AnnualExportRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Streams the year's rows (S1 + S2; the eco-organism's streams only when `eco` is not null) to
   * `consume`, which must resolve once it has read them to their end (or reject), and may read who
   * has not declared in the same snapshot meanwhile or after.
   */
  streamRows(
    year: number,
    eco: string | null,
    consume: (rows: AsyncIterable<AnnualRow>, snapshot: AnnualSnapshot) => Promise<void>,
  ): Promise<void> {
    return streamInSnapshot<AnnualRow>(
      this.dataSource,
      { text: ANNUAL_ROWS, values: [`${year}-S1`, `${year}-S2`, eco], batchRows: BATCH_ROWS },
      (rows, query: SnapshotQuery) =>
        consume(rows, {
          undeclared: (period) => query<UndeclaredClientRow>(UNDECLARED, [period, periodEndInstant(period), eco]),
          detail: () => detailRows(query, year, eco),
        }),
    );
  }
}
