import type { DueDeadline } from '../obligations/obligations.js';
import type { TierPlacement, YearLine } from './annual-filing.js';

/** One half-year of a calendar year: over or not, and the current revision declared for it, if any. */
export interface YearPeriod {
  period: string;
  ended: boolean;
  status: 'declared' | 'missing';
  declaration: { id: string; revision: number; receipt: string } | null;
}

/** A client's calendar year: its half-years, S1 + S2 totals, where its count puts it in each filing scheme, and the year's deadlines. */
export interface ClientYear {
  clientId: string;
  year: number;
  /** Today's date in France. */
  today: string;
  /** Both half-years are over and declared. */
  complete: boolean;
  periods: YearPeriod[];
  lines: YearLine[];
  filingTiers: TierPlacement[];
  deadlines: (DueDeadline & { stream: string })[];
}
