/**
 * The operator's console over HTTP: named operators sign in by a link mailed to them (a real SMTP
 * server), with a session and CSRF tokens of their own; every console route is refused without that
 * session (a client's dashboard session, a client token or ADMIN_TOKEN open nothing), and every form
 * without its CSRF token; actions go through the admin API's services, audited with the operator's
 * name; a status change made on a stale version is shown, never applied.
 */
import type { ParsedMail } from 'mailparser';
import request from 'supertest';
import { csrfOf, DashboardClient, signedIn } from '../support/dashboard-browser.js';
import { createClientWithToken } from '../support/factories.js';
import { drainOutbox, FAST_MAIL_DELIVERY, type Mailbox, startMailbox } from '../support/mailbox.js';
import { consoleSignIn as signInToConsole, nameOperator as nameOperatorOn } from '../support/operator-console.js';
import { ADMIN_TOKEN, startTestApp, type TestApp } from '../support/test-app.js';

let t: TestApp;
let mailbox: Mailbox;
let inbox: ParsedMail[];

beforeAll(async () => {
  mailbox = await startMailbox();
  inbox = mailbox.inbox;
  t = await startTestApp({ env: { SMTP_URL: mailbox.url, MAIL_FROM: 'console@epr.example.org' }, mailDelivery: FAST_MAIL_DELIVERY });
}, 60_000);

afterAll(async () => {
  await t?.close();
  await mailbox?.close();
});

const admin = () => ({ authorization: `Bearer ${ADMIN_TOKEN}` });
const nameOperator = (name: string, email: string) => nameOperatorOn(t, name, email);
const consoleSignIn = (email: string, language?: string) => signInToConsole(t, inbox, email, language);

/** Every console route the router serves, but its sign-in pages (public forms). */
function consoleRoutes(): { method: string; path: string }[] {
  const stack = (
    t.app.getHttpAdapter().getInstance() as { router: { stack: Array<{ route?: { path: string; methods: Record<string, boolean> } }> } }
  ).router.stack;
  const routes: { method: string; path: string }[] = [];
  for (const layer of stack) {
    if (!layer.route || !/^\/operator(\/|$)/.test(layer.route.path)) continue;
    for (const [method, enabled] of Object.entries(layer.route.methods))
      if (enabled && method !== '_all') routes.push({ method, path: layer.route.path });
  }
  return routes;
}

const PUBLIC = ['get /operator/sign-in', 'post /operator/sign-in', 'get /operator/sign-in/link', 'post /operator/sign-in/link'];

describe('named operators', () => {
  it('are named with an e-mail address by ADMIN_TOKEN only, one live operator per address', async () => {
    const first = await nameOperator('Camille Martin', `camille.${Date.now()}@operateur.example`);
    const other = await request(t.url)
      .post('/api/v1/admin/operator-tokens')
      .set({ authorization: `Bearer ${first.token}` })
      .send({ name: 'Eve', email: 'eve@operateur.example' });
    expect([other.status, other.body.code]).toEqual([403, 'insufficient_scope']);
    const list = await request(t.url).get('/api/v1/admin/operator-tokens').set(admin());
    expect(list.body.find((o: { id: string }) => o.id === first.id).name).toBe('Camille Martin');
    const bad = await request(t.url).post('/api/v1/admin/operator-tokens').set(admin()).send({ name: 'X', email: 'not an address' });
    expect([bad.status, bad.body.errors[0].pointer]).toEqual([422, '/email']);
    const email = `dup.${Date.now()}@operateur.example`;
    await nameOperator('Dup', email);
    const dup = await request(t.url).post('/api/v1/admin/operator-tokens').set(admin()).send({ name: 'Dup 2', email: email.toUpperCase() });
    expect([dup.status, dup.body.code]).toEqual([409, 'conflict']);
  });
});

