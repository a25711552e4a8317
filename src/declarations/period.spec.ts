import { parsePeriod } from './period.js';

describe('parsePeriod', () => {
  it('gives the first and last day of each half-year', () => {
    expect(parsePeriod('2025-S1')).toEqual({ code: '2025-S1', year: 2025, half: 1, start: '2025-01-01', end: '2025-06-30' });
    expect(parsePeriod('2025-S2')).toEqual({ code: '2025-S2', year: 2025, half: 2, start: '2025-07-01', end: '2025-12-31' });
  });

  it.each(['2025-S0', '2025-s1', '2025-S1\n', '02025-S1', '２０２５-S1'])('refuses %j', (code) => {
    expect(parsePeriod(code)).toBeUndefined();
  });
});
