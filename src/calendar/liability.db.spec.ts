import { PGlite } from '@electric-sql/pglite';
import { periodEndInstant } from './half-year.js';
import { liableBySql, liableFrom } from './liability.js';

describe('liableFrom', () => {
  it("is the operator's setting, else the half-year of the first confirmation in France, else null", () => {
    expect(liableFrom('2025-S1', new Date('2026-03-01T10:00:00Z'))).toBe('2025-S1');
    expect(liableFrom(null, new Date('2026-06-30T21:30:00Z'))).toBe('2026-S1');
    // 23:30 UTC on 30 June is 1 July in Paris: the second half-year.
    expect(liableFrom(undefined, new Date('2026-06-30T23:30:00Z'))).toBe('2026-S2');
    expect(liableFrom(null, null)).toBeNull();
  });
});

describe('liableBySql', () => {
  it('says in SQL what liableFrom(setting, firstConfirmedAt) <= period says, for every case', async () => {
    const db = await PGlite.create();
    try {
      const settings = [null, '2025-S2', '2026-S1', '2026-S2'];
      const confirmations = [null, '2025-12-31T22:59:59Z', '2025-12-31T23:00:00Z', '2026-06-30T21:59:59Z', '2026-06-30T22:00:00Z'];
      const sql = liableBySql({
        setting: '$1::text',
        firstConfirmedAt: '$2::timestamptz',
        period: '$3::text',
        periodEnd: '$4::timestamptz',
      });
      for (const period of ['2025-S2', '2026-S1', '2026-S2'])
        for (const setting of settings)
          for (const confirmed of confirmations) {
            const start = liableFrom(setting, confirmed === null ? null : new Date(confirmed));
            const expected = start !== null && start <= period;
            const { rows } = await db.query<{ liable: boolean | null }>(`SELECT (${sql}) AS liable`, [
              setting,
              confirmed,
              period,
              periodEndInstant(period).toISOString(),
            ]);
            expect({ period, setting, confirmed, liable: rows[0]!.liable === true }).toEqual({
              period,
              setting,
              confirmed,
              liable: expected,
            });
          }
    } finally {
      await db.close();
    }
  });
});
