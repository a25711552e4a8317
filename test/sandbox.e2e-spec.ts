import request from 'supertest';
import { withinOneWindow } from './support/rate-window.js';
import { createClient, createClientWithToken } from './support/factories.js';
import { ADMIN_TOKEN, startTestApp, type TestApp } from './support/test-app.js';

// A sandbox per client. Test tokens (eprt_…) reach only the client's test data; the
// operator, and the client's live tokens, never see it (and the other way round).

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t?.close();
});

const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const GLASS = (kg: number, uvc: number) => [
  { stream: 'EMB', material: 'glass', unit: 'kg', quantity: kg },
  { stream: 'EMB', material: 'glass', unit: 'uvc', quantity: uvc },
];

async function issue(clientId: string, body?: Record<string, unknown>) {
  const req = request(t.url).post(`/api/v1/admin/clients/${clientId}/tokens`).set(admin);
  return body === undefined ? req : req.send(body);
}

/** A confirmed client with a live and a test token. */
async function clientWithBothTokens() {
  const { clientId, token: live } = await createClientWithToken(t);
  const issued = await issue(clientId, { mode: 'test', name: 'ERP recette' });
  expect(issued.status).toBe(201);
  return { clientId, live, test: issued.body.token as string };
}

const submit = (token: string, body: unknown, headers: Record<string, string> = {}) =>
  request(t.url)
    .post('/api/v1/declarations')
    .set(bearer(token))
    .set(headers)
    .send(body as object);

describe('test tokens', () => {
  it('are issued with "mode": "test" and the eprt_ prefix; no body at all issues a live token', async () => {
    const { clientId } = await createClient(t);
    const test = await issue(clientId, { mode: 'test' });
    expect(test.status).toBe(201);
    expect(test.body.token).toMatch(/^eprt_[0-9A-Za-z]{32}_[0-9A-Za-z]{6}$/);
    expect(test.body).toMatchObject({ mode: 'test', prefix: expect.stringMatching(/^eprt_/) });

    const bare = await issue(clientId);
    expect(bare.status).toBe(201);
    expect(bare.body.token).toMatch(/^eprc_/);
    expect(bare.body.mode).toBe('live');

    const listed = await request(t.url).get(`/api/v1/admin/clients/${clientId}/tokens`).set(admin);
    expect(listed.body.map((tok: { mode: string }) => tok.mode).sort()).toEqual(['live', 'test']);

    const wrong = await issue(clientId, { mode: 'sandbox' });
    expect(wrong.status).toBe(422);
    expect(wrong.body.errors).toEqual([expect.objectContaining({ pointer: '/mode', code: 'invalid_mode' })]);
  });

  it('the prefix is part of the secret: a test token turned into eprc_ (checksum fixed) is no token', async () => {
    const { test } = await clientWithBothTokens();
    const { checksumOf } = await import('../src/common/token-format.js');
    const body = `eprc_${test.split('_')[1]}`;
    const forged = `${body}_${checksumOf(body)}`;
    const res = await request(t.url).get('/api/v1/me').set(bearer(forged));
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toContain('error="invalid_token"');
  });

  it('a malformed or mistyped test token is a 401 like a live one, checked before any database access', async () => {
    const { test } = await clientWithBothTokens();
    for (const bad of ['eprt_short', `${test.slice(0, -1)}x`]) {
      const res = await request(t.url).get('/api/v1/me').set(bearer(bad));
      expect({ bad, status: res.status, code: res.body.code }).toEqual({ bad, status: 401, code: 'invalid_token' });
    }
  });
});

