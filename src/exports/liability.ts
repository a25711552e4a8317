import { liableBySql } from '../calendar/liability.js';

// The operator's view of liability: a client is liable for a half-year when one of its confirmed
// streams is declared from that half-year or earlier (calendar/liability.ts), and it has not been
// offboarded. Only an ended half-year can be missing.

/**
 * SQL: the client `c` (a `clients` row) is liable for the half-year `$period` (text), which ends at
 * `$end` (timestamptz): one of its confirmed streams is declared from that half-year on.
 */
export const LIABLE = (
  period: string,
  end: string,
  stream?: string,
) => `(c.confirmed_at IS NOT NULL AND c.status <> 'offboarded' AND EXISTS (
    SELECT 1 FROM unnest(c.confirmed_streams) AS s(stream)
      LEFT JOIN client_streams cs ON cs.client_id = c.client_id AND cs.stream = s.stream
     WHERE ${stream ? `s.stream = ${stream} AND ` : ''}${liableBySql({ setting: 'cs.liable_from', firstConfirmedAt: 'c.first_confirmed_at', period, periodEnd: end })}))`;
