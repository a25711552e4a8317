import { Injectable } from '@nestjs/common';
import { Clock, parisDate } from '../calendar/clock.js';
import { parsePeriod, periodEndInstant, periodEnded, periodOf, previousHalfYear, halfYearOf } from '../calendar/half-year.js';
import { filingDue } from '../declarations/obligations/obligations.js';
import { ReferenceCatalogue } from '../reference/reference-catalogue.js';
import { StandingRepository } from './standing.repository.js';

/** Where a client stands for a half-year or a year: everything declared, something still to declare, or something past its deadline. */
export type Standing = 'declared' | 'to_declare' | 'overdue';
export const STANDINGS: readonly Standing[] = ['declared', 'to_declare', 'overdue'];

/** A half-year (`2026-S1`) or a calendar year (`2026`: both its half-years). */
export type Scope = { kind: 'period'; code: string; periods: string[] } | { kind: 'year'; code: string; periods: string[] };

/** One row of the first page: an eco-organism and a stream, how many clients stand where. */
export interface StandingGroup {
  ecoOrganism: string | null;
  stream: string;
  counts: Record<Standing, number>;
}

export interface StandingReport {
  scope: Scope;
  /** Per client: its standing (the worst of its streams: overdue, then to declare). */
  clients: Map<string, Standing>;
  /** Per client, stream and eco-organism. */
  rows: { clientId: string; stream: string; ecoOrganism: string | null; standing: Standing }[];
  groups: StandingGroup[];
  totals: Record<Standing, number>;
}

const WORST: Record<Standing, number> = { declared: 0, to_declare: 1, overdue: 2 };
const zero = (): Record<Standing, number> => ({ declared: 0, to_declare: 0, overdue: 0 });

/** The scope a query names (`2026-S1` or `2026`), else undefined. */
export function parseScope(text: string | undefined): Scope | undefined {
  if (text === undefined) return undefined;
  if (parsePeriod(text)) return { kind: 'period', code: text, periods: [text] };
  if (/^[0-9]{4}$/.test(text)) return { kind: 'year', code: text, periods: [`${text}-S1`, `${text}-S2`] };
  return undefined;
}

/**
 * Who declared, who is to declare and who is overdue, for a half-year or a year: a stream the
 * client is liable for (the reminders' rule) is declared when its current live revision has it;
 * else overdue once its published filing deadline (the producer's, `filingDue`) has passed, else to
 * declare. Streams not declarable in the half-year are left out.
 */
@Injectable()
export class StandingService {
  constructor(
    private readonly repository: StandingRepository,
    private readonly catalogue: ReferenceCatalogue,
    private readonly clock: Clock,
  ) {}

  /** The half-year whose deadline is next or just passed: the last one ended. */
  defaultScope(): Scope {
    const code = previousHalfYear(halfYearOf(this.clock.now()));
    return { kind: 'period', code, periods: [code] };
  }

  async report(scope: Scope): Promise<StandingReport> {
    const now = this.clock.now();
    const today = parisDate(now);
    const byKey = new Map<string, { clientId: string; stream: string; ecoOrganism: string | null; standing: Standing }>();
    for (const period of scope.periods) {
      const parsed = parsePeriod(period)!;
      const ended = periodEnded(period, now);
      for (const row of await this.repository.liableStreams(period, periodEndInstant(period))) {
        const stream = this.catalogue.stream(row.stream);
        if (!stream) continue;
        const declarable =
          periodOf(stream.declarable_from).code <= period &&
          (stream.declarable_until === null || period <= periodOf(stream.declarable_until).code);
        if (!declarable) continue;
        const due = filingDue(stream, parsed);
        const standing: Standing = row.declared ? 'declared' : ended && due !== null && due < today ? 'overdue' : 'to_declare';
        const key = `${row.clientId}\n${row.stream}`;
        const before = byKey.get(key);
        if (!before || WORST[standing] > WORST[before.standing]) byKey.set(key, { ...row, standing });
      }
    }
    const rows = [...byKey.values()];
    const clients = new Map<string, Standing>();
    const groups = new Map<string, StandingGroup>();
    for (const row of rows) {
      const before = clients.get(row.clientId);
      if (!before || WORST[row.standing] > WORST[before]) clients.set(row.clientId, row.standing);
      const key = `${row.ecoOrganism ?? ''}\n${row.stream}`;
      const group = groups.get(key) ?? { ecoOrganism: row.ecoOrganism, stream: row.stream, counts: zero() };
      group.counts[row.standing] += 1;
      groups.set(key, group);
    }
    const totals = zero();
    for (const standing of clients.values()) totals[standing] += 1;
    const sorted = [...groups.values()].sort(
      (a, b) => (a.ecoOrganism ?? '\uffff').localeCompare(b.ecoOrganism ?? '\uffff') || a.stream.localeCompare(b.stream),
    );
    return { scope, clients, rows, groups: sorted, totals };
  }

  /** The clients of a report standing as asked, on a stream and eco-organism if given. */
  clientsWith(report: StandingReport, standing: Standing, filter: { stream?: string; ecoOrganism?: string }): string[] {
    if (filter.stream === undefined && filter.ecoOrganism === undefined) {
      return [...report.clients].filter(([, s]) => s === standing).map(([id]) => id);
    }
    const ids = new Set<string>();
    for (const row of report.rows) {
      if (row.standing !== standing) continue;
      if (filter.stream !== undefined && row.stream !== filter.stream) continue;
      if (filter.ecoOrganism !== undefined && row.ecoOrganism !== filter.ecoOrganism) continue;
      ids.add(row.clientId);
    }
    return [...ids];
  }
}
