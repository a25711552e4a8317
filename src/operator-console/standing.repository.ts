import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { liableBySql } from '../calendar/liability.js';

/** A stream a client is liable for in a half-year, where it goes, and whether its current live revision declares it. */
export interface LiableStreamRow {
  clientId: string;
  stream: string;
  ecoOrganism: string | null;
  declared: boolean;
}

/**
 * The SQL of who owes what for a half-year, by the rules the reminders and the period summary
 * apply: confirmed streams of confirmed clients not offboarded, liable by `liableBySql`, declared
 * when the client's current live revision of the half-year has a line of the stream.
 */
@Injectable()
export class StandingRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  liableStreams(period: string, periodEnd: Date): Promise<LiableStreamRow[]> {
    return this.dataSource.query(
      `SELECT c.client_id AS "clientId", s.stream, cs.eco_organism AS "ecoOrganism",
              EXISTS (SELECT 1 FROM declarations d JOIN declaration_lines l ON l.declaration_id = d.id
                       WHERE d.client_id = c.client_id AND d.period = $1 AND d.status = 'current' AND d.mode = 'live' AND l.stream = s.stream) AS declared
         FROM clients c
        CROSS JOIN LATERAL unnest(c.confirmed_streams) AS s(stream)
         LEFT JOIN client_streams cs ON cs.client_id = c.client_id AND cs.stream = s.stream
        WHERE c.confirmed_at IS NOT NULL AND c.status <> 'offboarded'
          AND ${liableBySql({ setting: 'cs.liable_from', firstConfirmedAt: 'c.first_confirmed_at', period: '$1', periodEnd: '$2' })}
        ORDER BY c.client_id, s.stream`,
      [period, periodEnd],
    );
  }
}
