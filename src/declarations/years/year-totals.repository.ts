import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import type { CurrentDeclarationRow, DataScope } from '../declarations.repository.js';
import type { HalfYearUnitsSold, YearLine } from './annual-filing.js';

/** The SQL of a client's year (live or sandbox data, as the caller's token): its two half-years' current revisions, summed exactly by PostgreSQL. */
@Injectable()
export class YearTotalsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** The current revisions of the year's half-years (at most two). */
  currentRevisions({ clientId, mode }: DataScope, year: number): Promise<CurrentDeclarationRow[]> {
    return this.dataSource.query(
      `SELECT d.id, d.period, d.revision, d.receipt, array_agg(DISTINCT l.stream ORDER BY l.stream) AS streams
         FROM declarations d JOIN declaration_lines l ON l.declaration_id = d.id
        WHERE d.client_id = $1 AND d.mode = $3 AND d.period = ANY($2::text[]) AND d.status = 'current'
        GROUP BY d.id, d.period, d.revision, d.receipt
        ORDER BY d.period`,
      [clientId, [`${year}-S1`, `${year}-S2`], mode],
    );
  }

  /**
   * Per stream, material and unit, the quantities of S1, S2 and both. A material of the published
   * grid is one line whatever it was called in each half-year (its first name in the year is shown);
   * a material outside the grid is grouped by the text as declared.
   */
  lines({ clientId, mode }: DataScope, year: number): Promise<YearLine[]> {
    return this.dataSource.query(
      `SELECT l.stream, (array_agg(l.material ORDER BY d.period, l.position))[1] AS material,
              l.material_code AS "materialCode", l.unit,
              trim_scale(sum(l.quantity) FILTER (WHERE d.period = $2))::text AS s1,
              trim_scale(sum(l.quantity) FILTER (WHERE d.period = $3))::text AS s2,
              trim_scale(sum(l.quantity))::text AS quantity
         FROM declarations d JOIN declaration_lines l ON l.declaration_id = d.id
        WHERE d.client_id = $1 AND d.mode = $4 AND d.period IN ($2, $3) AND d.status = 'current'
        GROUP BY l.stream, l.material_code, CASE WHEN l.material_code IS NULL THEN l.material END, l.unit
        ORDER BY l.stream, material, l.unit`,
      [clientId, `${year}-S1`, `${year}-S2`, mode],
    );
  }

  /** The units sold the year's current revisions state, per half-year and stream. */
  unitsSold({ clientId, mode }: DataScope, year: number): Promise<HalfYearUnitsSold[]> {
    return this.dataSource.query(
      `SELECT CASE WHEN d.period = $2 THEN 's1' ELSE 's2' END AS half, u.stream, u.quantity
         FROM declarations d CROSS JOIN LATERAL jsonb_to_recordset(d.units_sold) AS u (stream text, quantity text)
        WHERE d.client_id = $1 AND d.mode = $4 AND d.period IN ($2, $3) AND d.status = 'current'
        ORDER BY half, u.stream`,
      [clientId, `${year}-S1`, `${year}-S2`, mode],
    );
  }
}
