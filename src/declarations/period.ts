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
