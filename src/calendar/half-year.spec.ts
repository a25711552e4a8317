import { dueDate, halfYearOf, nextPeriod, parsePeriod, periodEndInstant, periodEnded, periodOf, previousHalfYear } from './half-year.js';

describe('parsePeriod', () => {
  it('gives the first and last day of each half-year', () => {
    expect(parsePeriod('2025-S1')).toEqual({ code: '2025-S1', year: 2025, half: 1, start: '2025-01-01', end: '2025-06-30' });
    expect(parsePeriod('2025-S2')).toEqual({ code: '2025-S2', year: 2025, half: 2, start: '2025-07-01', end: '2025-12-31' });
  });

  it.each(['2025-S0', '2025-s1', '2025-S1\n', '02025-S1', '２０２５-S1'])('refuses %j', (code) => {
    expect(parsePeriod(code)).toBeUndefined();
  });
});

describe('periodOf, nextPeriod and halfYearOf', () => {
  it('names the half-year of a date, the one after it, and the one of an instant in France', () => {
    expect(periodOf('2026-07-01').code).toBe('2026-S2');
    expect(periodOf('2024-03-15').code).toBe('2024-S1');
    expect(nextPeriod(periodOf('2025-03-01')).code).toBe('2025-S2');
    expect(nextPeriod(periodOf('2025-12-31')).code).toBe('2026-S1');
    // 30 June 2026 at 23:30 UTC is 1 July in Paris; 31 December at 23:30 UTC is 1 January.
    expect(halfYearOf(new Date('2026-06-30T21:30:00Z'))).toBe('2026-S1');
    expect(halfYearOf(new Date('2026-06-30T23:30:00Z'))).toBe('2026-S2');
    expect(halfYearOf(new Date('2026-12-31T23:30:00Z'))).toBe('2027-S1');
  });
});

describe('previousHalfYear', () => {
  it('is the half-year before, across a year', () => {
    expect(previousHalfYear('2026-S2')).toBe('2026-S1');
    expect(previousHalfYear('2026-S1')).toBe('2025-S2');
  });
});

describe('periodEndInstant and periodEnded', () => {
  it('ends a half-year at midnight in Paris (UTC+2 in summer, UTC+1 in winter)', () => {
    expect(periodEndInstant('2026-S1').toISOString()).toBe('2026-06-30T22:00:00.000Z');
    expect(periodEndInstant('2026-S2').toISOString()).toBe('2026-12-31T23:00:00.000Z');
    // Any period the pattern admits has an end, the first and the last of them too (an operator's typing;
    // Paris kept its local mean time until 1891, whose minutes midnight here leaves aside).
    expect(periodEndInstant('0000-S1').toISOString()).toBe('0000-07-01T00:00:00.000Z');
    expect(periodEndInstant('0999-S2').toISOString()).toBe('1000-01-01T00:00:00.000Z');
    expect(periodEndInstant('9999-S2').toISOString()).toBe('9999-12-31T23:00:00.000Z');
    expect(periodEnded('2026-S1', new Date('2026-06-30T21:59:59Z'))).toBe(false);
    expect(periodEnded('2026-S1', new Date('2026-06-30T22:00:00Z'))).toBe(true);
  });
});

describe('dueDate', () => {
  it("counts from the period's year; a day past the month's end is its last day (29 February in a common year: the 28th)", () => {
    const deadline = { due: { years_after_period: 1, month: 2, day: 29 } };
    expect(dueDate(deadline, periodOf('2026-01-01'))).toBe('2027-02-28');
    expect(dueDate(deadline, periodOf('2027-01-01'))).toBe('2028-02-29');
  });

  it('writes the month and the day on two digits, in the same year when no year is added', () => {
    expect(dueDate({ due: { years_after_period: 0, month: 3, day: 1 } }, periodOf('2026-01-01'))).toBe('2026-03-01');
  });
});