describe('isolation', () => {
  it('a test token sees only test data, a live token only live data, both ways', async () => {
    const { live, test } = await clientWithBothTokens();
    const liveOne = await submit(live, { period: '2025-S1', lines: GLASS(100, 400) });
    expect(liveOne.status).toBe(201);
    expect(liveOne.body).toMatchObject({ mode: 'live', revision: 1, receipt: expect.stringMatching(/^EPR-2025S1-R1-/) });

    // Same period in the sandbox: its own revision 1, recognisable receipt.
    const testOne = await submit(test, { period: '2025-S1', lines: GLASS(5, 20) });
    expect(testOne.status).toBe(201);
    expect(testOne.body).toMatchObject({
      mode: 'test',
      revision: 1,
      supersedes: null,
      receipt: expect.stringMatching(/^TEST-EPR-2025S1-R1-[0-9A-Z]{8}$/),
    });
    // Test data persists between calls: a second submission is revision 2 of the sandbox's period.
    const testTwo = await submit(test, { period: '2025-S1', lines: GLASS(6, 24) });
    expect(testTwo.body).toMatchObject({ mode: 'test', revision: 2, supersedes: testOne.body.id });

    const liveList = await request(t.url).get('/api/v1/declarations').set(bearer(live));
    expect(liveList.body.data.map((d: { id: string }) => d.id)).toEqual([liveOne.body.id]);
    const testList = await request(t.url).get('/api/v1/declarations').set(bearer(test));
    expect(testList.body.data.map((d: { id: string }) => d.id)).toEqual([testTwo.body.id, testOne.body.id]);
    expect(testList.body.data.every((d: { mode: string }) => d.mode === 'test')).toBe(true);

    expect((await request(t.url).get(`/api/v1/declarations/${testOne.body.id}`).set(bearer(live))).status).toBe(404);
    expect((await request(t.url).get(`/api/v1/declarations/${liveOne.body.id}`).set(bearer(test))).status).toBe(404);
    expect((await request(t.url).get(`/api/v1/declarations/${testOne.body.id}`).set(bearer(test))).status).toBe(200);

    // The live revision was not superseded by the sandbox's.
    const liveAgain = await request(t.url).get(`/api/v1/declarations/${liveOne.body.id}`).set(bearer(live));
    expect(liveAgain.body).toMatchObject({ status: 'current', revision: 1 });

    // Obligations: each mode's own declarations.
    const periodOf = async (token: string) => {
      const res = await request(t.url).get('/api/v1/me/obligations').set(bearer(token));
      return res.body.streams[0].periods.find((p: { period: string }) => p.period === '2025-S1');
    };
    expect(await periodOf(live)).toMatchObject({ status: 'declared', declaration: { id: liveOne.body.id } });
    expect(await periodOf(test)).toMatchObject({ status: 'declared', declaration: { id: testTwo.body.id } });
  });

  it('a sandbox with no data: obligations show nothing declared although live declarations exist', async () => {
    const { clientId, live, test } = await clientWithBothTokens();
    // Liable from 2025-S1, so that 2025-S2 is a half-year it owes.
    expect(
      (await request(t.url).put(`/api/v1/admin/clients/${clientId}/streams/EMB`).set(admin).send({ liable_from: '2025-S1' })).status,
    ).toBe(200);
    expect((await submit(live, { period: '2025-S2', lines: GLASS(1, 4) })).status).toBe(201);
    const periodOf = async (token: string) =>
      (await request(t.url).get('/api/v1/me/obligations').set(bearer(token))).body.streams[0].periods.find(
        (p: { period: string }) => p.period === '2025-S2',
      );
    expect(await periodOf(live)).toMatchObject({ status: 'declared' });
    // Ended, its deadline (28 February 2026) passed, and not declared in the sandbox.
    expect(await periodOf(test)).toMatchObject({ status: 'overdue', declaration: null });
  });

  it('Idempotency-Keys are per mode: the same key in the sandbox does not replay the live answer', async () => {
    const { live, test } = await clientWithBothTokens();
    const key = { 'idempotency-key': 'same-key-both-modes' };
    const first = await submit(live, { period: '2024-S2', lines: GLASS(3, 9) }, key);
    expect(first.status).toBe(201);
    const other = await submit(test, { period: '2024-S2', lines: GLASS(3, 9) }, key);
    expect(other.status).toBe(201);
    expect(other.headers['idempotent-replayed']).toBeUndefined();
    expect(other.body.id).not.toBe(first.body.id);
    const replay = await submit(test, { period: '2024-S2', lines: GLASS(3, 9) }, key);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body.id).toBe(other.body.id);
  });

  it('the operator never sees test declarations: listing, record, export, summary', async () => {
    const { clientId, test } = await clientWithBothTokens();
    // Liable from 2023-S1, so that the summary of that half-year counts the client as missing.
    const liable = await request(t.url).put(`/api/v1/admin/clients/${clientId}/streams/EMB`).set(admin).send({ liable_from: '2023-S1' });
    expect(liable.status).toBe(200);
    const testOne = await submit(test, { period: '2023-S1', lines: GLASS(7, 28) });
    expect(testOne.status).toBe(201);

    const listing = await request(t.url).get(`/api/v1/admin/declarations?client_id=${clientId}`).set(admin);
    expect(listing.status).toBe(200);
    expect(listing.body.data).toEqual([]);
    const all = await request(t.url).get('/api/v1/admin/declarations?limit=100').set(admin);
    expect(all.body.data.some((d: { mode: string }) => d.mode === 'test')).toBe(false);
    expect((await request(t.url).get(`/api/v1/admin/declarations/${testOne.body.id}`).set(admin)).status).toBe(404);

    for (const path of ['/api/v1/admin/periods/2023-S1/export', '/api/v1/admin/periods/2023-S1/export.csv']) {
      const res = await request(t.url).get(path).set(admin).buffer(true);
      expect(res.status).toBe(200);
      expect(res.text).not.toContain(clientId);
      expect(res.text).not.toContain('TEST-EPR');
    }
    // The annual filing names the receipts it adds up: never a test one.
    for (const accept of ['application/json', 'text/csv']) {
      const res = await request(t.url).get('/api/v1/admin/years/2023/export').set(admin).set('accept', accept).buffer(true);
      expect(res.status).toBe(200);
      expect(res.text).not.toContain('TEST-EPR');
    }
    const summary = await request(t.url).get('/api/v1/admin/periods/2023-S1/summary').set(admin);
    expect(summary.status).toBe(200);
    expect(summary.body.clients.declared).toBe(0);
    expect(summary.body.totals).toEqual([]);
    expect(summary.body.missing_clients.map((c: { client_id: string }) => c.client_id)).toContain(clientId);
  });
});

