import { unitCount, type YearLine } from './annual-filing.js';

const line = (stream: string, unit: string, s1: string | null, s2: string | null = null): YearLine => ({
  stream,
  material: 'm',
  materialCode: null,
  unit,
  s1,
  s2,
  quantity: String(Number(s1 ?? 0) + Number(s2 ?? 0)),
});

describe('unitCount', () => {
  it('bounds the units placed on the market by the largest line and the sum, of that stream and unit only', () => {
    const lines = [line('EMB', 'uvc', '8400'), line('EMB', 'uvc', '1000'), line('EMB', 'kg', '99999'), line('EPRO', 'uvc', '5')];
    expect(unitCount(lines, 'EMB', 'uvc')).toEqual({ at_least: 8400, at_most: 9400, basis: 'material_counts' });
    expect(unitCount(lines, 'EPRO', 'uvc')).toEqual({ at_least: 5, at_most: 5, basis: 'material_counts' });
    expect(unitCount(lines, 'EPRO', 'kg')).toBeNull();
  });

  it('bounds each half-year on its own, and adds them', () => {
    // S1: glass 85,000 and cardboard 95,000; S2: glass 10,000 only.
    const lines = [line('EMB', 'uvc', '85000', '10000'), line('EMB', 'uvc', '95000', null)];
    expect(unitCount(lines, 'EMB', 'uvc')).toEqual({ at_least: 105000, at_most: 190000, basis: 'material_counts' });
  });

  it('counts the units sold where a half-year states them, never the sum of its per-material lines', () => {
    const lines = [line('EMB', 'uvc', '85000', '10000'), line('EMB', 'uvc', '95000', null)];
    expect(unitCount(lines, 'EMB', 'uvc', [{ half: 's1', stream: 'EMB', quantity: '100000' }])).toEqual({
      at_least: 110000,
      at_most: 110000,
      basis: 'partly_units_sold',
    });
    expect(
      unitCount(lines, 'EMB', 'uvc', [
        { half: 's1', stream: 'EMB', quantity: '100000' },
        { half: 's2', stream: 'EMB', quantity: '10000' },
      ]),
    ).toEqual({ at_least: 110000, at_most: 110000, basis: 'units_sold' });
  });
});
