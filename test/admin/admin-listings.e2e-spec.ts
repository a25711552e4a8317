import request from 'supertest';
import { createClient, createClientWithToken } from '../support/factories.js';
import { ADMIN_TOKEN, startTestApp, type TestApp } from '../support/test-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t?.close();
});

const admin = () => ({ authorization: `Bearer ${ADMIN_TOKEN}` });
const get = (path: string) => request(t.url).get(path).set(admin());
// Household packaging counted in sales units (a weight would need its count beside it); food-service in kg.
const line = (quantity: number, stream = 'EMB', material = 'Verre') => ({
  stream,
  material,
  unit: stream === 'EMB' ? 'uvc' : 'kg',
  quantity,
});
const submit = (token: string, body: unknown) =>
  request(t.url)
    .post('/api/v1/declarations')
    .set('authorization', `Bearer ${token}`)
    .send(body as object);

/** Every item of a listing, page after page. */
async function all(path: string, limit = 2): Promise<Array<Record<string, unknown>>> {
  const out: Array<Record<string, unknown>> = [];
  let cursor: string | null = null;
  for (let pages = 0; pages < 100; pages++) {
    const sep = path.includes('?') ? '&' : '?';
    const res: request.Response = await get(`${path}${sep}limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`);
    expect(res.status).toBe(200);
    out.push(...res.body.data);
    cursor = res.body.next_cursor;
    expect(res.body.has_more).toBe(cursor !== null);
    if (!cursor) break;
  }
  return out;
}

describe('GET /api/v1/admin/clients', () => {
  it('finds clients newest first, by text, confirmation, plan and stream, page by page', async () => {
    const tag = `find${Date.now().toString(36)}`;
    const a = await createClient(t, { client_id: `${tag}-a`, company: `Alpha ${tag} SARL`, plan: 'business', streams: ['EMB'] });
    const b = await createClient(t, {
      client_id: `${tag}-b`,
      company: 'Beta SAS',
      email: `contact@${tag}.fr`,
      plan: 'business',
      streams: ['EMB', 'EPRO'],
    });
    const c = await createClient(
      t,
      { client_id: `${tag}-c`, company: `Gamma ${tag}`, plan: 'business', streams: ['EMB'] },
      { confirm: false },
    );

    const found = await all(`/api/v1/admin/clients?q=${tag.toUpperCase()}`);
    expect(found.map((x) => x.client_id)).toEqual([c.clientId, b.clientId, a.clientId]);
    expect(found[0]).toMatchObject({ confirmed_at: null, pending: { company: `Gamma ${tag}` } });

    expect((await all(`/api/v1/admin/clients?q=${tag}&confirmed=true`)).map((x) => x.client_id)).toEqual([b.clientId, a.clientId]);
    expect((await all(`/api/v1/admin/clients?q=${tag}&confirmed=false`)).map((x) => x.client_id)).toEqual([c.clientId]);
    expect((await all(`/api/v1/admin/clients?q=${tag}&stream=EPRO`)).map((x) => x.client_id)).toEqual([b.clientId]);
    expect((await all(`/api/v1/admin/clients?q=${tag}&plan=starter`)).map((x) => x.client_id)).toEqual([]);
    // LIKE wildcards in q are plain text.
    expect(await all(`/api/v1/admin/clients?q=${encodeURIComponent('%')}`)).toEqual([]);

    const everyone = await all('/api/v1/admin/clients', 3);
    const ids = everyone.map((x) => x.client_id);
    expect(new Set(ids).size).toBe(ids.length);
    const { rows } = await t.pool.query('SELECT client_id FROM clients ORDER BY created_at DESC, client_id DESC');
    expect(ids).toEqual(rows.map((r) => r.client_id));
  });

  it('refuses bad filters (422) and a cursor of other filters (400)', async () => {
    for (const query of ['confirmed=yes', 'q=', 'plan=a%20b', 'limit=101', 'sort=name']) {
      expect({ query, status: (await get(`/api/v1/admin/clients?${query}`)).status }).toEqual({ query, status: 422 });
    }
    await createClient(t);
    await createClient(t);
    const first = await get('/api/v1/admin/clients?limit=1');
    expect((await get(`/api/v1/admin/clients?limit=1&confirmed=true&cursor=${first.body.next_cursor}`)).status).toBe(400);
    expect((await get(`/api/v1/admin/clients?cursor=garbage`)).status).toBe(400);
  });
});