describe('DELETE /api/v1/test-data', () => {
  it('wipes the sandbox (204, audited), leaves live data alone', async () => {
    const { clientId, live, test } = await clientWithBothTokens();
    const liveOne = await submit(live, { period: '2025-S1', lines: GLASS(10, 40) });
    await submit(test, { period: '2025-S1', lines: GLASS(1, 4) }, { 'idempotency-key': 'wipe-me' });
    await submit(test, { period: '2025-S2', lines: GLASS(2, 8) });

    const wiped = await request(t.url).delete('/api/v1/test-data').set(bearer(test)).set('x-request-id', 'wipe-request-1');
    expect(wiped.status).toBe(204);
    expect((await request(t.url).get('/api/v1/declarations').set(bearer(test))).body.data).toEqual([]);
    expect((await request(t.url).get('/api/v1/declarations').set(bearer(live))).body.data.map((d: { id: string }) => d.id)).toEqual([
      liveOne.body.id,
    ]);
    const { rows } = await t.pool.query(`SELECT mode, count(*)::int AS n FROM idempotency_keys WHERE client_id = $1 GROUP BY mode`, [
      clientId,
    ]);
    expect(rows).toEqual([]);

    // A journey starts again from revision 1, and the old key is free.
    const again = await submit(test, { period: '2025-S1', lines: GLASS(9, 9) }, { 'idempotency-key': 'wipe-me' });
    expect(again.status).toBe(201);
    expect(again.body.revision).toBe(1);
    expect(again.headers['idempotent-replayed']).toBeUndefined();

    const audit = await request(t.url).get(`/api/v1/admin/audit?client_id=${clientId}&action=test_data.wiped`).set(admin);
    expect(audit.status).toBe(200);
    expect(audit.body.data).toHaveLength(1);
    expect(audit.body.data[0]).toMatchObject({ action: 'test_data.wiped', changes: { declarations: 2, idempotency_keys: 1 } });
  });

  it('a live token gets a 403 problem and nothing is deleted', async () => {
    const { live, test } = await clientWithBothTokens();
    const liveOne = await submit(live, { period: '2025-S1', lines: GLASS(10, 40) });
    const testOne = await submit(test, { period: '2025-S1', lines: GLASS(1, 4) });
    const res = await request(t.url).delete('/api/v1/test-data').set(bearer(live));
    expect(res.status).toBe(403);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body).toMatchObject({ code: 'insufficient_scope', detail: expect.stringContaining('test token (eprt_') });
    expect((await request(t.url).get(`/api/v1/declarations/${liveOne.body.id}`).set(bearer(live))).status).toBe(200);
    expect((await request(t.url).get(`/api/v1/declarations/${testOne.body.id}`).set(bearer(test))).status).toBe(200);
  });

  it('another client’s test data is untouched', async () => {
    const a = await clientWithBothTokens();
    const b = await clientWithBothTokens();
    const bOne = await submit(b.test, { period: '2025-S1', lines: GLASS(1, 4) });
    expect((await request(t.url).delete('/api/v1/test-data').set(bearer(a.test))).status).toBe(204);
    expect((await request(t.url).get(`/api/v1/declarations/${bOne.body.id}`).set(bearer(b.test))).status).toBe(200);
  });

  it('needs a token', async () => {
    const res = await request(t.url).delete('/api/v1/test-data');
    expect(res.status).toBe(401);
  });
});

