import { halfYearOf } from './half-year.js';

/**
 * The half-year from which a client declares a stream: the one the operator set, else the
 * half-year of its first confirmation (in France); null while it was never confirmed.
 */
export function liableFrom(setting: string | null | undefined, firstConfirmedAt: Date | null): string | null {
  return setting ?? (firstConfirmedAt ? halfYearOf(firstConfirmedAt) : null);
}

/**
 * SQL for `liableFrom(setting, firstConfirmedAt) <= period`: the columns or parameters holding the
 * operator's setting (text or NULL) and the first confirmation (timestamptz or NULL), the half-year
 * (text) and the instant it ends (`periodEndInstant`). A confirmation before the end falls in the
 * half-year or an earlier one, which is what `halfYearOf(…) <= period` says; a NULL one is never liable.
 */
export function liableBySql(sql: { setting: string; firstConfirmedAt: string; period: string; periodEnd: string }): string {
  return `CASE WHEN ${sql.setting} IS NOT NULL THEN ${sql.setting} <= ${sql.period} ELSE ${sql.firstConfirmedAt} < ${sql.periodEnd} END`;
}
