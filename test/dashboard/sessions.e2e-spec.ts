/**
 * Ending dashboard sessions: the operator lists and ends a client's
 * sessions, a new confirmed e-mail address signs everyone out, the signed-in person can sign out
 * everywhere, and forged session cookies count as failed authentications of their address.
 */
import request from 'supertest';
import { DashboardClient, signedIn, signInLink } from '../support/dashboard-browser.js';
import { createClient, createClientWithToken } from '../support/factories.js';
import { withTimeLeftInWindow } from '../support/rate-window.js';
import { ADMIN_TOKEN, startTestApp, type TestApp } from '../support/test-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
}, 60_000);
afterAll(async () => {
  await t?.close();
});

const admin = () => ({ authorization: `Bearer ${ADMIN_TOKEN}` });
const sessionsOf = (clientId: string) => `/api/v1/admin/clients/${clientId}/sessions`;
const auditOf = async (clientId: string, action = 'session.ended_all') =>
  (await request(t.url).get(`/api/v1/admin/audit?client_id=${clientId}&action=${action}`).set(admin())).body.data as Array<
    Record<string, unknown>
  >;
const live = async (browser: DashboardClient) => (await browser.get('/dashboard')).status === 200;

describe('the operator: GET and DELETE /api/v1/admin/clients/{client_id}/sessions', () => {
  it('lists the live sessions (never a secret), newest first; ended and idle ones are not listed', async () => {
    const { clientId } = await createClient(t);
    const first = await signedIn(t, clientId);
    const second = await signedIn(t, clientId);
    const idle = await signedIn(t, clientId);
    await t.pool.query(
      `UPDATE dashboard_sessions SET last_seen_at = now() - interval '31 minutes' WHERE id = (SELECT id FROM dashboard_sessions WHERE client_id = $1 ORDER BY created_at DESC LIMIT 1)`,
      [clientId],
    );
    const res = await request(t.url).get(sessionsOf(clientId)).set(admin());
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toHaveLength(2);
    for (const session of res.body) {
      expect(Object.keys(session).sort()).toEqual(['created_at', 'expires_at', 'id', 'idle_expires_at', 'last_seen_at']);
      expect(Date.parse(session.idle_expires_at) - Date.parse(session.last_seen_at)).toBe(30 * 60_000);
      expect(Date.parse(session.expires_at) - Date.parse(session.created_at)).toBeGreaterThan(11.9 * 3_600_000);
    }
    expect(Date.parse(res.body[0].created_at)).toBeGreaterThanOrEqual(Date.parse(res.body[1].created_at));
    const body = JSON.stringify(res.body);
    for (const browser of [first, second, idle]) expect(body).not.toContain(browser.cookies.get('epr_session')!);
  });

  it('DELETE ends every live session of the client at once (204), audited with how many; nobody else’s', async () => {
    const { clientId } = await createClient(t);
    const { clientId: other } = await createClient(t);
    const browsers = [await signedIn(t, clientId), await signedIn(t, clientId)];
    const bystander = await signedIn(t, other);
    const res = await request(t.url)
      .delete(sessionsOf(clientId))
      .set({ ...admin(), 'x-request-id': 'end-sessions-1' });
    expect(res.status).toBe(204);
    for (const browser of browsers) expect(await live(browser)).toBe(false);
    expect(await live(bystander)).toBe(true);
    expect((await request(t.url).get(sessionsOf(clientId)).set(admin())).body).toEqual([]);
    expect(await auditOf(clientId)).toEqual([
      expect.objectContaining({
        actor: { type: 'admin', operator_token_id: null, name: 'ADMIN_TOKEN' },
        target: { type: 'client', id: clientId },
        changes: { reason: 'operator', sessions: 2, links_voided: 0 },
        request_id: 'end-sessions-1',
      }),
    ]);
    // Nothing left to end: 204, nothing recorded.
    expect((await request(t.url).delete(sessionsOf(clientId)).set(admin())).status).toBe(204);
    expect(await auditOf(clientId)).toHaveLength(1);
    // The client signs in again as before.
    expect(await live(await signedIn(t, clientId))).toBe(true);
  });

  it('404 for an unknown client (nothing recorded); 401 without the operator credential, 403 with a client token', async () => {
    const before = (await t.pool.query('SELECT count(*)::int AS n FROM audit_events')).rows[0].n;
    for (const method of ['get', 'delete'] as const) {
      const res = await request(t.url)[method](sessionsOf('nobody-here')).set(admin());
      expect([method, res.status, res.body.code]).toEqual([method, 404, 'not_found']);
      expect((await request(t.url)[method](sessionsOf('Not A Client!')).set(admin())).status).toBe(404);
    }
    expect((await t.pool.query('SELECT count(*)::int AS n FROM audit_events')).rows[0].n).toBe(before);
    const { clientId, token } = await createClientWithToken(t);
    expect((await request(t.url).get(sessionsOf(clientId))).status).toBe(401);
    expect((await request(t.url).delete(sessionsOf(clientId)).set('authorization', `Bearer ${token}`)).status).toBe(403);
  });

  it('is in the OpenAPI document, with its answers', async () => {
    const doc = (await request(t.url).get('/docs/openapi.json')).body;
    const path = doc.paths['/api/v1/admin/clients/{client_id}/sessions'];
    expect(path.get).toMatchObject({ operationId: 'listSessions', tags: ['admin'], security: [{ admin: [] }] });
    expect(path.delete).toMatchObject({ operationId: 'endSessions', tags: ['admin'], security: [{ admin: [] }] });
    expect(Object.keys(path.get.responses)).toEqual(expect.arrayContaining(['200', '401', '403', '404']));
    expect(Object.keys(path.delete.responses)).toEqual(expect.arrayContaining(['204', '401', '403', '404']));
    expect(path.delete.description).toContain('session.ended_all');
  });
});

