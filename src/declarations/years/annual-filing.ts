import type { EcoOrganism, FilingTier, Stream } from '../../reference/reference-documents.js';
import type { DueDeadline } from '../obligations/obligations.js';
import { dueDate, parsePeriod } from '../../calendar/half-year.js';

/** One stream, material and unit of a year: the current revisions' quantities of S1, S2 and their sum. */
export interface YearLine {
  stream: string;
  material: string;
  materialCode: string | null;
  unit: string;
  /** Exact decimal text; null when that half-year has no such line. */
  s1: string | null;
  s2: string | null;
  /** s1 + s2, exact decimal text. */
  quantity: string;
}

/**
 * The yearly count of sales units a stream's lines show. A `uvc` line counts the units whose
 * packaging includes that material, so a unit made of two materials is counted on two lines: the
 * units placed on the market are at least the largest material's count and at most the sum.
 */
export interface UnitCount {
  at_least: number;
  at_most: number;
}

export interface TierPlacement {
  stream: string;
  eco_organism: string;
  count_unit: string;
  /** Null when the year has no line in `count_unit` for the stream. */
  count: UnitCount | null;
  /** The tier both bounds of the count fall in; null when no tier is published, no count, or the bounds straddle tiers. */
  tier: FilingTier | null;
  /** Ids of the tiers the count may fall in, lowest first (one when `tier` is known; empty without a count). */
  possible_tiers: string[];
}

/** The count of `unit` lines of a stream, as bounds (see UnitCount); null when there are none. */
export function unitCount(lines: readonly YearLine[], stream: string, unit: string): UnitCount | null {
  const counts = lines.filter((line) => line.stream === stream && line.unit === unit).map((line) => Number(line.quantity));
  if (counts.length === 0) return null;
  return { at_least: Math.max(...counts), at_most: counts.reduce((sum, count) => sum + count, 0) };
}

/** The eco-organisms of a stream whose filing scheme is published and whose approval (when known) covers part of the year. */
export function filingEcoOrganisms(stream: Stream, year: number): EcoOrganism[] {
  return stream.eco_organisms.filter(
    (eco) => eco.filing !== null && (eco.approval === null || (eco.approval.from <= `${year}-12-31` && eco.approval.to >= `${year}-01-01`)),
  );
}

/** The tier of an eco-organism a yearly count falls in (ReferenceCatalogue.filingTier). */
export type TierOf = (stream: string, ecoOrganism: string, yearlyCount: number) => FilingTier | undefined;

/** For each stream and eco-organism with a published filing scheme, where the year's count puts the client. */
export function tierPlacements(streams: readonly Stream[], lines: readonly YearLine[], year: number, tierOf: TierOf): TierPlacement[] {
  return streams.flatMap((stream) =>
    filingEcoOrganisms(stream, year).map((eco) => {
      const scheme = eco.filing!;
      const count = unitCount(lines, stream.code, scheme.count_unit);
      const low = count && tierOf(stream.code, eco.name, count.at_least);
      const high = count && tierOf(stream.code, eco.name, count.at_most);
      const possible = low && high ? scheme.tiers.slice(scheme.tiers.indexOf(low), scheme.tiers.indexOf(high) + 1) : [];
      return {
        stream: stream.code,
        eco_organism: eco.name,
        count_unit: scheme.count_unit,
        count,
        tier: low && low === high ? low : null,
        possible_tiers: possible.map((tier) => tier.id),
      };
    }),
  );
}

/**
 * The stream's deadlines for the year's two half-years, each date once: an annual declaration is
 * one deadline whether it is reached from S1 or from S2.
 */
export function yearDeadlines(stream: Stream, year: number): DueDeadline[] {
  const seen = new Set<string>();
  const deadlines: DueDeadline[] = [];
  for (const code of [`${year}-S1`, `${year}-S2`]) {
    const period = parsePeriod(code)!;
    for (const deadline of stream.deadlines) {
      const due = dueDate(deadline, period);
      if (seen.has(`${deadline.id} ${due}`)) continue;
      seen.add(`${deadline.id} ${due}`);
      deadlines.push({
        id: deadline.id,
        label: deadline.label,
        by: deadline.by,
        due,
        verification: deadline.verification,
        sources: deadline.sources,
      });
    }
  }
  return deadlines.sort((a, b) => (a.due < b.due ? -1 : a.due > b.due ? 1 : a.id < b.id ? -1 : 1));
}
