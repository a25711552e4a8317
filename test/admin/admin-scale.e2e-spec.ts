import { adminListStatement, type AdminListQuery } from '../../src/declarations/declarations-admin.repository.js';
import { SERVER_DATABASE_URL, startTestApp, type TestApp } from '../support/test-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t?.close();
});

/**
 * 2,000 clients × 100 revisions = 200,000 declarations on the PostgreSQL server (~15 s with every
 * index of the table); 100,000 on the embedded database (PGlite), which fills far slower. At
 * 1,000,000 (the earlier size, ~70 s) the planner chose the same plans: a page of 21 rows read in
 * index order beats a scan and sort of the table long before that size, and the buffer bounds below
 * hold at both.
 */
const CLIENTS = SERVER_DATABASE_URL ? 2_000 : 1_000;
const PERIODS = ['2022-S1', '2022-S2', '2023-S1', '2023-S2', '2024-S1', '2024-S2', '2025-S1', '2025-S2', '2026-S1', '2026-S2'];

/** The plan of the repository's own statement for `query` (a page of 20 plus one), run with EXPLAIN ANALYZE. */
async function plan(query: Omit<AdminListQuery, 'limit'>): Promise<string> {
  const { text, values } = adminListStatement({ ...query, limit: 21 });
  const { rows } = await t.pool.query(`EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF, SUMMARY OFF) ${text}`, values);
  return rows.map((r) => r['QUERY PLAN'] as string).join('\n');
}
const buffers = (text: string) =>
  [...text.matchAll(/Buffers: shared hit=(\d+)(?: read=(\d+))?/g)].reduce((n, m) => n + Number(m[1]) + Number(m[2] ?? 0), 0);

describe(`the operator's declaration listing on ${CLIENTS * 100} declarations`, () => {
  beforeAll(async () => {
    // CLIENTS × 100 revisions over ten half-years (the last revision of each period current), by SQL.
    await t.pool.query(`INSERT INTO clients (client_id) SELECT 'scale-' || c FROM generate_series(1, $1::int) AS c`, [CLIENTS]);
    await t.pool.query(
      `INSERT INTO declarations (id, client_id, period, revision, status, supersedes, submitted_at, receipt, content_hash)
       SELECT md5(c || '/' || r)::uuid, 'scale-' || c, ($1::text[])[r % 10 + 1], r,
              CASE WHEN r > 90 THEN 'current' ELSE 'superseded' END,
              CASE WHEN r = 1 THEN NULL ELSE md5(c || '/' || (r - 1))::uuid END,
              timestamptz '2025-01-01 00:00:00+00' + r * interval '1 hour' + c * interval '1 second',
              'EPR-SCALE-' || c || '-' || r, 'x'
         FROM generate_series(1, $2::int) AS c, generate_series(1, 100) AS r`,
      [PERIODS, CLIENTS],
    );
    await t.pool.query(
      `INSERT INTO declaration_lines (declaration_id, position, stream, material, material_code, unit, quantity)
       SELECT id, 0, CASE WHEN revision % 2 = 0 THEN 'EMB' ELSE 'EPRO' END, 'Verre', 'glass', 'kg', 1 FROM declarations WHERE client_id LIKE 'scale-1%'`,
    );
    await t.pool.query('ANALYZE');
    expect(Number((await t.pool.query('SELECT count(*) FROM declarations')).rows[0].count)).toBe(CLIENTS * 100);
  }, 300_000);

  it.each<[string, Omit<AdminListQuery, 'limit'>, string]>([
    ['every declaration', {}, 'ix_declarations_submitted'],
    ['by period', { period: '2024-S1' }, 'ix_declarations_period_submitted'],
    ['status=current', { status: 'current' }, 'ix_declarations_current_submitted'],
    ['superseded', { status: 'superseded' }, 'ix_declarations_superseded_submitted'],
    ['by client', { clientId: 'scale-77' }, 'ix_declarations_client_submitted'],
    ['by client, current', { clientId: 'scale-77', status: 'current' }, 'ix_declarations_client_current_submitted'],
    ['by client and period', { clientId: 'scale-77', period: '2024-S1' }, 'ix_declarations_client_period_submitted'],
    ['by period, current', { period: '2024-S1', status: 'current' }, 'ix_declarations_period_current_submitted'],
    ['submitted between', { submittedFrom: '2025-01-03T00:00:00Z', submittedTo: '2025-01-04T00:00:00Z' }, 'ix_declarations_submitted'],
    [
      'next page',
      { after: { at: '2025-01-03T00:00:00.000000Z', id: '6b1f3c2e-9d4a-4e7b-8c5f-0a1b2c3d4e5f' } },
      'ix_declarations_submitted',
    ],
    ['by stream', { stream: 'EMB' }, 'ix_declarations_'],
  ])('%s: an index scan in page order, no sort of the table, a few pages read', async (_name, query, index) => {
    const text = await plan(query);
    expect(text).toMatch(/^Limit/);
    expect(text).not.toMatch(/Seq Scan on declarations /);
    if (query.clientId) {
      // One client's rows (100 here) come from its own index; the planner may sort those few.
      expect(text).toMatch(new RegExp(`Index Scan (using|on) ${index} `));
      expect(buffers(text)).toBeLessThan(50);
    } else {
      expect(text).toMatch(new RegExp(`Index (Only )?Scan using ${index}\\S* on declarations`));
      expect(text).not.toMatch(/Sort/);
      if (!query.stream) expect(buffers(text)).toBeLessThan(200);
    }
  });
});
