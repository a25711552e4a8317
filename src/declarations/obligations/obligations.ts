import type { Deadline, LocalizedName, Stream } from '../../reference/reference-documents.js';
import { dueDate, nextPeriod, parsePeriod, periodOf, type Period } from '../../calendar/half-year.js';

/** The current declaration of a period, as far as obligations need it. */
export interface DeclaredPeriod {
  id: string;
  period: string;
  revision: number;
  receipt: string;
  streams: string[];
}

export interface DueDeadline {
  id: string;
  label: LocalizedName;
  by: Deadline['by'];
  /** `YYYY-MM-DD`. */
  due: string;
  verification: Deadline['verification'];
  sources: string[];
}

export interface PeriodObligation {
  period: string;
  start: string;
  end: string;
  /** The half-year is over (its last day is before today). */
  ended: boolean;
  /**
   * `declared`; `open` (the half-year is in progress); `to_declare` (ended, not declared, its filing
   * deadline not passed); `overdue` (ended, not declared, past its filing deadline).
   */
  status: PeriodStatus;
  /** The filing deadline of the period: its first published deadline for the producer (else the first one); null when none is published. */
  due_date: string | null;
  declaration: { id: string; revision: number; receipt: string } | null;
  /** The stream's published deadlines for this period that are today or later, soonest first. */
  next_deadlines: DueDeadline[];
}

export type PeriodStatus = 'open' | 'to_declare' | 'overdue' | 'declared';

/** When a client became liable for each stream (calendar/liability.ts `liableFrom`); null while it was never confirmed. */
export interface LiableClient {
  startOf(stream: string): string | null;
}

/**
 * The first half-year a client owes for a stream: when it became liable, but never before the
 * stream's first declarable half-year; null for a client never confirmed.
 */
export function firstOwedPeriod(client: LiableClient, stream: Pick<Stream, 'code' | 'declarable_from'>): string | null {
  const start = client.startOf(stream.code);
  if (start === null) return null;
  const first = periodOf(stream.declarable_from).code;
  // `YYYY-Sn` codes sort as the half-years they name.
  return start > first ? start : first;
}

export interface StreamObligations {
  stream: string;
  name: LocalizedName;
  first_period: string;
  /** The first half-year the client is liable for (see `firstOwedPeriod`): periods start there. */
  liable_from: string;
  /** Last period the stream can be declared for; null while it is open. */
  last_period: string | null;
  replaced_by: string | null;
  /** From `first_period` to the current half-year (or `last_period`), oldest first. */
  periods: PeriodObligation[];
}

/** The filing deadline of a stream's half-year: its first published deadline for the producer (else its first one); null when none is published. */
export function filingDue(stream: Pick<Stream, 'deadlines'>, period: Period): string | null {
  const dueDates = stream.deadlines
    .map((deadline) => ({ by: deadline.by, due: dueDate(deadline, period) }))
    .sort((a, b) => (a.due < b.due ? -1 : a.due > b.due ? 1 : 0));
  return (dueDates.find((d) => d.by === 'producer') ?? dueDates[0])?.due ?? null;
}

/**
 * Per stream, every half-year from the stream's first declarable period to the current one (or
 * its last declarable period): declared or missing, ended or open, and the deadlines still ahead.
 * Pure: the published streams, the account's streams, its current declarations and today's date.
 */
export function obligationsOf(
  streams: readonly Stream[],
  declared: readonly DeclaredPeriod[],
  today: string,
  client: LiableClient = { startOf: () => '0000-S1' },
): StreamObligations[] {
  const current = periodOf(today);
  return streams.map((stream) => {
    const first = periodOf(stream.declarable_from);
    const liable = parsePeriod(firstOwedPeriod(client, stream) ?? current.code)!;
    // Nothing before liability; a half-year the client declared anyway is still shown (as declared).
    const declaredBefore = declared
      .filter((d) => d.streams.includes(stream.code) && d.period < liable.code && d.period >= first.code)
      .map((d) => d.period)
      .sort();
    const from = declaredBefore.length > 0 ? parsePeriod(declaredBefore[0]!)! : liable;
    const last = stream.declarable_until === null ? null : periodOf(stream.declarable_until);
    const until = last && last.start < current.start ? last : current;
    const periods: PeriodObligation[] = [];
    for (let period = from; period.start <= until.start; period = nextPeriod(period)) {
      const declaration = declared.find((d) => d.period === period.code && d.streams.includes(stream.code));
      if (!declaration && period.start < liable.start) continue;
      const ended = period.end < today;
      const due = filingDue(stream, period);
      periods.push({
        period: period.code,
        start: period.start,
        end: period.end,
        ended,
        status: declaration ? 'declared' : !ended ? 'open' : due !== null && due < today ? 'overdue' : 'to_declare',
        due_date: due,
        declaration: declaration ? { id: declaration.id, revision: declaration.revision, receipt: declaration.receipt } : null,
        next_deadlines: stream.deadlines
          .map((deadline) => ({
            id: deadline.id,
            label: deadline.label,
            by: deadline.by,
            due: dueDate(deadline, period),
            verification: deadline.verification,
            sources: deadline.sources,
          }))
          .filter((deadline) => deadline.due >= today)
          .sort((a, b) => (a.due < b.due ? -1 : a.due > b.due ? 1 : 0)),
      });
    }
    return {
      stream: stream.code,
      name: stream.name,
      first_period: first.code,
      liable_from: liable.code,
      last_period: last?.code ?? null,
      replaced_by: stream.replaced_by,
      periods,
    };
  });
}
