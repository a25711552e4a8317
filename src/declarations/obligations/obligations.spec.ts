import type { Stream } from '../../reference/reference-documents.js';
import { dueDate, obligationsOf, periodOf } from './obligations.js';

const deadline = { id: 'declare', label: { fr: 'Déclarer', en: 'Declare' }, by: 'producer' as const, due: { years_after_period: 1, month: 2, day: 29 }, verification: 'secondary_source' as const, checked: '2026-11-23', sources: ['https://example.org'] };
const stream = (code: string, from: string, until: string | null = null) =>
  ({ code, name: { fr: code, en: code }, declarable_from: from, declarable_until: until, replaced_by: until ? 'EPRO' : null, deadlines: [deadline] }) as unknown as Stream;

describe('obligations', () => {
  it('periodOf and dueDate (29 February clamps to the 28th in a common year)', () => {
    expect(periodOf('2026-07-01').code).toBe('2026-S2');
    expect(periodOf('2024-03-15').code).toBe('2024-S1');
    expect(dueDate(deadline, periodOf('2026-01-01'))).toBe('2027-02-28');
    expect(dueDate(deadline, periodOf('2027-01-01'))).toBe('2028-02-29');
  });

  it('lists every half-year from the first declarable one to today, declared or missing, with the deadlines ahead', () => {
    const [emb] = obligationsOf([stream('EMB', '2025-01-01')], [{ id: 'd1', period: '2025-S2', revision: 2, receipt: 'R', streams: ['EMB'] }], '2026-11-23');
    expect(emb!.periods.map((p) => [p.period, p.status, p.ended])).toEqual([
      ['2025-S1', 'missing', true],
      ['2025-S2', 'declared', true],
      ['2026-S1', 'missing', true],
      ['2026-S2', 'missing', false],
    ]);
    expect(emb!.periods[1]!.declaration).toEqual({ id: 'd1', revision: 2, receipt: 'R' });
    expect(emb!.periods[0]!.next_deadlines).toEqual([]);
    expect(emb!.periods[3]!.next_deadlines.map((d) => d.due)).toEqual(['2027-02-28']);
  });

  it('stops at the last period of an ended stream; a declaration of another stream does not count', () => {
    const [chr] = obligationsOf([stream('CHR', '2024-03-15', '2026-06-30')], [{ id: 'd', period: '2024-S1', revision: 1, receipt: 'R', streams: ['EMB'] }], '2026-11-23');
    expect(chr!.first_period).toBe('2024-S1');
    expect(chr!.last_period).toBe('2026-S1');
    expect(chr!.periods.map((p) => p.period)).toEqual(['2024-S1', '2024-S2', '2025-S1', '2025-S2', '2026-S1']);
    expect(chr!.periods[0]!.status).toBe('missing');
  });
});