describe('a new confirmed e-mail address', () => {
  it('ends the client’s sessions, and voids the links mailed to the old address, in the confirmation’s transaction', async () => {
    const { clientId } = await createClient(t);
    const browser = await signedIn(t, clientId);
    // A link mailed to the old address, still unused (as the e-mail form makes it).
    await t.pool.query(
      `INSERT INTO sign_in_links (client_id, token_hash, issued_via, expires_at) VALUES ($1, md5('mailed') || md5('link'), 'email', now() + interval '10 minutes')`,
      [clientId],
    );
    expect(
      (
        await request(t.url)
          .patch(`/api/v1/admin/clients/${clientId}`)
          .set(admin())
          .send({ email: `new.${Date.now()}@example.fr` })
      ).status,
    ).toBe(200);
    // A pending change alone changes nothing.
    expect(await live(browser)).toBe(true);
    expect((await request(t.url).post(`/api/v1/admin/clients/${clientId}/confirm`).set(admin()).send({})).status).toBe(200);
    expect(await live(browser)).toBe(false);
    const { rows } = await t.pool.query(
      `SELECT count(*)::int AS n FROM sign_in_links WHERE client_id = $1 AND issued_via = 'email' AND expires_at > now()`,
      [clientId],
    );
    expect(rows[0].n).toBe(0);
    expect(await auditOf(clientId)).toEqual([
      expect.objectContaining({ changes: { reason: 'email_changed', sessions: 1, links_voided: 1 } }),
    ]);
    // The operator's links still work.
    expect(await live(await signedIn(t, clientId))).toBe(true);
  });

  it('a confirmation that leaves the address as it was, or gives a first one, ends no session', async () => {
    const { clientId } = await createClient(t);
    const browser = await signedIn(t, clientId);
    await request(t.url).patch(`/api/v1/admin/clients/${clientId}`).set(admin()).send({ company: 'Renamed SAS' });
    expect((await request(t.url).post(`/api/v1/admin/clients/${clientId}/confirm`).set(admin()).send({})).status).toBe(200);
    expect(await live(browser)).toBe(true);
    // Signed in before onboarding ends (the operator's link works for a pending client): the first confirmed address is no change.
    const { clientId: pending } = await createClient(t, {}, { confirm: false });
    const early = await signedIn(t, pending);
    expect((await request(t.url).post(`/api/v1/admin/clients/${pending}/confirm`).set(admin()).send({})).status).toBe(200);
    expect(await live(early)).toBe(true);
    expect([...(await auditOf(clientId)), ...(await auditOf(pending))]).toEqual([]);
  });

  it('if ending the sessions fails, the confirmation is undone too', async () => {
    const { clientId } = await createClient(t);
    const browser = await signedIn(t, clientId);
    await request(t.url)
      .patch(`/api/v1/admin/clients/${clientId}`)
      .set(admin())
      .send({ email: `other.${Date.now()}@example.fr` });
    await t.pool.query(
      `CREATE FUNCTION fail_ended_all() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN IF NEW.action = 'session.ended_all' THEN RAISE 'refused'; END IF; RETURN NEW; END $$`,
    );
    await t.pool.query(`CREATE TRIGGER fail_ended_all AFTER INSERT ON audit_events FOR EACH ROW EXECUTE FUNCTION fail_ended_all()`);
    try {
      const before = (await request(t.url).get(`/api/v1/admin/clients/${clientId}`).set(admin())).body.confirmed.email;
      // (fetch: the 500 is no documented answer, and supertest's answers are checked against the document)
      expect((await fetch(`${t.url}/api/v1/admin/clients/${clientId}/confirm`, { method: 'POST', headers: admin() })).status).toBe(500);
      expect((await request(t.url).get(`/api/v1/admin/clients/${clientId}`).set(admin())).body.confirmed.email).toBe(before);
      expect(await live(browser)).toBe(true);
    } finally {
      await t.pool.query('DROP TRIGGER fail_ended_all ON audit_events');
      await t.pool.query('DROP FUNCTION fail_ended_all()');
    }
  });
});