describe('GET /api/v1/admin/declarations', () => {
  it("lists every client's declarations with filters, and reads any one of them", async () => {
    const x = await createClientWithToken(t, { plan: 'business', streams: ['EMB', 'CHR'] });
    const y = await createClientWithToken(t);
    // The record as stored: the submission's answer without its warnings, which are no part of it.
    const { warnings: _warnings, ...x1 } = (await submit(x.token, { period: '2026-S1', lines: [line(1), line(2.5, 'CHR', 'Bois')] })).body;
    const y1 = (await submit(y.token, { period: '2026-S1', lines: [line(3)] })).body;
    const x2 = (await submit(x.token, { period: '2026-S1', lines: [line(4)] })).body;
    const y2 = (await submit(y.token, { period: '2026-S2', lines: [line(5)] })).body;
    const mine = (items: Array<Record<string, unknown>>) =>
      items.map((d) => d.id).filter((id) => [x1.id, y1.id, x2.id, y2.id].includes(id));

    expect(mine(await all('/api/v1/admin/declarations'))).toEqual([y2.id, x2.id, y1.id, x1.id]);
    expect(mine(await all('/api/v1/admin/declarations?period=2026-S1'))).toEqual([x2.id, y1.id, x1.id]);
    expect(mine(await all('/api/v1/admin/declarations?period=2026-S1&status=current'))).toEqual([x2.id, y1.id]);
    expect(mine(await all('/api/v1/admin/declarations?status=superseded'))).toEqual([x1.id]);
    expect(await all(`/api/v1/admin/declarations?client_id=${x.clientId}`)).toEqual([
      expect.objectContaining({ id: x2.id, client_id: x.clientId, line_count: 1, totals: [] }),
      expect.objectContaining({ id: x1.id, status: 'superseded', line_count: 2 }),
    ]);
    expect(mine(await all('/api/v1/admin/declarations?stream=CHR'))).toEqual([x1.id]);
    const from = encodeURIComponent(y1.submitted_at);
    const to = encodeURIComponent(y2.submitted_at);
    expect(mine(await all(`/api/v1/admin/declarations?submitted_from=${from}&submitted_to=${to}`))).toEqual([x2.id, y1.id]);

    const one = await get(`/api/v1/admin/declarations/${x1.id}`);
    expect(one.status).toBe(200);
    expect(one.body).toEqual(x1.status === 'current' ? { ...x1, status: 'superseded' } : x1);
    expect((await get('/api/v1/admin/declarations/00000000-0000-4000-8000-000000000000')).status).toBe(404);
    expect((await get('/api/v1/admin/declarations/nope')).status).toBe(404);
  });

  it('refuses a crafted cursor whose timestamp PostgreSQL would refuse (30 February): 400, not 500', async () => {
    // A real cursor (the test above stored declarations), its timestamp changed to a day that does not exist.
    const page = await get('/api/v1/admin/declarations?limit=1');
    const issued = JSON.parse(Buffer.from(page.body.next_cursor as string, 'base64url').toString('utf8')) as Record<string, unknown>;
    const cursor = Buffer.from(JSON.stringify({ ...issued, t: '2026-02-30T08:00:00.123456Z' })).toString('base64url');
    const res = await get(`/api/v1/admin/declarations?limit=1&cursor=${cursor}`);
    expect({ status: res.status, code: res.body.code }).toEqual({ status: 400, code: 'invalid_cursor' });
  });

  it('refuses bad filters (422)', async () => {
    for (const query of ['period=2024-S3', 'status=all', 'client_id=X', 'submitted_from=2024-01-01', 'stream=a%20b', 'offset=1']) {
      expect({ query, status: (await get(`/api/v1/admin/declarations?${query}`)).status }).toEqual({ query, status: 422 });
    }
  });
});
