import { createHash } from 'node:crypto';
import request from 'supertest';
import { type ListQuery, listPageStatement } from '../src/declarations/declarations.repository.js';
import { createClientWithToken } from './support/factories.js';
import { startTestApp, type TestApp } from './support/test-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t?.close();
});

const PATH = '/api/v1/declarations';
const line = (quantity: number, material = 'Verre') => ({ stream: 'EMB', material, unit: 'uvc', quantity });
const post = (token: string, body: unknown, key?: string) => {
  const req = request(t.url).post(PATH).set('authorization', `Bearer ${token}`);
  if (key) req.set('idempotency-key', key);
  return req.send(body as object);
};
const get = (token: string, path: string) => request(t.url).get(path).set('authorization', `Bearer ${token}`);

describe('concurrent submissions', () => {
  it('20 concurrent POSTs for one period → revisions 1..20, consecutive, exactly one current', async () => {
    const { clientId, token } = await createClientWithToken(t);
    const responses = await Promise.all(Array.from({ length: 20 }, (_, i) => post(token, { period: '2025-S1', lines: [line(i + 1)] })));
    expect(responses.map((r) => r.status)).toEqual(Array(20).fill(201));
    expect(responses.map((r) => r.body.revision).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));

    const { rows } = await t.pool.query(
      `SELECT id, revision, status, supersedes, submitted_at FROM declarations WHERE client_id = $1 AND period = '2025-S1' ORDER BY revision`,
      [clientId],
    );
    expect(rows.map((r) => r.revision)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect(rows.filter((r) => r.status === 'current').map((r) => r.revision)).toEqual([20]);
    rows.forEach((row, i) => {
      // Each revision supersedes the one before it, and was acknowledged after it.
      expect(row.supersedes).toBe(i === 0 ? null : rows[i - 1].id);
      if (i > 0) expect(row.submitted_at.getTime()).toBeGreaterThanOrEqual(rows[i - 1].submitted_at.getTime());
    });
    const current = await get(token, `${PATH}?status=current&period=2025-S1`);
    expect(current.body.data.map((d: { revision: number }) => d.revision)).toEqual([20]);
  });

  it('20 concurrent POSTs with one Idempotency-Key → one declaration; identical 201s (first or replayed) or 409s', async () => {
    const { clientId, token } = await createClientWithToken(t);
    const body = { period: '2025-S2', lines: [line(42)] };
    const responses = await Promise.all(Array.from({ length: 20 }, () => post(token, body, 'one-key-for-all')));

    const { rows } = await t.pool.query(`SELECT id FROM declarations WHERE client_id = $1`, [clientId]);
    expect(rows).toHaveLength(1);
    const created = responses.filter((r) => r.status === 201);
    const conflicts = responses.filter((r) => r.status === 409);
    expect(created.length + conflicts.length).toBe(20);
    expect(created.filter((r) => r.headers['idempotent-replayed'] === undefined)).toHaveLength(1);
    for (const res of created) {
      expect(res.text).toBe(created[0]!.text);
      expect(res.body.id).toBe(rows[0].id);
      expect(res.headers.location).toBe(`${PATH}/${rows[0].id}`);
    }
    for (const res of conflicts) {
      expect(res.body.code).toBe('idempotency_key_in_flight');
      expect(res.headers['retry-after']).toBe('1');
    }
    // A late retry gets the replay.
    const late = await post(token, body, 'one-key-for-all');
    expect(late.status).toBe(201);
    expect(late.headers['idempotent-replayed']).toBe('true');
    expect(late.text).toBe(created[0]!.text);
  });
});