describe('rate limits', () => {
  let limited: TestApp;
  beforeAll(async () => {
    limited = await startTestApp({ env: { RATE_LIMIT_CLIENT_PER_MINUTE: '3' } });
  });
  afterAll(async () => {
    await limited?.close();
  });

  it('test traffic has its own budget: a sandbox used up leaves the live quota whole', async () => {
    await withinOneWindow(async () => {
      const { clientId, token: live } = await createClientWithToken(limited);
      const issued = await request(limited.url).post(`/api/v1/admin/clients/${clientId}/tokens`).set(admin).send({ mode: 'test' });
      const test = issued.body.token as string;
      const me = (token: string) => request(limited.url).get('/api/v1/me/obligations').set(bearer(token));
      for (let i = 1; i <= 3; i++) {
        const res = await me(test);
        expect(res.status).toBe(200);
        expect(res.headers.ratelimit).toMatch(new RegExp(`^"client";r=${3 - i};t=\\d+$`));
      }
      expect((await me(test)).status).toBe(429);
      const liveRes = await me(live);
      expect(liveRes.status).toBe(200);
      expect(liveRes.headers.ratelimit).toMatch(/^"client";r=2;t=\d+$/);
    });
  });
});

describe('the year (GET /api/v1/me/years/{year})', () => {
  it('adds up each mode’s own declarations only', async () => {
    const { live, test } = await clientWithBothTokens();
    expect((await submit(live, { period: '2025-S1', lines: GLASS(100, 400) })).status).toBe(201);
    expect((await submit(test, { period: '2025-S2', lines: GLASS(5, 20) })).status).toBe(201);
    const year = async (token: string) => (await request(t.url).get('/api/v1/me/years/2025').set(bearer(token))).body;
    const liveYear = await year(live);
    expect(liveYear.periods.map((p: { status: string }) => p.status)).toEqual(['declared', 'missing']);
    expect(liveYear.lines.map((l: { unit: string; quantity: string }) => [l.unit, l.quantity])).toEqual([
      ['kg', '100'],
      ['uvc', '400'],
    ]);
    const testYear = await year(test);
    expect(testYear.periods.map((p: { status: string }) => p.status)).toEqual(['missing', 'declared']);
    expect(testYear.lines.map((l: { unit: string; quantity: string }) => [l.unit, l.quantity])).toEqual([
      ['kg', '5'],
      ['uvc', '20'],
    ]);
  });
});