describe('"Sign out everywhere" in the dashboard', () => {
  it('ends every session of the client, this one included (CSRF-checked); the overview says how many there are', async () => {
    const { clientId } = await createClient(t);
    const here = await signedIn(t, clientId);
    const there = await signedIn(t, clientId);
    const bystander = await signedIn(t, (await createClient(t)).clientId);
    const overview = await here.get('/dashboard');
    expect(overview.html).toContain('2 browsers are signed in');
    expect(overview.html).toContain('action="/dashboard/sign-out/everywhere"');
    expect((await here.post('/dashboard/sign-out/everywhere', {}, { csrf: false })).status).toBe(403);
    expect(await live(there)).toBe(true);
    const res = await here.post('/dashboard/sign-out/everywhere', {});
    expect([res.status, res.location]).toEqual([303, '/dashboard/sign-in?signed-out=everywhere']);
    expect(here.cookies.get('epr_session')).toBeUndefined();
    expect(await live(there)).toBe(false);
    expect(await live(bystander)).toBe(true);
    expect((await here.get('/dashboard/sign-in?signed-out=everywhere')).html).toContain('signed out on every browser');
    expect(await auditOf(clientId)).toEqual([
      expect.objectContaining({
        actor: { type: 'client', operator_token_id: null, name: 'dashboard' },
        changes: { reason: 'sign_out_everywhere', sessions: 2, links_voided: 0 },
      }),
    ]);
    // Without a session, the form is one more page that sends to sign in.
    expect((await new DashboardClient(t.url).post('/dashboard/sign-out/everywhere', {}, { csrf: 'x' })).status).toBe(303);
  });
});

describe('forged session cookies', () => {
  let limited: TestApp;
  beforeAll(async () => {
    limited = await startTestApp({ env: { RATE_LIMIT_AUTH_FAILURES_PER_MINUTE: '3' } });
  }, 60_000);
  afterAll(async () => {
    await limited?.close();
  });

  it('count as failed authentications of their address: past the limit even a good cookie gets 429, unread', async () => {
    // Failures count in minute windows on the clock: start with time left in one (these requests take seconds at most).
    await withTimeLeftInWindow(20_000);
    const { clientId } = await createClient(limited);
    const good = new DashboardClient(limited.url);
    expect((await good.signIn((await signInLink(limited, clientId)).url)).status).toBe(303);
    const forged = new DashboardClient(limited.url);
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      forged.cookies.set('epr_session', `eprs_${'A'.repeat(31)}${i}_000000`);
      statuses.push((await forged.get('/dashboard')).status);
    }
    expect(statuses.slice(0, 3)).toEqual([303, 303, 303]);
    expect(statuses.slice(3)).toEqual([429, 429]);
    const refused = await good.get('/dashboard');
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(refused.headers.get('content-type')).toContain('text/html');
    // No cookie at all is no failure: the sign-in pages stay open to the address.
    expect((await new DashboardClient(limited.url).get('/dashboard')).status).toBe(303);
    expect((await new DashboardClient(limited.url).get('/dashboard/sign-in')).status).toBe(200);
  });
});

describe('a page view is a read', () => {
  // Every UPDATE of a row writes a new version of it with a new xmin, even when it sets the same values.
  const version = async (clientId: string) =>
    (await t.pool.query(`SELECT xmin::text AS v, last_seen_at FROM dashboard_sessions WHERE client_id = $1`, [clientId])).rows[0] as {
      v: string;
      last_seen_at: Date;
    };

  it('writes nothing to the session within the minute it was last marked seen, and marks it once past that minute', async () => {
    const { clientId } = await createClient(t);
    const browser = await signedIn(t, clientId);
    await t.pool.query(`UPDATE dashboard_sessions SET last_seen_at = now() - interval '50 seconds' WHERE client_id = $1`, [clientId]);
    const before = await version(clientId);
    for (const path of ['/dashboard', '/dashboard/declarations', '/dashboard/tokens', '/dashboard'])
      expect((await browser.get(path)).status).toBe(200);
    expect(await version(clientId)).toEqual(before);

    // Past the minute (SESSION_SEEN_RESOLUTION_MS), the next view slides the idle timeout: one write, then reads again.
    await t.pool.query(`UPDATE dashboard_sessions SET last_seen_at = now() - interval '61 seconds' WHERE client_id = $1`, [clientId]);
    const stale = await version(clientId);
    expect((await browser.get('/dashboard')).status).toBe(200);
    const marked = await version(clientId);
    expect(marked.v).not.toBe(stale.v);
    expect(Date.now() - marked.last_seen_at.getTime()).toBeLessThan(30_000);
    expect((await browser.get('/dashboard/declarations')).status).toBe(200);
    expect(await version(clientId)).toEqual(marked);
  });
});