describe('pagination', () => {
  it('paging through 250 declarations returns each exactly once, in order, while new ones are submitted', async () => {
    const { clientId, token } = await createClientWithToken(t);
    // 250 revisions of one period, inserted directly (the route would take minutes); ten share each
    // timestamp (ties broken by id) and timestamps differ by microseconds, so a cursor that kept
    // only milliseconds would skip or repeat rows.
    // Ids in a scrambled but fixed order (md5 of the revision), so ties are broken the same way on every run.
    const ids: string[] = Array.from({ length: 250 }, (_, i) =>
      createHash('md5')
        .update(String(i))
        .digest('hex')
        .replace(/^(.{8})(.{4})(.{4})(.{4})(.{12})$/, '$1-$2-$3-$4-$5'),
    );
    await t.pool.query(
      `INSERT INTO declarations (id, client_id, period, revision, status, supersedes, submitted_at, receipt, content_hash)
       SELECT ids[i], $1, '2022-S1', i, CASE WHEN i = 250 THEN 'current' ELSE 'superseded' END,
              CASE WHEN i = 1 THEN NULL ELSE ids[i - 1] END,
              timestamptz '2025-07-01 08:00:00.000001+00' + ((i - 1) / 10) * interval '3 microseconds',
              'EPR-FIXTURE-' || i, md5(i::text)
         FROM generate_series(1, 250) AS i, (SELECT $2::uuid[] AS ids) AS a`,
      [clientId, ids],
    );
    await t.pool.query(
      `INSERT INTO declaration_lines (declaration_id, position, stream, material, material_code, unit, quantity)
       SELECT id, 0, 'EMB', 'Verre', 'glass', 'kg', revision FROM declarations WHERE client_id = $1`,
      [clientId],
    );

    let submitting = true;
    const submitted: string[] = [];
    const submitter = (async () => {
      for (let i = 0; submitting && i < 40; i++) {
        const res = await post(token, { period: '2023-S1', lines: [line(i + 1)] });
        expect(res.status).toBe(201);
        submitted.push(res.body.id);
      }
    })();

    const seen: { id: string; submitted_at: string; line_count: number }[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res = await get(token, `${PATH}?limit=7${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.status).toBe(200);
      expect(res.body.data.length).toBeLessThanOrEqual(7);
      seen.push(...res.body.data);
      cursor = res.body.next_cursor;
      expect(res.body.has_more).toBe(cursor !== null);
      pages++;
    } while (cursor && pages < 100);
    submitting = false;
    await submitter;
    expect(submitted.length).toBeGreaterThan(0);

    const seenIds = seen.map((d) => d.id);
    expect(new Set(seenIds).size).toBe(seenIds.length);
    const fixtures = seenIds.filter((id) => ids.includes(id));
    expect(fixtures).toHaveLength(250);
    const { rows } = await t.pool.query(`SELECT id FROM declarations WHERE id = ANY($1::uuid[]) ORDER BY submitted_at DESC, id DESC`, [
      ids,
    ]);
    expect(fixtures).toEqual(rows.map((r) => r.id));
    // The whole listing is in the documented order: (submitted_at, id) strictly decreasing.
    for (let i = 1; i < seen.length; i++) {
      const [a, b] = [seen[i - 1]!, seen[i]!];
      expect(a.submitted_at > b.submitted_at || (a.submitted_at === b.submitted_at && a.id > b.id)).toBe(true);
    }
    expect(seen.find((d) => d.id === ids[0])).toMatchObject({ submitted_at: '2025-07-01T08:00:00.000001Z', line_count: 1 });
  });
});

describe('the first page is an index scan whatever the table size', () => {
  // The repository's own statement, with the page size of a default page plus one.
  const firstPage = (query: Partial<ListQuery> & { clientId: string }) => listPageStatement({ limit: 21, mode: 'live', ...query });
  const plan = async ({ text, values }: { text: string; values: unknown[] }) =>
    (await t.pool.query(`EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF, SUMMARY OFF) ${text}`, values)).rows
      .map((r) => r['QUERY PLAN'] as string)
      .join('\n');
  const buffers = (text: string) => Number(/Buffers: shared hit=(\d+)/.exec(text)?.[1] ?? 0) + Number(/read=(\d+)/.exec(text)?.[1] ?? 0);

  it('keyset on (client_id, submitted_at DESC, id DESC), the same few pages read with 1,000 or 100,000 rows', async () => {
    await t.pool.query(`INSERT INTO clients (client_id) SELECT 'bulk-' || g FROM generate_series(1, 1000) AS g`);
    // 100 declarations per client over five periods: 100,000 rows; the last one of each period current.
    const insert = (from: number, to: number) =>
      t.pool.query(
        `INSERT INTO declarations (id, client_id, period, revision, status, supersedes, submitted_at, receipt, content_hash)
         SELECT md5(c || '/' || r)::uuid, 'bulk-' || c, (ARRAY['2022-S1', '2022-S2', '2023-S1', '2023-S2', '2024-S1'])[r % 5 + 1], r,
                CASE WHEN r > 95 THEN 'current' ELSE 'superseded' END,
                CASE WHEN r = 1 THEN NULL ELSE md5(c || '/' || (r - 1))::uuid END,
                timestamptz '2025-01-01 00:00:00+00' + r * interval '1 minute' + c * interval '1 microsecond',
                'EPR-BULK-' || c || '-' || r, 'x'
           FROM generate_series($1::int, $2::int) AS c, generate_series(1, 100) AS r`,
        [from, to],
      );
    await insert(1, 10);
    await t.pool.query('ANALYZE declarations');
    const small = await plan(firstPage({ clientId: 'bulk-5' }));
    await insert(11, 1000);
    await t.pool.query('ANALYZE declarations');
    const large = await plan(firstPage({ clientId: 'bulk-5' }));

    for (const text of [small, large]) {
      expect(text).toMatch(/^Limit/);
      expect(text).toContain('Index Scan using ix_declarations_client_submitted on declarations');
      expect(text).not.toMatch(/Sort|Seq Scan/);
    }
    expect(buffers(large)).toBeLessThan(20);
    expect(Math.abs(buffers(large) - buffers(small))).toBeLessThanOrEqual(3);

    // The next pages seek the same index from the cursor.
    const next = await plan(
      firstPage({ clientId: 'bulk-5', after: { submittedAt: '2025-01-01T01:00:00.000005Z', id: '6b1f3c2e-9d4a-4e7b-8c5f-0a1b2c3d4e5f' } }),
    );
    expect(next).toMatch(
      /^Limit[\s\S]*Index Scan using ix_declarations_client_submitted[\s\S]*Index Cond: \(\(client_id = 'bulk-5'::text\) AND \(mode = 'live'::text\) AND \(ROW\(submitted_at, id\) < ROW/,
    );
    expect(next).not.toMatch(/Sort|Seq Scan/);

    // A client with many revisions of a period: the period filter reads its own index in order.
    await t.pool.query(`INSERT INTO clients (client_id) VALUES ('bulk-big')`);
    await t.pool.query(
      `INSERT INTO declarations (id, client_id, period, revision, status, supersedes, submitted_at, receipt, content_hash)
       SELECT md5('big/' || r)::uuid, 'bulk-big', '2024-S1', r, CASE WHEN r = 5000 THEN 'current' ELSE 'superseded' END,
              CASE WHEN r = 1 THEN NULL ELSE md5('big/' || (r - 1))::uuid END,
              timestamptz '2025-01-01 00:00:00+00' + r * interval '1 second', 'EPR-BIG-' || r, 'x'
         FROM generate_series(1, 5000) AS r`,
    );
    await t.pool.query('ANALYZE declarations');
    const byPeriod = await plan(firstPage({ clientId: 'bulk-big', period: '2024-S1' }));
    expect(byPeriod).toMatch(/^Limit[\s\S]*Index Scan using ix_declarations_client_period_submitted/);
    expect(byPeriod).not.toMatch(/Sort|Seq Scan/);
    // status=current: its partial index, not the 4999 superseded revisions filtered out one by one.
    const current = await plan(firstPage({ clientId: 'bulk-big', status: 'current' }));
    expect(current).toMatch(/^Limit[\s\S]*Index Scan using ix_declarations_client_current_submitted/);
    expect(current).not.toMatch(/Sort|Seq Scan|Rows Removed by Filter/);
  });
});
