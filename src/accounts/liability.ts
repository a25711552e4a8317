// Half-years as the accounts layer needs them (liability starts); declarations/period.ts sits above
// accounts and cannot be imported here.

const PARIS_YEAR_MONTH = new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/Paris', year: 'numeric', month: '2-digit' });

export const HALF_YEAR_PATTERN = /^([0-9]{4})-S([12])$/;

/** The half-year (`YYYY-S1` / `YYYY-S2`) an instant falls in, in France (periods open at midnight Paris time). */
export function halfYearOf(instant: Date): string {
  const parts = Object.fromEntries(PARIS_YEAR_MONTH.formatToParts(instant).map((p) => [p.type, p.value]));
  return `${parts.year}-S${Number(parts.month) <= 6 ? 1 : 2}`;
}

/** First and last day (`YYYY-MM-DD`) of a half-year. */
export function halfYearBounds(code: string): { start: string; end: string } {
  const match = HALF_YEAR_PATTERN.exec(code);
  if (!match) throw new Error(`not a half-year: ${code}`);
  return match[2] === '1'
    ? { start: `${match[1]}-01-01`, end: `${match[1]}-06-30` }
    : { start: `${match[1]}-07-01`, end: `${match[1]}-12-31` };
}

/**
 * The half-year from which a client declares a stream: the one the operator set, else the
 * half-year of its first confirmation; null while it was never confirmed.
 */
export function liableFrom(setting: string | null | undefined, firstConfirmedAt: Date | null): string | null {
  return setting ?? (firstConfirmedAt ? halfYearOf(firstConfirmedAt) : null);
}