describe('signing in', () => {
  it('mails a single-use link to a named operator only; the page answers the same for any address', async () => {
    const email = `signin.${Date.now()}@operateur.example`;
    await nameOperator('Lou Signin', email);
    const browser = await consoleSignIn(email);
    const home = await browser.get('/operator');
    expect(home.status).toBe(200);
    expect(home.html).toContain('Lou Signin');
    expect(home.html).toContain('<html lang="fr">');
    // A stranger's address: the same page, no mail.
    const stranger = new DashboardClient(t.url, 'fr-FR');
    const page = await stranger.get('/operator/sign-in');
    const before = inbox.length;
    const answer = await stranger.post('/operator/sign-in', { email: 'nobody@ailleurs.example' }, { csrf: csrfOf(page.html) });
    expect(answer.status).toBe(200);
    // The link is spent: using it again fails.
    const mail = inbox.find((m) => (m.to as { text: string }).text.includes(email))!;
    expect(mail.subject).toBe('Votre lien de connexion à la console de l’opérateur');
    const token = /token=(eprl_[A-Za-z0-9_]+)/.exec(mail.text ?? '')![1]!;
    const again = await stranger.get(`/operator/sign-in/link?token=${token}`);
    const reused = await stranger.post('/operator/sign-in/link', { token }, { csrf: csrfOf(again.html) });
    expect(reused.status).toBe(400);
    await drainOutbox(t);
    expect(inbox.slice(before).filter((m) => (m.to as { text: string }).text.includes('nobody@ailleurs.example'))).toEqual([]);
    // The session start is audited with the operator's name.
    const { rows } = await t.pool.query(
      `SELECT actor_name FROM audit_events WHERE action = 'operator_session.started' ORDER BY occurred_at DESC LIMIT 1`,
    );
    expect(rows[0].actor_name).toBe('Lou Signin');
  });

  it('revoking the operator token ends its console sessions at once', async () => {
    const email = `revoked.${Date.now()}@operateur.example`;
    const operator = await nameOperator('Revoked One', email);
    const browser = await consoleSignIn(email);
    expect((await browser.get('/operator/clients')).status).toBe(200);
    expect((await request(t.url).delete(`/api/v1/admin/operator-tokens/${operator.id}`).set(admin())).status).toBe(204);
    const after = await browser.get('/operator/clients');
    expect([after.status, after.location]).toEqual([303, '/operator/sign-in']);
  });
});

describe('the route walk', () => {
  it('refuses every console route without an operator session: none, a client session, a client token, ADMIN_TOKEN; every POST without CSRF', async () => {
    const routes = consoleRoutes();
    const key = (r: { method: string; path: string }) => `${r.method} ${r.path}`;
    expect(routes.map(key)).toEqual(
      expect.arrayContaining([...PUBLIC, 'get /operator', 'get /operator/clients', 'post /operator/clients/:client_id/actions/:action']),
    );
    const closed = routes.filter((r) => !PUBLIC.includes(key(r)));
    const client = await createClientWithToken(t);
    const dashboard = await signedIn(t, client.clientId);
    const email = `walk.${Date.now()}@operateur.example`;
    await nameOperator('Walker', email);
    const operator = await consoleSignIn(email);
    const csrf = csrfOf((await operator.get('/operator/clients')).html);
    const auditBefore = (await t.pool.query(`SELECT count(*)::int AS n FROM audit_events`)).rows[0].n;
    const fill = (path: string) =>
      path
        .replace(':client_id', client.clientId)
        .replace(':token_id', client.tokenId)
        .replace(':action', 'suspend')
        .replace(':year', '2026')
        .replace(':period', '2026-S1');
    for (const route of closed) {
      const path = fill(route.path);
      const cookie = [...dashboard.cookies].map(([n, v]) => `${n}=${v}`).join('; ');
      for (const headers of [
        {},
        { cookie },
        { authorization: `Bearer ${client.token}` },
        { authorization: `Bearer ${ADMIN_TOKEN}` },
      ] as Record<string, string>[]) {
        const res =
          route.method === 'post'
            ? await request(t.url).post(path).set(headers).type('form').send({ _csrf: csrf })
            : await request(t.url).get(path).set(headers);
        expect({ route: key(route), headers: Object.keys(headers), status: res.status, location: res.headers.location }).toEqual({
          route: key(route),
          headers: Object.keys(headers),
          status: 303,
          location: '/operator/sign-in',
        });
      }
      if (route.method === 'post' && path.endsWith('/import')) {
        // A multipart form (the clients file) without its token.
        const form = new FormData();
        form.append('action', 'apply');
        form.append('file', new Blob(['client_id,company,email\nwalk-1,Walk SAS,walk@exemple.fr\n']), 'clients.csv');
        const cookie = [...operator.cookies].map(([n, v]) => `${n}=${v}`).join('; ');
        const res = await fetch(`${t.url}${path}`, { method: 'POST', body: form, headers: { cookie }, redirect: 'manual' });
        expect({ route: key(route), status: res.status }).toEqual({ route: key(route), status: 403 });
      } else if (route.method === 'post') {
        const res = await operator.post(path, { version: '"x"' }, { csrf: false });
        expect({ route: key(route), status: res.status }).toEqual({ route: key(route), status: 403 });
        // A dashboard CSRF token is not a console one.
        const wrong = await operator.post(path, { version: '"x"' }, { csrf: csrfOf((await dashboard.get('/dashboard/tokens')).html) });
        expect({ route: key(route), status: wrong.status }).toEqual({ route: key(route), status: 403 });
      }
    }
    expect((await t.pool.query(`SELECT count(*)::int AS n FROM audit_events`)).rows[0].n).toBe(auditBefore);
    // And the other way round: a console session opens no dashboard page.
    const consoleCookie = [...operator.cookies].map(([n, v]) => `${n}=${v}`).join('; ');
    const page = await request(t.url).get('/dashboard').set({ cookie: consoleCookie });
    expect([page.status, page.headers.location]).toEqual([303, '/dashboard/sign-in?session=ended']);
  }, 120_000);
});

