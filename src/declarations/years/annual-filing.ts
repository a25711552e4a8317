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

/** The units sold a half-year's current revision states for one stream. */
export interface HalfYearUnitsSold {
  /** `s1` or `s2`. */
  half: 's1' | 's2';
  stream: string;
  /** A whole number as decimal text. */
  quantity: string;
}

/**
 * The yearly count of consumer sales units of a stream. Where a half-year states its units sold,
 * they are its count, exactly. Where it has only per-material `uvc` lines, each counts the units whose
 * packaging includes that material, so a unit made of two materials is on two lines: the half-year's
 * units are at least its largest material's count and at most the sum of its lines. The year adds
 * its two half-years' bounds.
 */
export interface UnitCount {
  at_least: number;
  at_most: number;
  /**
   * `units_sold`: every half-year with figures states its units sold (the bounds are equal, the count is
   * known); `material_counts`: none does, the bounds come from the per-material lines; `partly_units_sold`: one does.
   */
  basis: 'units_sold' | 'material_counts' | 'partly_units_sold';
}

export interface TierPlacement {
  stream: string;
  eco_organism: string;
  count_unit: string;
  /** Null when the year has neither units sold nor a line in `count_unit` for the stream. */
  count: UnitCount | null;
  /** The tier both bounds of the count fall in; null when no tier is published, no count, or the bounds straddle tiers. */
  tier: FilingTier | null;
  /** Ids of the tiers the count may fall in, lowest first (one when `tier` is known; empty without a count). */
  possible_tiers: string[];
}

/** The year's count of `unit` for a stream, from its units sold where stated, else its lines (see UnitCount); null when there is neither. */
export function unitCount(
  lines: readonly YearLine[],
  stream: string,
  unit: string,
  unitsSold: readonly HalfYearUnitsSold[] = [],
): UnitCount | null {
  let atLeast = 0;
  let atMost = 0;
  let stated = 0;
  let counted = 0;
  for (const half of ['s1', 's2'] as const) {
    const sold = unitsSold.find((entry) => entry.half === half && entry.stream === stream);
    if (sold) {
      atLeast += Number(sold.quantity);
      atMost += Number(sold.quantity);
      stated++;
      continue;
    }
    const counts = lines
      .filter((line) => line.stream === stream && line.unit === unit && line[half] !== null)
      .map((line) => Number(line[half]));
    if (counts.length === 0) continue;
    atLeast += Math.max(...counts);
    atMost += counts.reduce((sum, count) => sum + count, 0);
    counted++;
  }
  if (stated + counted === 0) return null;
  return {
    at_least: atLeast,
    at_most: atMost,
    basis: counted === 0 ? 'units_sold' : stated === 0 ? 'material_counts' : 'partly_units_sold',
  };
}

/** The eco-organisms of a stream whose filing scheme is published and whose approval (when known) covers part of the year. */
export function filingEcoOrganisms(stream: Stream, year: number): EcoOrganism[] {
  return stream.eco_organisms.filter(
    (eco) => eco.filing !== null && (eco.approval === null || (eco.approval.from <= `${year}-12-31` && eco.approval.to >= `${year}-01-01`)),
  );
}

/** The tier of an eco-organism a yearly count falls in (ReferenceCatalogue.filingTier). */
export type TierOf = (stream: string, ecoOrganism: string, yearlyCount: number) => FilingTier | undefined;

/** For each stream and eco-organism with a published filing scheme, where the year's count (units sold where stated) puts the client. */
export function tierPlacements(
  streams: readonly Stream[],
  lines: readonly YearLine[],
  unitsSold: readonly HalfYearUnitsSold[],
  year: number,
  tierOf: TierOf,
): TierPlacement[] {
  return streams.flatMap((stream) =>
    filingEcoOrganisms(stream, year).map((eco) => {
      const scheme = eco.filing!;
      const count = unitCount(lines, stream.code, scheme.count_unit, unitsSold);
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