describe('the product catalogue in the sandbox', () => {
  const PRODUCT = (reference: string) => ({
    reference,
    name: 'Confiture 370 g',
    stream: 'EMB',
    valid_from: '2025-S1',
    elements: [
      { material: 'glass', weight_g: 180, per_unit: 1 },
      { material: 'steel', weight_g: 6.5, per_unit: 1 },
    ],
  });
  const post = (token: string, path: string, body: unknown) =>
    request(t.url).post(path).set(bearer(token)).set('content-type', 'application/json').send(JSON.stringify(body));

  it('test products, sales and derived filings live in the sandbox only, and the wipe takes them', async () => {
    const { clientId, live, test } = await clientWithBothTokens();
    expect((await post(live, '/api/v1/products', { products: [PRODUCT('LIVE-1')] })).status).toBe(201);
    // The same reference in the sandbox is another product.
    expect((await post(test, '/api/v1/products', { products: [PRODUCT('LIVE-1'), PRODUCT('TEST-2')] })).status).toBe(201);
    const references = async (token: string) =>
      (await request(t.url).get('/api/v1/products').set(bearer(token))).body.data.map((p: { reference: string }) => p.reference);
    expect(await references(live)).toEqual(['LIVE-1']);
    expect(await references(test)).toEqual(['LIVE-1', 'TEST-2']);
    expect((await request(t.url).get('/api/v1/products/TEST-2').set(bearer(live))).status).toBe(404);

    // A sale of a test-only product is refused with the live token: it is not one of its products.
    expect((await post(live, '/api/v1/sales?period=2025-S2', { sales: [{ reference: 'TEST-2', units: 5 }] })).status).toBe(422);
    expect(
      (
        await post(test, '/api/v1/sales?period=2025-S2', {
          sales: [
            { reference: 'LIVE-1', units: 100 },
            { reference: 'TEST-2', units: 50 },
          ],
        })
      ).status,
    ).toBe(200);
    // Nothing sold in the live catalogue: nothing derived there, nothing to file.
    const livePreview = await request(t.url).get('/api/v1/periods/2025-S2/derived-declaration').set(bearer(live));
    expect(livePreview.status).toBe(200);
    expect(livePreview.body.declaration_lines).toEqual([]);
    expect((await request(t.url).post('/api/v1/periods/2025-S2/derived-declaration').set(bearer(live))).status).toBe(422);

    const filed = await request(t.url).post('/api/v1/periods/2025-S2/derived-declaration').set(bearer(test));
    expect(filed.status).toBe(201);
    expect(filed.body).toMatchObject({ mode: 'test', receipt: expect.stringMatching(/^TEST-EPR-2025S2-R1-/) });
    const glass = filed.body.lines.find((l: { material: string; unit: string }) => l.material === 'glass' && l.unit === 'kg');
    expect(glass.quantity).toBe(27); // 150 units × 180 g
    // The operator never sees the derivation of a test revision.
    expect((await request(t.url).get(`/api/v1/admin/declarations/${filed.body.id}/derivation`).set(admin)).status).toBe(404);
    expect((await request(t.url).get('/api/v1/declarations').set(bearer(live))).body.data).toEqual([]);

    expect((await request(t.url).delete('/api/v1/test-data').set(bearer(test))).status).toBe(204);
    expect(await references(test)).toEqual([]);
    expect(await references(live)).toEqual(['LIVE-1']);
    const { rows } = await t.pool.query(`SELECT changes FROM audit_events WHERE action = 'test_data.wiped' AND client_id = $1`, [clientId]);
    expect(rows[0].changes).toMatchObject({ declarations: 1, products: 2 });
  });
});

describe('migration 1797000000000-sandbox', () => {
  it('goes down (test data with it) and up again', async () => {
    const { DataSource } = await import('typeorm');
    const { Sandbox1797000000000 } = await import('../migrations/1797000000000-sandbox.js');
    const runner = t.app.get(DataSource).createQueryRunner();
    const hasMode = async () => (await runner.getTable('declarations'))!.findColumnByName('mode') !== undefined;
    try {
      await runner.startTransaction();
      const migration = new Sandbox1797000000000();
      await migration.down(runner);
      expect(await hasMode()).toBe(false);
      expect(await runner.query(`SELECT count(*)::int AS n FROM client_tokens WHERE prefix LIKE 'eprt%'`)).toEqual([{ n: 0 }]);
      await migration.up(runner);
      expect(await hasMode()).toBe(true);
    } finally {
      await runner.rollbackTransaction();
      await runner.release();
    }
  });
});
