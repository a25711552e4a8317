/**
 * The dashboard's sign-in, sessions and forms, as a browser speaks to them (cookies, forms,
 * redirects), against the real app on PostgreSQL: sign-in links, session fixation, cookie flags,
 * CSRF, timeouts, sign-out, and one client's session against another client's records.
 */
import request from 'supertest';
import { DashboardClient, csrfOf, signedIn, signInLink } from '../support/dashboard-browser.js';
import { createClient, createClientWithToken } from '../support/factories.js';
import { withinOneWindow } from '../support/rate-window.js';
import { ADMIN_TOKEN, startTestApp, type TestApp } from '../support/test-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
}, 60_000);
afterAll(async () => {
  await t?.close();
});

const sessionCookie = (set: string[]) => set.find((c) => c.startsWith('epr_session='));

describe('sign-in links (operator)', () => {
  it('POST /admin/clients/{id}/sign-in-links: 201, a single-use URL shown once, stored as a hash, audited', async () => {
    const { clientId } = await createClient(t);
    const link = await signInLink(t, clientId);
    expect(link.status).toBe(201);
    expect(link.headers['cache-control']).toBe('no-store');
    expect(Object.keys(link.body).sort()).toEqual(['expires_at', 'id', 'url']);
    expect(link.url).toMatch(new RegExp(`^${t.config.publicBaseUrl}/dashboard/sign-in/link\\?token=eprl_[0-9A-Za-z]{32}_[0-9A-Za-z]{6}$`));
    const secret = new URL(link.url).searchParams.get('token')!;
    // An operator's link is an invitation: 7 days unless asked otherwise.
    const minutes = (Date.parse(link.body.expires_at as string) - Date.now()) / 60_000;
    expect(minutes).toBeGreaterThan(7 * 24 * 60 - 1);
    expect(minutes).toBeLessThanOrEqual(7 * 24 * 60);
    const { rows } = await t.pool.query(`SELECT token_hash, issued_via, used_at FROM sign_in_links WHERE id = $1`, [link.id]);
    expect(rows).toEqual([{ token_hash: expect.stringMatching(/^[0-9a-f]{64}$/), issued_via: 'operator', used_at: null }]);
    const dump = JSON.stringify((await t.pool.query(`SELECT * FROM sign_in_links`)).rows);
    expect(dump).not.toContain(secret);
    const audit = await request(t.url)
      .get(`/api/v1/admin/audit?client_id=${clientId}&action=sign_in_link.issued`)
      .set('authorization', `Bearer ${ADMIN_TOKEN}`);
    expect(audit.body.data).toEqual([
      expect.objectContaining({ target: { type: 'sign_in_link', id: link.id }, actor: expect.objectContaining({ type: 'admin' }) }),
    ]);
    // Nor does the request log hold it.
    expect(t.logs.join('\n')).not.toContain(secret);
  });

  it('404 for an unknown client; 401 without the operator credential; 403 with a client token', async () => {
    const unknown = await request(t.url)
      .post('/api/v1/admin/clients/nobody-here/sign-in-links')
      .set('authorization', `Bearer ${ADMIN_TOKEN}`);
    expect(unknown.status).toBe(404);
    const { clientId, token } = await createClientWithToken(t);
    expect((await request(t.url).post(`/api/v1/admin/clients/${clientId}/sign-in-links`)).status).toBe(401);
    expect(
      (await request(t.url).post(`/api/v1/admin/clients/${clientId}/sign-in-links`).set('authorization', `Bearer ${token}`)).status,
    ).toBe(403);
  });

  it('opening the link spends nothing; continuing signs in once, with a fresh HttpOnly, SameSite=Lax session cookie', async () => {
    const { clientId } = await createClient(t);
    const link = await signInLink(t, clientId);
    const browser = new DashboardClient(t.url);
    const path = new URL(link.url);
    // A mail scanner (or the person, twice) following the link signs nobody in.
    expect((await browser.get(`${path.pathname}${path.search}`)).status).toBe(200);
    expect((await browser.get(`${path.pathname}${path.search}`)).status).toBe(200);
    expect((await t.pool.query(`SELECT used_at FROM sign_in_links WHERE id = $1`, [link.id])).rows[0].used_at).toBeNull();

    const res = await browser.signIn(link.url);
    expect(res.status).toBe(303);
    expect(res.location).toBe('/dashboard');
    const cookie = sessionCookie(res.headers.getSetCookie())!;
    expect(cookie).toMatch(/^epr_session=eprs_[0-9A-Za-z]{32}_[0-9A-Za-z]{6}; Path=\/; HttpOnly; SameSite=Lax$/);
    const value = browser.cookies.get('epr_session')!;
    const { rows } = await t.pool.query(`SELECT session_hash, client_id FROM dashboard_sessions WHERE client_id = $1`, [clientId]);
    expect(rows).toEqual([{ session_hash: expect.stringMatching(/^[0-9a-f]{64}$/), client_id: clientId }]);
    expect(rows[0].session_hash).not.toContain(value);

    const overview = await browser.get('/dashboard');
    expect(overview.status).toBe(200);
    expect(overview.headers.get('cache-control')).toBe('no-store');
    expect(overview.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(overview.html).toContain(clientId);

    // Used: the same link again, in another browser, does not work.
    const again = await new DashboardClient(t.url).signIn(link.url);
    expect(again.status).toBe(400);
    expect(again.html).toContain('This sign-in link does not work');
    expect(sessionCookie(again.headers.getSetCookie())).toBeUndefined();
    // The link's secret was in the URLs of these requests, and the session's in their cookies: no log line holds either.
    const logs = t.logs.join('\n');
    expect(logs).toContain('/dashboard/sign-in/link');
    expect(logs).not.toContain(new URL(link.url).searchParams.get('token')!);
    expect(logs).not.toContain(value);
  });

  it('an expired link does not work; links and sessions over for a month are deleted at the next sign-in', async () => {
    const { clientId } = await createClient(t);
    const link = await signInLink(t, clientId);
    await t.pool.query(`UPDATE sign_in_links SET expires_at = now() - interval '1 second' WHERE id = $1`, [link.id]);
    expect((await new DashboardClient(t.url).signIn(link.url)).status).toBe(400);

    await signedIn(t, clientId);
    await t.pool.query(`UPDATE sign_in_links SET expires_at = now() - interval '31 days' WHERE client_id = $1`, [clientId]);
    await t.pool.query(`UPDATE dashboard_sessions SET expires_at = now() - interval '31 days' WHERE client_id = $1`, [clientId]);
    await signedIn(t, clientId);
    const left = await t.pool.query(
      `SELECT (SELECT count(*)::int FROM sign_in_links WHERE client_id = $1) AS links, (SELECT count(*)::int FROM dashboard_sessions WHERE client_id = $1) AS sessions`,
      [clientId],
    );
    expect(left.rows[0]).toEqual({ links: 1, sessions: 1 });
  });

  it('a malformed or made-up link does not work and reaches no session', async () => {
    const browser = new DashboardClient(t.url);
    const page = await browser.get('/dashboard/sign-in/link?token=eprl_notatoken');
    const res = await browser.post('/dashboard/sign-in/link', { token: 'eprl_notatoken' }, { csrf: csrfOf(page.html) });
    expect(res.status).toBe(400);
    expect((await browser.get('/dashboard')).status).toBe(303);
  });
});

describe('sessions', () => {
  it('no fixation: a session id the browser brings is never kept, and its own earlier session ends at sign-in', async () => {
    const { clientId } = await createClient(t);
    const browser = await signedIn(t, clientId);
    const first = browser.cookies.get('epr_session')!;
    const planted = 'eprs_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA_000000';
    const attacker = new DashboardClient(t.url);
    attacker.cookies.set('epr_session', planted);
    await attacker.signIn((await signInLink(t, clientId)).url);
    expect(attacker.cookies.get('epr_session')).not.toBe(planted);

    // The same browser signing in again gets a new id, and the old one stops working.
    await browser.signIn((await signInLink(t, clientId)).url);
    const second = browser.cookies.get('epr_session')!;
    expect(second).not.toBe(first);
    const old = new DashboardClient(t.url);
    old.cookies.set('epr_session', first);
    expect((await old.get('/dashboard')).status).toBe(303);
    expect((await browser.get('/dashboard')).status).toBe(200);
  });

  it('every dashboard page without a live session redirects to sign-in (303), and a form post changes nothing', async () => {
    const anonymous = new DashboardClient(t.url);
    for (const path of [
      '/dashboard',
      '/dashboard/tokens',
      '/dashboard/declarations',
      '/dashboard/declarations/new',
      '/dashboard/declarations/0b6f1c2e-6a55-4c1e-9a7e-3f3f1d2a9b10',
    ]) {
      const res = await anonymous.get(path);
      expect([path, res.status, res.location]).toEqual([path, 303, '/dashboard/sign-in?session=ended']);
    }
    const before = (await t.pool.query(`SELECT count(*)::int AS n FROM client_tokens`)).rows[0].n;
    const post = await anonymous.post('/dashboard/tokens', { name: 'sneaky' }, { csrf: 'x' });
    expect(post.status).toBe(303);
    expect((await t.pool.query(`SELECT count(*)::int AS n FROM client_tokens`)).rows[0].n).toBe(before);
    // A client token is no way into a page.
    const { token } = await createClientWithToken(t);
    expect((await request(t.url).get('/dashboard').set('authorization', `Bearer ${token}`)).status).toBe(303);
  });

  it('ends after 30 minutes idle, and 12 hours after sign-in however active', async () => {
    const { clientId } = await createClient(t);
    const idle = await signedIn(t, clientId);
    await t.pool.query(`UPDATE dashboard_sessions SET last_seen_at = now() - interval '31 minutes' WHERE client_id = $1`, [clientId]);
    expect((await idle.get('/dashboard')).status).toBe(303);

    const { clientId: other } = await createClient(t);
    const old = await signedIn(t, other);
    await t.pool.query(`UPDATE dashboard_sessions SET last_seen_at = now() - interval '29 minutes' WHERE client_id = $1`, [other]);
    expect((await old.get('/dashboard')).status).toBe(200);
    await t.pool.query(`UPDATE dashboard_sessions SET expires_at = now() WHERE client_id = $1`, [other]);
    expect((await old.get('/dashboard')).status).toBe(303);
  });

  it('sign-out ends the session in the database (it needs its CSRF token)', async () => {
    const { clientId } = await createClient(t);
    const browser = await signedIn(t, clientId);
    const cookie = browser.cookies.get('epr_session')!;
    expect((await browser.post('/dashboard/sign-out', {}, { csrf: false })).status).toBe(403);
    const out = await browser.post('/dashboard/sign-out', {});
    expect(out.status).toBe(303);
    expect(out.location).toBe('/dashboard/sign-in?signed-out');
    const { rows } = await t.pool.query(`SELECT ended_at FROM dashboard_sessions WHERE client_id = $1`, [clientId]);
    expect(rows[0].ended_at).not.toBeNull();
    const replay = new DashboardClient(t.url);
    replay.cookies.set('epr_session', cookie);
    expect((await replay.get('/dashboard')).status).toBe(303);
    const audit = await request(t.url).get(`/api/v1/admin/audit?client_id=${clientId}`).set('authorization', `Bearer ${ADMIN_TOKEN}`);
    expect(audit.body.data.map((e: { action: string }) => e.action)).toEqual([
      'session.ended',
      'session.started',
      'sign_in_link.issued',
      'client.confirmed',
      'client.created',
    ]);
    expect(audit.body.data[0].actor).toEqual({ type: 'client', operator_token_id: null, name: 'dashboard' });
  });
});

describe('CSRF', () => {
  it('a form without its token, with a made-up one, or with another session’s, is refused (403 page) and changes nothing', async () => {
    const { clientId } = await createClient(t);
    const browser = await signedIn(t, clientId);
    const count = async () =>
      (await t.pool.query(`SELECT count(*)::int AS n FROM client_tokens WHERE client_id = $1`, [clientId])).rows[0].n;
    const without = await browser.post('/dashboard/tokens', { name: 'no token' }, { csrf: false });
    expect(without.status).toBe(403);
    expect(without.headers.get('content-type')).toContain('text/html');
    expect(without.html).toContain('The form was open for too long, or was sent from another site.');
    expect((await browser.post('/dashboard/tokens', { name: 'made up' }, { csrf: 'abc.def' })).status).toBe(403);
    const other = await signedIn(t, (await createClient(t)).clientId);
    expect((await browser.post('/dashboard/tokens', { name: 'stolen' }, { csrf: await other.csrfFor('/dashboard/tokens') })).status).toBe(
      403,
    );
    expect(await count()).toBe(0);
    expect((await browser.post('/dashboard/tokens', { name: 'with its token' })).status).toBe(201);
    expect(await count()).toBe(1);
  });

  it('every form route of the dashboard, from the router, refuses a post without its _csrf: 403 page, as form or as upload', async () => {
    const { stack } = (
      t.app.getHttpAdapter().getInstance() as { router: { stack: Array<{ route?: { path: string; methods: Record<string, boolean> } }> } }
    ).router;
    const forms = stack.flatMap(({ route }) =>
      route?.path.startsWith('/dashboard')
        ? Object.keys(route.methods)
            .filter((method) => !['_all', 'get', 'head', 'options'].includes(method))
            .map((method) => `${method.toUpperCase()} ${route.path}`)
        : [],
    );
    expect(forms).toEqual(
      expect.arrayContaining([
        'POST /dashboard/tokens/:id/revoke',
        'POST /dashboard/products/derived',
        'POST /dashboard/declarations/upload',
        'POST /dashboard/sign-in/link',
      ]),
    );
    const { clientId } = await createClient(t);
    const browser = await signedIn(t, clientId);
    const cookie = () => [...browser.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    for (const route of forms) {
      const [method, template] = route.split(' ') as [string, string];
      const path = template.replace(/:(\w+)/g, '00000000-0000-4000-8000-000000000000');
      // A form of the page's fields but its token; an upload route (which reads multipart only) gets it as a multipart form.
      let res = await browser.post(path, { name: 'walk', period: '2025-S1', token: 'eprl_walk' }, { csrf: false });
      if (res.status === 415) {
        const form = new FormData();
        form.append('period', '2025-S1');
        form.append('file', new Blob(['stream,material,unit,quantity\n'], { type: 'text/csv' }), 'walk.csv');
        const upload = await fetch(`${t.url}${path}`, {
          method,
          body: form,
          headers: { cookie: cookie(), 'accept-language': 'en' },
          redirect: 'manual',
        });
        res = { status: upload.status, html: await upload.text(), headers: upload.headers, location: null };
      }
      expect([route, res.status, res.html.includes('The form was open for too long')]).toEqual([route, 403, true]);
    }
    // Still signed in, nothing made: the refusals were the token's.
    expect((await browser.get('/dashboard/tokens')).status).toBe(200);
    expect((await t.pool.query(`SELECT count(*)::int AS n FROM client_tokens WHERE client_id = $1`, [clientId])).rows[0].n).toBe(0);
  });

  it('the sign-in forms need their page’s token too (no login CSRF)', async () => {
    const { clientId } = await createClient(t);
    const link = await signInLink(t, clientId);
    const res = await new DashboardClient(t.url).post(
      '/dashboard/sign-in/link',
      { token: new URL(link.url).searchParams.get('token')! },
      { csrf: false },
    );
    expect(res.status).toBe(403);
    expect((await t.pool.query(`SELECT used_at FROM sign_in_links WHERE id = $1`, [link.id])).rows[0].used_at).toBeNull();
  });
});

describe('tokens from the dashboard', () => {
  it('creates a token shown once, which works on the API; the operator sees it; revoking it makes the API answer 401', async () => {
    const { clientId } = await createClient(t);
    const browser = await signedIn(t, clientId);
    const created = await browser.post('/dashboard/tokens', { name: 'ERP', expires: '' });
    expect(created.status).toBe(201);
    const secret = /value="(eprc_[0-9A-Za-z]{32}_[0-9A-Za-z]{6})"/.exec(created.html)![1]!;
    const me = await request(t.url).get('/api/v1/me').set('authorization', `Bearer ${secret}`);
    expect(me.status).toBe(200);
    expect(me.body.client_id).toBe(clientId);
    const list = await browser.get('/dashboard/tokens');
    expect(list.html).toContain('you (dashboard)');
    expect(list.html).not.toContain(secret);
    const admin = await request(t.url).get(`/api/v1/admin/clients/${clientId}/tokens`).set('authorization', `Bearer ${ADMIN_TOKEN}`);
    expect(admin.body).toEqual([expect.objectContaining({ name: 'ERP', created_via: 'dashboard', prefix: secret.slice(0, 12) })]);
    const tokenId = admin.body[0].id as string;
    const audit = await request(t.url)
      .get(`/api/v1/admin/audit?client_id=${clientId}&action=token.issued`)
      .set('authorization', `Bearer ${ADMIN_TOKEN}`);
    expect(audit.body.data[0]).toEqual(
      expect.objectContaining({
        actor: { type: 'client', operator_token_id: null, name: 'dashboard' },
        target: { type: 'token', id: tokenId },
      }),
    );
    expect(JSON.stringify(audit.body)).not.toContain(secret);

    const confirm = await browser.get(`/dashboard/tokens/${tokenId}/revoke`);
    expect(confirm.status).toBe(200);
    const revoked = await browser.post(`/dashboard/tokens/${tokenId}/revoke`, {});
    expect(revoked.status).toBe(303);
    expect((await request(t.url).get('/api/v1/me').set('authorization', `Bearer ${secret}`)).status).toBe(401);
  });

  it('refuses a bad name or expiry with the problem next to its field (422) and creates nothing', async () => {
    const { clientId } = await createClient(t);
    const browser = await signedIn(t, clientId);
    const res = await browser.post('/dashboard/tokens', { name: '', expires: '2020-01-01' });
    expect(res.status).toBe(422);
    expect(res.html).toContain('id="name-error"');
    expect(res.html).toContain('The expiry date must be in the future: choose a later date.');
    const far = await browser.post('/dashboard/tokens', { name: 'x', expires: `${new Date().getUTCFullYear() + 3}-01-01` });
    expect(far.html).toContain('A token lives at most 2 years');
    expect((await t.pool.query(`SELECT count(*)::int AS n FROM client_tokens WHERE client_id = $1`, [clientId])).rows[0].n).toBe(0);
  });
});

describe('one client’s session against another client’s records', () => {
  it('sees and changes nothing of client B: every page and action is a 404', async () => {
    const a = await createClient(t);
    const b = await createClientWithToken(t);
    const bDeclaration = await request(t.url)
      .post('/api/v1/declarations')
      .set('authorization', `Bearer ${b.token}`)
      .send({
        period: '2025-S1',
        lines: [
          { stream: 'EMB', material: 'Verre', unit: 'kg', quantity: 5 },
          { stream: 'EMB', material: 'Verre', unit: 'uvc', quantity: 5 },
        ],
      });
    expect(bDeclaration.status).toBe(201);
    const browser = await signedIn(t, a.clientId);
    for (const path of [
      `/dashboard/declarations/${bDeclaration.body.id}`,
      `/dashboard/declarations/${bDeclaration.body.id}/csv`,
      `/dashboard/tokens/${b.tokenId}/revoke`,
    ]) {
      const res = await browser.get(path);
      expect([path, res.status]).toEqual([path, 404]);
      expect(res.html).not.toContain(b.clientId);
    }
    expect((await browser.post(`/dashboard/tokens/${b.tokenId}/revoke`, {})).status).toBe(404);
    expect((await request(t.url).get('/api/v1/me').set('authorization', `Bearer ${b.token}`)).status).toBe(200);
    const list = await browser.get('/dashboard/declarations');
    expect(list.html).not.toContain(bDeclaration.body.id);
  });
});

describe('the shipped cookie flags on https, and the sign-in rate limit', () => {
  let secure: TestApp;
  beforeAll(async () => {
    secure = await startTestApp({ env: { PUBLIC_BASE_URL: 'https://epr.example.org', RATE_LIMIT_SIGN_IN_PER_MINUTE: '3' } });
  }, 60_000);
  afterAll(async () => {
    await secure?.close();
  });

  it('Secure, __Host- cookies when the public address is https', async () => {
    const { clientId } = await createClient(secure);
    const browser = new DashboardClient(secure.url);
    const res = await browser.signIn((await signInLink(secure, clientId)).url);
    expect(res.status).toBe(303);
    const set = res.headers.getSetCookie().find((c) => c.startsWith('__Host-epr_session='));
    expect(set).toMatch(/; Path=\/; HttpOnly; Secure; SameSite=Lax$/);
    const page = await browser.get('/dashboard/sign-in');
    expect(page.headers.getSetCookie().find((c) => c.startsWith('__Host-epr_csrf='))).toMatch(/HttpOnly; Secure; SameSite=Strict/);
  });

  it('an address gets 429 past RATE_LIMIT_SIGN_IN_PER_MINUTE sign-in attempts', async () => {
    // The limit counts in minute windows on the clock: attempts that cross one prove nothing, and are made again.
    await withinOneWindow(async () => {
      const browser = new DashboardClient(secure.url);
      const page = await browser.get('/dashboard/sign-in/link?token=x');
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++)
        statuses.push((await browser.post('/dashboard/sign-in/link', { token: 'eprl_guess' }, { csrf: csrfOf(page.html) })).status);
      // Earlier tests of this app used some of the minute's budget: what matters is the switch to 429.
      expect(statuses.at(-1)).toBe(429);
      expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(2);
    });
  });
});
