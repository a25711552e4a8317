import { parisDate } from '../clock.js';
import { parsePeriod } from '../period.js';

// The operator's view of liability (issue 33): a client is liable for a half-year when one of its
// confirmed streams is declared from that half-year or earlier (`client_streams.liable_from`, else
// the half-year of its first confirmation), and it has not been offboarded. Only an ended
// half-year can be missing.

const PARIS_HOUR = new Intl.DateTimeFormat('en-GB', { timeZone: 'Europe/Paris', hour: 'numeric', hourCycle: 'h23' });

/** The instant a date (`YYYY-MM-DD`) starts in France. */
export function parisMidnight(date: string): Date {
  const utc = Date.parse(`${date}T00:00:00Z`);
  return new Date(utc - Number(PARIS_HOUR.format(new Date(utc))) * 3_600_000);
}

/** The instant a half-year ends (the next one starts), in France. */
export function periodEndInstant(period: string): Date {
  const p = parsePeriod(period)!;
  return parisMidnight(p.half === 1 ? `${p.year}-07-01` : `${p.year + 1}-01-01`);
}

/** Whether the half-year has ended on `now`, in France. */
export function periodEnded(period: string, now: Date): boolean {
  return parisDate(now) > parsePeriod(period)!.end;
}

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
     WHERE ${stream ? `s.stream = ${stream} AND ` : ''}CASE WHEN cs.liable_from IS NOT NULL THEN cs.liable_from <= ${period} ELSE c.first_confirmed_at < ${end} END))`;
