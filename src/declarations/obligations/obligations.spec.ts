import type { Stream } from '../../reference/reference-documents.js';
import { liableFrom } from '../../calendar/liability.js';
import { firstOwedPeriod, type LiableClient, obligationsOf } from './obligations.js';

/** A client liable from the half-year of its confirmation (no start set by the operator). */
const confirmedAt = (instant: Date): LiableClient => ({ startOf: () => liableFrom(null, instant) });

const deadline = {
  id: 'declare',
  label: { fr: 'Déclarer', en: 'Declare' },
  by: 'producer' as const,
  due: { years_after_period: 1, month: 2, day: 29 },
  verification: 'secondary_source' as const,
  checked: '2026-11-23',
  sources: ['https://example.org'],
};
const stream = (code: string, from: string, until: string | null = null) =>
  ({
    code,
    name: { fr: code, en: code },
    declarable_from: from,
    declarable_until: until,
    replaced_by: until ? 'EPRO' : null,
    deadlines: [deadline],
  }) as unknown as Stream;

describe('obligations', () => {
  it('lists every half-year from the first declarable one to today, declared or missing, with the deadlines ahead', () => {
    const [emb] = obligationsOf(
      [stream('EMB', '2025-01-01')],
      [{ id: 'd1', period: '2025-S2', revision: 2, receipt: 'R', streams: ['EMB'] }],
      '2026-11-23',
    );
    expect(emb!.periods.map((p) => [p.period, p.status, p.ended])).toEqual([
      ['2025-S1', 'overdue', true],
      ['2025-S2', 'declared', true],
      ['2026-S1', 'to_declare', true],
      ['2026-S2', 'open', false],
    ]);
    // S1 and S2 of a year share the annual deadline.
    expect(emb!.periods.map((p) => p.due_date)).toEqual(['2026-02-28', '2026-02-28', '2027-02-28', '2027-02-28']);
    expect(emb!.periods[1]!.declaration).toEqual({ id: 'd1', revision: 2, receipt: 'R' });
    expect(emb!.periods[0]!.next_deadlines).toEqual([]);
    expect(emb!.periods[3]!.next_deadlines.map((d) => d.due)).toEqual(['2027-02-28']);
  });

  it('stops at the last period of an ended stream; a declaration of another stream does not count', () => {
    const [chr] = obligationsOf(
      [stream('CHR', '2024-03-15', '2026-06-30')],
      [{ id: 'd', period: '2024-S1', revision: 1, receipt: 'R', streams: ['EMB'] }],
      '2026-11-23',
    );
    expect(chr!.first_period).toBe('2024-S1');
    expect(chr!.last_period).toBe('2026-S1');
    expect(chr!.periods.map((p) => p.period)).toEqual(['2024-S1', '2024-S2', '2025-S1', '2025-S2', '2026-S1']);
    expect(chr!.periods[0]!.status).toBe('overdue');
  });

  it('counts from when the client is liable: the half-year it was confirmed in, never before the stream; a half-year declared earlier still shows', () => {
    const emb = stream('EMB', '2022-01-01');
    expect(firstOwedPeriod({ startOf: () => null }, emb)).toBeNull();
    // 30 June 2026 at 23:30 UTC is 1 July in Paris: the second half-year.
    expect(firstOwedPeriod(confirmedAt(new Date('2026-06-30T23:30:00Z')), emb)).toBe('2026-S2');
    expect(firstOwedPeriod(confirmedAt(new Date('2026-06-30T21:30:00Z')), emb)).toBe('2026-S1');
    expect(firstOwedPeriod(confirmedAt(new Date('2020-03-01T12:00:00Z')), emb)).toBe('2022-S1');

    const [fresh] = obligationsOf([emb], [], '2026-11-23', confirmedAt(new Date('2026-11-20T10:00:00Z')));
    expect(fresh!.liable_from).toBe('2026-S2');
    expect(fresh!.periods.map((p) => [p.period, p.status])).toEqual([['2026-S2', 'open']]);

    const [early] = obligationsOf(
      [emb],
      [{ id: 'd', period: '2025-S1', revision: 1, receipt: 'R', streams: ['EMB'] }],
      '2026-11-23',
      confirmedAt(new Date('2026-03-01T10:00:00Z')),
    );
    expect(early!.periods.map((p) => [p.period, p.status])).toEqual([
      ['2025-S1', 'declared'],
      ['2026-S1', 'to_declare'],
      ['2026-S2', 'open'],
    ]);
  });
});
