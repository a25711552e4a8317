import type { Standing, StandingGroup } from './standing.js';

/** The geometry of the first page's bar chart: one row per eco-organism and stream, its three counts side by side. */
export interface ChartRow {
  group: StandingGroup;
  y: number;
  bars: { standing: Standing; x: number; width: number; count: number }[];
}

export const CHART_ROW_HEIGHT = 28;
export const CHART_WIDTH = 600;

/** Stacked bars scaled to the largest row (an empty report draws nothing). */
export function chartOf(groups: readonly StandingGroup[]): { rows: ChartRow[]; height: number; width: number } {
  const largest = Math.max(1, ...groups.map((g) => g.counts.declared + g.counts.to_declare + g.counts.overdue));
  const rows = groups.map((group, i) => {
    let x = 0;
    const bars = (['declared', 'to_declare', 'overdue'] as const).map((standing) => {
      const width = Math.round((group.counts[standing] / largest) * CHART_WIDTH);
      const bar = { standing, x, width, count: group.counts[standing] };
      x += width;
      return bar;
    });
    return { group, y: i * CHART_ROW_HEIGHT * 2, bars };
  });
  return { rows, height: Math.max(CHART_ROW_HEIGHT, groups.length * CHART_ROW_HEIGHT * 2), width: CHART_WIDTH };
}
