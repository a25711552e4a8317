import { chartOf } from './chart.js';
import { parseScope } from './standing.js';

describe('the console’s scopes', () => {
  it('reads a half-year or a year, nothing else', () => {
    expect(parseScope('2026-S1')).toEqual({ kind: 'period', code: '2026-S1', periods: ['2026-S1'] });
    expect(parseScope('2026')).toEqual({ kind: 'year', code: '2026', periods: ['2026-S1', '2026-S2'] });
    for (const text of ['2026-S3', '26', '2026-s1', ' 2026', 'S1'])
      expect({ text, scope: parseScope(text) }).toEqual({ text, scope: undefined });
    expect(parseScope(undefined)).toBeUndefined();
  });
});

describe('the first page’s chart', () => {
  it('draws each row’s three parts side by side, scaled to the largest row', () => {
    const chart = chartOf([
      { ecoOrganism: 'Citeo', stream: 'EMB', counts: { declared: 3, to_declare: 1, overdue: 0 } },
      { ecoOrganism: null, stream: 'EPRO', counts: { declared: 0, to_declare: 1, overdue: 1 } },
    ]);
    expect(chart.rows[0]!.bars.map((b) => [b.standing, b.x, b.width])).toEqual([
      ['declared', 0, 450],
      ['to_declare', 450, 150],
      ['overdue', 600, 0],
    ]);
    expect(chart.rows[1]!.bars.map((b) => b.width)).toEqual([0, 150, 150]);
    expect(chart.rows[1]!.y).toBeGreaterThan(chart.rows[0]!.y);
    expect(chart.height).toBeGreaterThanOrEqual(chart.rows[1]!.y + 46);
  });

  it('draws nothing for an empty report, without dividing by zero', () => {
    expect(chartOf([])).toEqual({ rows: [], height: 28, width: 600 });
    const empty = chartOf([{ ecoOrganism: 'Léko', stream: 'EMB', counts: { declared: 0, to_declare: 0, overdue: 0 } }]);
    expect(empty.rows[0]!.bars.map((b) => b.width)).toEqual([0, 0, 0]);
  });
});