describe('who declared', () => {
  it('lists clients as declared, to declare or overdue by the published deadline, for a half-year or a year; the first page counts them', async () => {
    const stamp = Date.now();
    const liable = (clientId: string) =>
      request(t.url)
        .put(`/api/v1/admin/clients/${clientId}/streams/EMB`)
        .set(admin())
        .send({ eco_organism: 'Citeo', liable_from: '2025-S1' })
        .expect(200);
    const filed = await createClientWithToken(t, { company: `Déclarée ${stamp}` });
    const late = await createClientWithToken(t, { company: `Retardataire ${stamp}` });
    for (const c of [filed, late]) await liable(c.clientId);
    const declared = await request(t.url)
      .post('/api/v1/declarations')
      .set({ authorization: `Bearer ${filed.token}` })
      .send({
        period: '2025-S2',
        lines: [
          { stream: 'EMB', material: 'glass', unit: 'kg', quantity: 10 },
          { stream: 'EMB', material: 'glass', unit: 'uvc', quantity: 40 },
        ],
      });
    expect(declared.status).toBe(201);
    const email = `standing.${stamp}@operateur.example`;
    await nameOperator('Val Standing', email);
    const browser = await consoleSignIn(email);
    const listed = async (scope: string, standing: string) => {
      const page = await browser.get(`/operator/clients?q=${stamp}&scope=${scope}&standing=${standing}`);
      expect(page.status).toBe(200);
      return [filed, late].filter((c) => page.html.includes(c.clientId)).map((c) => (c === filed ? 'filed' : 'late'));
    };
    // 2025-S2 ended, its deadline (end of February 2026) passed.
    expect(await listed('2025-S2', 'declared')).toEqual(['filed']);
    expect(await listed('2025-S2', 'overdue')).toEqual(['late']);
    expect(await listed('2025-S2', 'to_declare')).toEqual([]);
    // The year: 2025-S1 was not declared by either, so both are overdue for it.
    expect(await listed('2025', 'overdue')).toEqual(['filed', 'late']);
    // The declaration as filed (as the admin API reads it); entered directly, it has no per-product detail.
    const filedPage = await browser.get(`/operator/declarations/${declared.body.id}`);
    expect(filedPage.status).toBe(200);
    expect(filedPage.html).toContain(declared.body.receipt);
    expect((await browser.get(`/operator/declarations/${declared.body.id}/derivation`)).status).toBe(404);
    const overview = await browser.get('/operator?scope=2025-S2');
    expect(overview.html).toContain('<svg role="img"');
    expect(overview.html).toMatch(/<th scope="row">Citeo<\/th>/);
    expect(overview.html).toContain('standing=overdue&amp;stream=EMB&amp;eco_organism=Citeo');
  });
});

