import { parisDate } from './clock.js';

describe('parisDate', () => {
  it('is the calendar date in France, across midnight and daylight saving time', () => {
    // 30 June 22:30 UTC is already 1 July in Paris (UTC+2 in summer).
    expect(parisDate(new Date('2026-06-30T21:59:59Z'))).toBe('2026-06-30');
    expect(parisDate(new Date('2026-06-30T22:00:00Z'))).toBe('2026-07-01');
    // 31 December 23:00 UTC is 1 January in Paris (UTC+1 in winter).
    expect(parisDate(new Date('2026-12-31T22:59:59Z'))).toBe('2026-12-31');
    expect(parisDate(new Date('2026-12-31T23:00:00Z'))).toBe('2027-01-01');
  });
});
