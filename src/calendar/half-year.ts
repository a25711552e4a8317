import { parisDate, parisMidnight } from './clock.js';

/** A declaration period: a half-year, `YYYY-S1` (1 Jan–30 Jun) or `YYYY-S2` (1 Jul–31 Dec). */
export interface Period {
  code: string;
  year: number;
  half: 1 | 2;
  /** First day, `YYYY-MM-DD`. */
  start: string;
  /** Last day, `YYYY-MM-DD`. */
  end: string;
}

/** `YYYY-S1` or `YYYY-S2`: the text of the rule, for OpenAPI documents and the database CHECK alike. */
export const PERIOD_PATTERN_TEXT = '^[0-9]{4}-S[12]$';
export const PERIOD_PATTERN = /^([0-9]{4})-S([12])$/;

/** The period named by `code`, or undefined if `code` is not exactly `YYYY-S1` / `YYYY-S2`. */
export function parsePeriod(code: string): Period | undefined {
  const match = PERIOD_PATTERN.exec(code);
  if (!match) return undefined;
  const year = Number(match[1]);
  const half = match[2] === '1' ? 1 : 2;
  return {
    code,
    year,
    half,
    start: `${match[1]}-${half === 1 ? '01-01' : '07-01'}`,
    end: `${match[1]}-${half === 1 ? '06-30' : '12-31'}`,
  };
}

/** The half-year that contains `date` (`YYYY-MM-DD`). */
export function periodOf(date: string): Period {
  return parsePeriod(`${date.slice(0, 4)}-S${date.slice(5, 7) <= '06' ? 1 : 2}`)!;
}

/** The half-year after `period`. */
export function nextPeriod(period: Period): Period {
  return parsePeriod(period.half === 1 ? `${period.year}-S2` : `${period.year + 1}-S1`)!;
}

/** The half-year before `code` (`2026-S1` → `2025-S2`). */
export function previousHalfYear(code: string): string {
  const period = parsePeriod(code)!;
  return period.half === 2 ? `${period.year}-S1` : `${period.year - 1}-S2`;
}

/** The half-year (`YYYY-S1` / `YYYY-S2`) an instant falls in, in France (periods open at midnight Paris time). */
export function halfYearOf(instant: Date): string {
  return periodOf(parisDate(instant)).code;
}

/** The instant a half-year ends (the next one starts), in France. */
export function periodEndInstant(period: string): Date {
  const p = parsePeriod(period)!;
  return parisMidnight(p.half === 1 ? `${isoYear(p.year)}-07-01` : `${isoYear(p.year + 1)}-01-01`);
}

/** A year as an ISO 8601 date writes it: four digits (`0000`), six with a sign past 9999 (`+010000`, the day after 9999-S2). */
function isoYear(year: number): string {
  return year <= 9999 ? String(year).padStart(4, '0') : `+${String(year).padStart(6, '0')}`;
}

/** Whether the half-year has ended on `now`, in France. */
export function periodEnded(period: string, now: Date): boolean {
  return parisDate(now) > parsePeriod(period)!.end;
}

/** When a published deadline falls for a period's quantities (reference-data/streams: `deadlines[].due`). */
export interface DueRule {
  years_after_period: number;
  month: number;
  day: number;
}

/** The deadline's date (`YYYY-MM-DD`) for the quantities of `period`: `day` past the month's end is its last day. */
export function dueDate(deadline: { due: DueRule }, period: Pick<Period, 'year'>): string {
  const year = period.year + deadline.due.years_after_period;
  const lastDay = new Date(Date.UTC(year, deadline.due.month, 0)).getUTCDate();
  const day = Math.min(deadline.due.day, lastDay);
  return `${year}-${String(deadline.due.month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}