describe('actions', () => {
  it('suspends and reactivates through the admin API’s service, audited with the operator’s name; a stale version is shown, not applied', async () => {
    const client = await createClientWithToken(t, { company: 'Verrerie Dupont' });
    const email = `actions.${Date.now()}@operateur.example`;
    await nameOperator('Camille Actions', email);
    const browser = await consoleSignIn(email);
    const list = await browser.get(`/operator/clients?q=${encodeURIComponent('Verrerie Dupont')}`);
    expect(list.html).toContain(client.clientId);

    const confirm = await browser.get(`/operator/clients/${client.clientId}/actions/suspend`);
    expect(confirm.status).toBe(200);
    expect(confirm.html).toContain('Ses jetons sont refusés');
    const version = /name="version" value="([^"]*)"/.exec(confirm.html)![1]!.replaceAll('&quot;', '"');
    // Someone else changes the client meanwhile, through the admin API.
    const patched = await request(t.url)
      .patch(`/api/v1/admin/clients/${client.clientId}`)
      .set(admin())
      .send({ company: 'Verrerie Dupont SA' });
    expect(patched.status).toBe(200);
    const stale = await browser.post(
      `/operator/clients/${client.clientId}/actions/suspend`,
      { version, reason: 'test' },
      { csrf: csrfOf(confirm.html) },
    );
    expect(stale.status).toBe(412);
    expect(stale.html).toContain('Ce client a changé depuis que vous avez ouvert cette page');
    expect((await request(t.url).get(`/api/v1/admin/clients/${client.clientId}`).set(admin())).body.status).toBe('active');

    const fresh = /name="version" value="([^"]*)"/.exec(stale.html)![1]!.replaceAll('&quot;', '"');
    const done = await browser.post(
      `/operator/clients/${client.clientId}/actions/suspend`,
      { version: fresh },
      { csrf: csrfOf(stale.html) },
    );
    expect([done.status, done.location]).toEqual([303, `/operator/clients/${client.clientId}?done=suspend`]);
    expect(
      (
        await request(t.url)
          .get('/api/v1/me')
          .set({ authorization: `Bearer ${client.token}` })
      ).status,
    ).toBe(403);

    const back = await browser.get(`/operator/clients/${client.clientId}/actions/reactivate`);
    const reactivated = await browser.post(
      `/operator/clients/${client.clientId}/actions/reactivate`,
      { version: /name="version" value="([^"]*)"/.exec(back.html)![1]!.replaceAll('&quot;', '"') },
      { csrf: csrfOf(back.html) },
    );
    expect(reactivated.status).toBe(303);
    expect(
      (
        await request(t.url)
          .get('/api/v1/me')
          .set({ authorization: `Bearer ${client.token}` })
      ).status,
    ).toBe(200);

    const { rows } = await t.pool.query(
      `SELECT action, actor_type, actor_name FROM audit_events WHERE client_id = $1 AND action IN ('client.suspended', 'client.reactivated') ORDER BY occurred_at`,
      [client.clientId],
    );
    expect(rows).toEqual([
      { action: 'client.suspended', actor_type: 'operator', actor_name: 'Camille Actions' },
      { action: 'client.reactivated', actor_type: 'operator', actor_name: 'Camille Actions' },
    ]);
    const page = await browser.get(`/operator/clients/${client.clientId}`);
    expect(page.html).toContain('Camille Actions');
    expect(page.html).toContain('client.reactivated');
  });

  it('confirms a pending change shown beside the confirmed profile, on the version the operator saw', async () => {
    const client = await createClientWithToken(t, { company: 'Fromagerie Avant' });
    const email = `confirm.${Date.now()}@operateur.example`;
    await nameOperator('Alex Confirm', email);
    const browser = await consoleSignIn(email);
    await request(t.url).patch(`/api/v1/admin/clients/${client.clientId}`).set(admin()).send({ company: 'Fromagerie Après' }).expect(200);
    const page = await browser.get(`/operator/clients/${client.clientId}`);
    expect(page.html).toContain('Fromagerie Avant');
    expect(page.html).toContain('Fromagerie Après');
    const confirm = await browser.get(`/operator/clients/${client.clientId}/actions/confirm`);
    const version = /name="version" value="([^"]*)"/.exec(confirm.html)![1]!.replaceAll('&quot;', '"');
    await request(t.url).patch(`/api/v1/admin/clients/${client.clientId}`).set(admin()).send({ company: 'Fromagerie Encore' }).expect(200);
    const stale = await browser.post(`/operator/clients/${client.clientId}/actions/confirm`, { version }, { csrf: csrfOf(confirm.html) });
    expect(stale.status).toBe(412);
    expect(stale.html).toContain('Fromagerie Encore');
    expect(
      (
        await request(t.url)
          .get('/api/v1/me')
          .set({ authorization: `Bearer ${client.token}` })
      ).body.company,
    ).toBe('Fromagerie Avant');
    const fresh = /name="version" value="([^"]*)"/.exec(stale.html)![1]!.replaceAll('&quot;', '"');
    const done = await browser.post(
      `/operator/clients/${client.clientId}/actions/confirm`,
      { version: fresh },
      { csrf: csrfOf(stale.html) },
    );
    expect(done.status).toBe(303);
    expect(
      (
        await request(t.url)
          .get('/api/v1/me')
          .set({ authorization: `Bearer ${client.token}` })
      ).body.company,
    ).toBe('Fromagerie Encore');
  });

  it('invites by form on the admin API’s rules: what the API refuses is refused in words, nothing created', async () => {
    const email = `invite.${Date.now()}@operateur.example`;
    await nameOperator('Ines Invite', email);
    const browser = await consoleSignIn(email);
    const count = async () => (await t.pool.query(`SELECT count(*)::int AS n FROM clients`)).rows[0].n as number;
    const before = await count();
    const form = await browser.get('/operator/clients/new');
    const refused = await browser.post(
      '/operator/clients/new',
      {
        company: 'Brasserie Test',
        email: 'pas une adresse',
        country: 'FR',
        plan: 'starter',
        language: 'fr',
        stream: 'EMB',
        eco_organism: 'Citeo',
      },
      { csrf: csrfOf(form.html) },
    );
    expect(refused.status).toBe(422);
    expect(refused.html).toContain('Rien n’a été créé');
    expect(await count()).toBe(before);
    const created = await browser.post(
      '/operator/clients/new',
      {
        company: 'Brasserie Test',
        email: `brasserie.${Date.now()}@exemple.fr`,
        country: 'FR',
        plan: 'starter',
        language: 'fr',
        stream: 'EMB',
        eco_organism: 'citeo',
      },
      { csrf: csrfOf(form.html) },
    );
    expect(created.status).toBe(303);
    const clientId = decodeURIComponent(/\/operator\/clients\/([^?]+)/.exec(created.location!)![1]!);
    const api = await request(t.url).get(`/api/v1/admin/clients/${clientId}/streams`).set(admin());
    expect(api.body.data.map((s: { stream: string; eco_organism: string }) => [s.stream, s.eco_organism])).toEqual([['EMB', 'Citeo']]);
    const { rows } = await t.pool.query(`SELECT actor_name FROM audit_events WHERE client_id = $1 AND action = 'client.created'`, [
      clientId,
    ]);
    expect(rows).toEqual([{ actor_name: 'Ines Invite' }]);
  });

  it('imports a clients file: the dry run’s report by row, then applied all or nothing, on the admin API’s rules', async () => {
    const email = `import.${Date.now()}@operateur.example`;
    await nameOperator('Noa Import', email);
    const browser = await consoleSignIn(email);
    const page = await browser.get('/operator/clients/import');
    expect(page.status).toBe(200);
    const stamp = Date.now();
    const good = `client_id;company;email\r\nimp-${stamp}-1;Un SAS;un.${stamp}@exemple.fr\r\nimp-${stamp}-2;Deux SAS;deux.${stamp}@exemple.fr\r\n`;
    const dry = await browser.upload('/operator/clients/import', { action: 'check' }, { name: 'clients.csv', content: good });
    expect(dry.status).toBe(200);
    expect(dry.html).toContain('ces clients seraient créés');
    expect(dry.html).toContain(`imp-${stamp}-2`);
    expect((await t.pool.query(`SELECT count(*)::int AS n FROM clients WHERE client_id LIKE $1`, [`imp-${stamp}-%`])).rows[0].n).toBe(0);
    const bad = `client_id;company;email\r\nimp-${stamp}-3;Trois SAS;pas une adresse\r\n`;
    const refused = await browser.upload('/operator/clients/import', { action: 'apply' }, { name: 'clients.csv', content: bad });
    expect(refused.status).toBe(422);
    expect(refused.html).toContain('Ligne 2');
    const applied = await browser.upload('/operator/clients/import', { action: 'apply' }, { name: 'clients.csv', content: good });
    expect(applied.status).toBe(201);
    const { rows } = await t.pool.query(`SELECT actor_name FROM audit_events WHERE action = 'client.created' AND client_id LIKE $1`, [
      `imp-${stamp}-%`,
    ]);
    expect(rows).toEqual([{ actor_name: 'Noa Import' }, { actor_name: 'Noa Import' }]);
  });

  it('shows the first page, the list and a client in English too', async () => {
    const email = `english.${Date.now()}@operateur.example`;
    await nameOperator('Sam English', email);
    const browser = await consoleSignIn(email, 'en');
    for (const path of ['/operator?lang=en', '/operator/clients', '/operator/tools']) {
      const page = await browser.get(path);
      expect({ path, status: page.status }).toEqual({ path, status: 200 });
      expect(page.html).toContain('<html lang="en">');
    }
    const overview = await browser.get('/operator?scope=2026');
    expect(overview.html).toContain('At a glance');
    const bad = await browser.get('/operator/clients?status=sleeping');
    expect(bad.status).toBe(400);
  });
});
