/**
 * Suspend, reactivate, offboard: access stops or resumes at once, on every
 * replica; records stay readable by the operator and in exports.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import request from 'supertest';
import { AuthenticationCache } from '../../src/auth/tokens/authentication-cache.js';
import { DashboardClient, signedIn, signInLink } from '../support/dashboard-browser.js';
import { createClientWithToken } from '../support/factories.js';
import {
  ADMIN_TOKEN,
  createTestDatabase,
  SERVER_DATABASE_URL,
  startTestApp,
  type TestApp,
  type TestDatabase,
} from '../support/test-app.js';

const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
const declaration = { period: '2025-S2', lines: [{ stream: 'EMB', material: 'Verre', unit: 'uvc', quantity: 7 }] };

async function until(condition: () => Promise<boolean>, ms: number): Promise<number> {
  const started = Date.now();
  while (!(await condition())) {
    if (Date.now() - started > ms) throw new Error(`not within ${ms} ms`);
    await sleep(5);
  }
  return Date.now() - started;
}

describe('suspend, reactivate, offboard', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t?.close();
  });
  const act = (clientId: string, what: string, body: object = {}) =>
    request(t.url).post(`/api/v1/admin/clients/${clientId}/${what}`).set(admin).send(body);
  const me = (token: string) => request(t.url).get('/api/v1/me').set('authorization', `Bearer ${token}`);

  it('a suspended client’s token is refused with 403 account_suspended; the operator still reads everything; reactivation restores the same token', async () => {
    const { clientId, token } = await createClientWithToken(t);
    const filed = await request(t.url).post('/api/v1/declarations').set('authorization', `Bearer ${token}`).send(declaration);
    expect(filed.status).toBe(201);
    expect((await me(token)).status).toBe(200);

    const suspended = await act(clientId, 'suspend', { reason: 'Facture impayée' });
    expect(suspended.status).toBe(200);
    expect(suspended.body).toMatchObject({ client_id: clientId, status: 'suspended' });
    expect(suspended.body.status_changed_at).toEqual(expect.any(String));

    const refused = await me(token);
    expect(refused.status).toBe(403);
    expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(refused.body).toMatchObject({ code: 'account_suspended', status: 403 });
    expect(refused.body.detail).toContain('suspended');
    const post = await request(t.url)
      .post('/api/v1/declarations')
      .set('authorization', `Bearer ${token}`)
      .send({ ...declaration, period: '2025-S1' });
    expect(post.status).toBe(403);
    const { rows } = await t.pool.query('SELECT count(*)::int AS n FROM declarations WHERE client_id = $1', [clientId]);
    expect(rows[0].n).toBe(1);

    // The operator reads the client, its declaration, and the export as before.
    expect((await request(t.url).get(`/api/v1/admin/declarations/${filed.body.id}`).set(admin)).status).toBe(200);
    const exported = await request(t.url).get('/api/v1/admin/periods/2025-S2/export').set(admin);
    expect(exported.body.declarations.map((d: { client_id: string }) => d.client_id)).toContain(clientId);
    expect(await listed('status=suspended')).toContain(clientId);

    // Suspending again changes nothing and records nothing.
    expect((await act(clientId, 'suspend')).status).toBe(200);
    const audit = await request(t.url).get(`/api/v1/admin/audit?client_id=${clientId}&action=client.suspended`).set(admin);
    expect(audit.body.data).toHaveLength(1);
    expect(audit.body.data[0].changes).toEqual({ status: { from: 'active', to: 'suspended' }, reason: 'Facture impayée' });

    const reactivated = await act(clientId, 'reactivate');
    expect(reactivated.status).toBe(200);
    expect(reactivated.body.status).toBe('active');
    expect((await me(token)).status).toBe(200);
    const { rows: tokens } = await t.pool.query(
      'SELECT count(*)::int AS n FROM client_tokens WHERE client_id = $1 AND revoked_at IS NULL',
      [clientId],
    );
    expect(tokens[0].n).toBe(1);
  });

  async function listed(query: string): Promise<string[]> {
    const res = await request(t.url).get(`/api/v1/admin/clients?${query}&limit=100`).set(admin);
    return res.body.data.map((c: { client_id: string }) => c.client_id);
  }

  it('its people see a page that says the account is suspended, in their language; back in once reactivated', async () => {
    const { clientId } = await createClientWithToken(t);
    const browser = await signedIn(t, clientId, 'fr');
    expect((await browser.get('/dashboard')).status).toBe(200);
    expect((await act(clientId, 'suspend')).status).toBe(200);
    const page = await browser.get('/dashboard');
    expect(page.status).toBe(403);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.html).toContain('Votre compte est suspendu');
    browser.cookies.set('lang', 'en');
    const english = await browser.get('/dashboard');
    expect(english.status).toBe(403);
    expect(english.html).toContain('Your account is suspended');
    expect((await act(clientId, 'reactivate')).status).toBe(200);
    expect((await browser.get('/dashboard')).status).toBe(200);
  });

  it('offboarding ends access for good and keeps the records', async () => {
    const { clientId, token } = await createClientWithToken(t);
    const filed = await request(t.url).post('/api/v1/declarations').set('authorization', `Bearer ${token}`).send(declaration);
    const browser = await signedIn(t, clientId);
    const link = await signInLink(t, clientId);
    const off = await act(clientId, 'offboard', { reason: 'Fin de contrat' });
    expect(off.status).toBe(200);
    expect(off.body.status).toBe('offboarded');

    const refused = await me(token);
    expect(refused.status).toBe(401);
    expect(refused.body.code).toBe('invalid_token');
    expect(refused.headers['www-authenticate']).toContain('closed');
    // The session ended: sent to sign in; the unused link no longer signs anyone in.
    expect((await browser.get('/dashboard')).status).toBe(303);
    const late = await new DashboardClient(t.url).signIn(link.url);
    expect(late.status).not.toBe(303);
    const { rows: links } = await t.pool.query('SELECT used_at FROM sign_in_links WHERE id = $1', [link.id]);
    expect(links[0].used_at).toBeNull();

    for (const what of ['suspend', 'reactivate']) {
      const conflict = await act(clientId, what);
      expect(conflict.status).toBe(409);
      expect(conflict.body.code).toBe('conflict');
    }
    expect((await act(clientId, 'offboard')).status).toBe(200);
    // Records kept.
    expect((await request(t.url).get(`/api/v1/admin/declarations/${filed.body.id}`).set(admin)).status).toBe(200);
    expect((await request(t.url).get(`/api/v1/admin/clients/${clientId}`).set(admin)).body.status).toBe('offboarded');
    const audit = await request(t.url).get(`/api/v1/admin/audit?client_id=${clientId}`).set(admin);
    expect(audit.body.data.map((e: { action: string }) => e.action)).toEqual(
      expect.arrayContaining(['client.offboarded', 'session.ended_all']),
    );
  });

  it('404 for an unknown client; 422 for a reason too long', async () => {
    expect((await act('no-such-client', 'suspend')).status).toBe(404);
    const { clientId } = await createClientWithToken(t);
    const long = await act(clientId, 'suspend', { reason: 'x'.repeat(501) });
    expect(long.status).toBe(422);
    expect(long.body.errors[0].pointer).toBe('/reason');
    expect((await request(t.url).get(`/api/v1/admin/clients/${clientId}`).set(admin)).body.status).toBe('active');
  });
});

(SERVER_DATABASE_URL ? describe : describe.skip)('suspension across replicas (kept authentications)', () => {
  let db: TestDatabase;
  let a: TestApp;
  let b: TestApp;
  beforeAll(async () => {
    db = await createTestDatabase();
    a = await startTestApp({ database: db });
    b = await startTestApp({ database: db, env: { MIGRATIONS_RUN: 'false' } });
    for (const app of [a, b]) await until(async () => app.app.get(AuthenticationCache).enabled, 5_000);
  });
  afterAll(async () => {
    await b?.close({ keepDatabase: true });
    await a?.close({ keepDatabase: true });
    await db?.close();
  });

  it('a suspension through one replica is refused by the other as soon as PostgreSQL tells it; a reactivation too', async () => {
    const { clientId, token } = await createClientWithToken(a);
    const onB = async () => (await fetch(`${b.url}/api/v1/me`, { headers: { authorization: `Bearer ${token}` } })).status;
    expect(await onB()).toBe(200);
    expect(await onB()).toBe(200);
    const suspended = await fetch(`${a.url}/api/v1/admin/clients/${clientId}/suspend`, { method: 'POST', headers: admin });
    expect(suspended.status).toBe(200);
    // Well within the 10 s an authentication is kept at most: the notification did it.
    await until(async () => (await onB()) === 403, 2_000);
    const reactivated = await fetch(`${a.url}/api/v1/admin/clients/${clientId}/reactivate`, { method: 'POST', headers: admin });
    expect(reactivated.status).toBe(200);
    await until(async () => (await onB()) === 200, 2_000);
    // By hand in the database too.
    await db.pool.query(`UPDATE clients SET status = 'suspended' WHERE client_id = $1`, [clientId]);
    await until(async () => (await onB()) === 403, 2_000);
  });
});
