import { jest } from '@jest/globals';
import { Clock, parisDate } from './clock.js';

describe('Clock', () => {
  it('tells the current time', () => {
    const before = Date.now();
    const now = new Clock().now();
    expect(now).toBeInstanceOf(Date);
    expect(now.getTime()).toBeGreaterThanOrEqual(before);
    expect(now.getTime()).toBeLessThanOrEqual(Date.now());
  });
});

describe('parisDate', () => {
  it('is the calendar date in France, across midnight and daylight saving time', () => {
    // 30 June 22:30 UTC is already 1 July in Paris (UTC+2 in summer).
    expect(parisDate(new Date('2026-06-30T21:59:59Z'))).toBe('2026-06-30');
    expect(parisDate(new Date('2026-06-30T22:00:00Z'))).toBe('2026-07-01');
    // 31 December 23:00 UTC is 1 January in Paris (UTC+1 in winter).
    expect(parisDate(new Date('2026-12-31T22:59:59Z'))).toBe('2026-12-31');
    expect(parisDate(new Date('2026-12-31T23:00:00Z'))).toBe('2027-01-01');
  });

  it('stays right when asked again and again around midnight, forwards and backwards', () => {
    for (const [instant, date] of [
      ['2026-06-30T21:59:00Z', '2026-06-30'],
      ['2026-06-30T21:59:59.999Z', '2026-06-30'],
      ['2026-06-30T22:00:00Z', '2026-07-01'],
      ['2026-06-30T22:00:59Z', '2026-07-01'],
      ['2026-06-30T21:59:30Z', '2026-06-30'],
      ['2025-01-01T00:00:00Z', '2025-01-01'],
    ] as const) {
      expect({ instant, date: parisDate(new Date(instant)) }).toEqual({ instant, date });
    }
  });

  it('formats once per UTC minute, however often it is asked (it runs on every declaration)', () => {
    const format = jest.spyOn(Intl.DateTimeFormat.prototype, 'formatToParts');
    try {
      parisDate(new Date('2026-03-01T10:00:00Z'));
      expect(format).toHaveBeenCalledTimes(1);
      for (const second of ['00.001', '01', '30', '59.999']) expect(parisDate(new Date(`2026-03-01T10:00:${second}Z`))).toBe('2026-03-01');
      expect(format).toHaveBeenCalledTimes(1);
      expect(parisDate(new Date('2026-03-01T10:01:00Z'))).toBe('2026-03-01');
      expect(format).toHaveBeenCalledTimes(2);
    } finally {
      format.mockRestore();
    }
  });
});
