/**
 * The operator's console over HTTP, its second round: a client's profile edited on the version the
 * operator saw (a concurrent change shown, never overwritten), a pending profile confirmed on that
 * version under the row lock, a checked clients file imported without choosing it again (sealed in
 * the page), the half-year export of one eco-organism (the admin API's `eco_organism`), and the
 * console sessions listed and ended through the admin API.
 */
import type { ParsedMail } from 'mailparser';
import request from 'supertest';
import { csrfOf } from '../support/dashboard-browser.js';
import { createClientWithToken } from '../support/factories.js';
import { FAST_MAIL_DELIVERY, type Mailbox, startMailbox } from '../support/mailbox.js';
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
const versionOf = (html: string) => /name="version" value="([^"]*)"/.exec(html)![1]!.replaceAll('&quot;', '"');
const hidden = (html: string, name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(html)![1]!;

const pendingOf = async (clientId: string) => (await request(t.url).get(`/api/v1/admin/clients/${clientId}`).set(admin())).body.pending;

describe('editing a client’s profile', () => {
  it('checks the change by the PATCH’s rules, states its consequence, applies it on the version seen; a concurrent change is shown, not overwritten', async () => {
    const client = await createClientWithToken(t, { company: 'Cidrerie Avant' });
    const email = `edit.${Date.now()}@operateur.example`;
    await nameOperator('Eli Edit', email);
    const browser = await consoleSignIn(email);
    expect((await browser.get(`/operator/clients/${client.clientId}`)).html).toContain(`/operator/clients/${client.clientId}/edit`);
    const form = await browser.get(`/operator/clients/${client.clientId}/edit`);
    expect(form.status).toBe(200);
    expect(form.html).toContain('Modifier le profil');
    expect(form.html).toContain('value="Cidrerie Avant"');
    // Every language of the registry is offered.
    expect(form.html).toContain('<option value="en"');
    const fields = (html: string, company: string, mail: string) => ({
      version: versionOf(html),
      step: 'review',
      company,
      email: mail,
      country: 'FR',
      plan: 'business',
      streams: ['EMB'],
      idus: 'FR000000_01ABCD',
      language: 'fr',
    });

    // What the API refuses is refused in words; nothing changes.
    const refused = await browser.post(
      `/operator/clients/${client.clientId}/edit`,
      fields(form.html, 'Cidrerie Après', 'pas une adresse'),
      {
        csrf: csrfOf(form.html),
      },
    );
    expect(refused.status).toBe(422);
    expect(refused.html).toContain('Rien n’a été modifié');
    expect((await pendingOf(client.clientId)).company).toBe('Cidrerie Avant');

    // The review: the change and its consequence, nothing written yet.
    const review = await browser.post(
      `/operator/clients/${client.clientId}/edit`,
      fields(form.html, 'Cidrerie Après', 'cidrerie@exemple.fr'),
      { csrf: csrfOf(form.html) },
    );
    expect(review.status).toBe(200);
    expect(review.html).toContain('Appliquer modifie seulement le profil en attente');
    expect(review.html).toContain('Cidrerie Avant');
    expect(review.html).toContain('Cidrerie Après');
    expect(review.html).toContain('name="step" value="apply"');
    expect((await pendingOf(client.clientId)).company).toBe('Cidrerie Avant');

    // Someone else changes the client meanwhile: the change is not applied, the client shown as it is now.
    await request(t.url)
      .patch(`/api/v1/admin/clients/${client.clientId}`)
      .set(admin())
      .send({ company: 'Cidrerie Concurrente' })
      .expect(200);
    const applyFields = { ...fields(review.html, 'Cidrerie Après', 'cidrerie@exemple.fr'), step: 'apply' };
    const stale = await browser.post(`/operator/clients/${client.clientId}/edit`, applyFields, { csrf: csrfOf(review.html) });
    expect(stale.status).toBe(412);
    expect(stale.html).toContain('Ce client a changé depuis que vous avez ouvert le formulaire');
    expect(stale.html).toContain('value="Cidrerie Concurrente"');
    expect((await pendingOf(client.clientId)).company).toBe('Cidrerie Concurrente');

    // On the version shown now, the change applies: the pending profile only, audited with the operator's name.
    const again = await browser.post(
      `/operator/clients/${client.clientId}/edit`,
      fields(stale.html, 'Cidrerie Après', 'cidrerie@exemple.fr'),
      { csrf: csrfOf(stale.html) },
    );
    const done = await browser.post(
      `/operator/clients/${client.clientId}/edit`,
      { ...fields(again.html, 'Cidrerie Après', 'cidrerie@exemple.fr'), step: 'apply' },
      { csrf: csrfOf(again.html) },
    );
    expect([done.status, done.location]).toEqual([303, `/operator/clients/${client.clientId}?done=edit`]);
    const pending = await pendingOf(client.clientId);
    expect([pending.company, pending.email]).toEqual(['Cidrerie Après', 'cidrerie@exemple.fr']);
    const me = await request(t.url)
      .get('/api/v1/me')
      .set({ authorization: `Bearer ${client.token}` });
    expect(me.body.company).toBe('Cidrerie Avant');
    const { rows } = await t.pool.query(
      `SELECT actor_name FROM audit_events WHERE client_id = $1 AND action = 'client.updated' AND actor_type = 'operator'`,
      [client.clientId],
    );
    expect(rows).toEqual([{ actor_name: 'Eli Edit' }]);
    expect((await browser.get(`/operator/clients/${client.clientId}?done=edit`)).html).toContain('Le profil en attente est modifié');
  });

  it('is in English too', async () => {
    const client = await createClientWithToken(t, { company: 'English Cider Ltd' });
    const email = `edit-en.${Date.now()}@operateur.example`;
    await nameOperator('Eli English', email);
    const browser = await consoleSignIn(email, 'en-GB');
    const form = await browser.get(`/operator/clients/${client.clientId}/edit`);
    expect(form.html).toContain('Edit the profile');
    expect(form.html).toContain('<html lang="en">');
    // The invitation form offers the registry's languages, the page's own first chosen.
    const invite = await browser.get('/operator/clients/new');
    expect(invite.html).toContain('<option value="en" selected>');
    expect(invite.html).toContain('<option value="fr">');
  });
});

describe('confirming a pending profile', () => {
  it('compares the version the operator saw with the client under its row lock: a status change between page and confirmation is shown, nothing confirmed', async () => {
    const client = await createClientWithToken(t, { company: 'Savonnerie Avant' });
    const email = `confirm2.${Date.now()}@operateur.example`;
    await nameOperator('Cam Confirm', email);
    const browser = await consoleSignIn(email);
    await request(t.url).patch(`/api/v1/admin/clients/${client.clientId}`).set(admin()).send({ company: 'Savonnerie Après' }).expect(200);
    const page = await browser.get(`/operator/clients/${client.clientId}/actions/confirm`);
    await request(t.url).post(`/api/v1/admin/clients/${client.clientId}/suspend`).set(admin()).send({}).expect(200);
    const stale = await browser.post(
      `/operator/clients/${client.clientId}/actions/confirm`,
      { version: versionOf(page.html) },
      { csrf: csrfOf(page.html) },
    );
    expect(stale.status).toBe(412);
    expect(stale.html).toContain('Suspendu');
    const view = (await request(t.url).get(`/api/v1/admin/clients/${client.clientId}`).set(admin())).body;
    expect([view.confirmed.company, view.unconfirmed_changes]).toEqual(['Savonnerie Avant', true]);
    const done = await browser.post(
      `/operator/clients/${client.clientId}/actions/confirm`,
      { version: versionOf(stale.html) },
      { csrf: csrfOf(stale.html) },
    );
    expect(done.status).toBe(303);
    expect((await request(t.url).get(`/api/v1/admin/clients/${client.clientId}`).set(admin())).body.confirmed.company).toBe(
      'Savonnerie Après',
    );
  });
});

describe('importing a checked file', () => {
  it('imports the file checked without choosing it again; an altered file, or one sealed for another session, is refused and nothing created', async () => {
    const email = `import2.${Date.now()}@operateur.example`;
    await nameOperator('Noa Sealed', email);
    const browser = await consoleSignIn(email);
    const stamp = Date.now();
    const good = `client_id;company;email\r\nseal-${stamp}-1;Un SAS;un.${stamp}@exemple.fr\r\nseal-${stamp}-2;Deux SAS;deux.${stamp}@exemple.fr\r\n`;
    const count = async () =>
      (await t.pool.query(`SELECT count(*)::int AS n FROM clients WHERE client_id LIKE $1`, [`seal-${stamp}-%`])).rows[0].n;
    const dry = await browser.upload('/operator/clients/import', { action: 'check' }, { name: 'clients.csv', content: good });
    expect(dry.status).toBe(200);
    expect(dry.html).toContain('Importer le fichier vérifié');
    const file = hidden(dry.html, 'file');
    const seal = hidden(dry.html, 'seal');
    expect(Buffer.from(file, 'base64url').toString('utf8')).toBe(good);
    expect(await count()).toBe(0);

    // Altered in the page: refused, nothing created.
    const altered = Buffer.from(good.replace('Deux SAS', 'Trois SAS')).toString('base64url');
    const tampered = await browser.post('/operator/clients/import/checked', { file: altered, seal }, { csrf: csrfOf(dry.html) });
    expect(tampered.status).toBe(422);
    expect(await count()).toBe(0);

    // Sealed for this session: another operator's session cannot bring it.
    const otherEmail = `import3.${Date.now()}@operateur.example`;
    await nameOperator('Other Operator', otherEmail);
    const other = await consoleSignIn(otherEmail);
    const otherPage = await other.get('/operator/clients/import');
    const foreign = await other.post('/operator/clients/import/checked', { file, seal }, { csrf: csrfOf(otherPage.html) });
    expect(foreign.status).toBe(422);
    expect(await count()).toBe(0);

    const applied = await browser.post('/operator/clients/import/checked', { file, seal }, { csrf: csrfOf(dry.html) });
    expect(applied.status).toBe(201);
    expect(applied.html).toContain(`seal-${stamp}-2`);
    const { rows } = await t.pool.query(`SELECT actor_name FROM audit_events WHERE action = 'client.created' AND client_id LIKE $1`, [
      `seal-${stamp}-%`,
    ]);
    expect(rows).toEqual([{ actor_name: 'Noa Sealed' }, { actor_name: 'Noa Sealed' }]);
    // The same file again: the service's rules refuse what exists already, all or nothing.
    const twice = await browser.post('/operator/clients/import/checked', { file, seal }, { csrf: csrfOf(dry.html) });
    expect(twice.status).toBe(422);
    expect(await count()).toBe(2);
  });
});

describe('the half-year export per eco-organism', () => {
  it('GET /admin/periods/{period}/export?eco_organism= keeps the streams set to it, spelled in any case and accents; the console downloads it', async () => {
    const stamp = Date.now();
    const citeo = await createClientWithToken(t, { client_id: `eco-c-${stamp}`, company: 'Citeo Client SAS' });
    const leko = await createClientWithToken(t, { client_id: `eco-l-${stamp}`, company: 'Leko Client SAS' });
    for (const [clientId, eco] of [
      [citeo.clientId, 'Citeo'],
      [leko.clientId, 'Léko'],
    ] as const) {
      await request(t.url)
        .put(`/api/v1/admin/clients/${clientId}/streams/EMB`)
        .set(admin())
        .send({ eco_organism: eco, liable_from: '2025-S1' })
        .expect(200);
    }
    for (const c of [citeo, leko]) {
      const res = await request(t.url)
        .post('/api/v1/declarations')
        .set({ authorization: `Bearer ${c.token}` })
        .send({ period: '2025-S2', lines: [{ stream: 'EMB', material: 'Verre', unit: 'uvc', quantity: 5 }] });
      expect(res.status).toBe(201);
    }
    const clientsOf = (body: { declarations: { client_id: string }[] }) =>
      body.declarations.map((d) => d.client_id).filter((id) => id.includes(`-${stamp}`));
    const all = await request(t.url).get('/api/v1/admin/periods/2025-S2/export').set(admin());
    expect(clientsOf(all.body).sort()).toEqual([citeo.clientId, leko.clientId].sort());
    const onlyLeko = await request(t.url).get('/api/v1/admin/periods/2025-S2/export?eco_organism=LEKO').set(admin());
    expect(onlyLeko.status).toBe(200);
    expect(clientsOf(onlyLeko.body)).toEqual([leko.clientId]);
    const csv = await request(t.url).get('/api/v1/admin/periods/2025-S2/export.csv?eco_organism=citeo').set(admin());
    expect(csv.status).toBe(200);
    expect(csv.headers['content-disposition']).toBe('attachment; filename="epr-declarations-2025-S2-Citeo.csv"');
    expect(csv.text).toContain(citeo.clientId);
    expect(csv.text).not.toContain(leko.clientId);

    const unknown = await request(t.url).get('/api/v1/admin/periods/2025-S2/export?eco_organism=Nobody').set(admin());
    expect([unknown.status, unknown.body.errors[0].code, unknown.body.errors[0].pointer]).toEqual([
      422,
      'unknown_eco_organism',
      '/query/eco_organism',
    ]);
    const withDetail = await request(t.url).get('/api/v1/admin/periods/2025-S2/export?eco_organism=Citeo&detail=products').set(admin());
    expect([withDetail.status, withDetail.body.errors[0].pointer]).toEqual([422, '/query/detail']);

    const email = `eco.${Date.now()}@operateur.example`;
    await nameOperator('Eco Export', email);
    const browser = await consoleSignIn(email);
    const tools = await browser.get('/operator/tools?period=2025-S2');
    expect(tools.html).toContain('/operator/exports/period/2025-S2?eco_organism=L%C3%A9ko');
    const download = await browser.get('/operator/exports/period/2025-S2?eco_organism=L%C3%A9ko');
    expect(download.status).toBe(200);
    expect(download.html).toContain(leko.clientId);
    expect(download.html).not.toContain(citeo.clientId);
    // The page's dialect: French Excel's (`;` between cells).
    expect(download.html.split('\n')[0]).toContain(';');
  });
});

describe('console sessions through the admin API', () => {
  it('lists the live console sessions and ends one, audited with who ended it; the browser is signed out', async () => {
    const email = `sessions.${Date.now()}@operateur.example`;
    const operator = await nameOperator('Sam Session', email);
    const browser = await consoleSignIn(email);
    const list = await request(t.url).get('/api/v1/admin/operator-sessions').set(admin());
    expect(list.status).toBe(200);
    const mine = list.body.filter((s: { operator_token_id: string }) => s.operator_token_id === operator.id);
    expect(mine).toEqual([
      {
        id: expect.any(String),
        operator_token_id: operator.id,
        name: 'Sam Session',
        created_at: expect.any(String),
        last_seen_at: expect.any(String),
        expires_at: expect.any(String),
      },
    ]);
    expect(JSON.stringify(list.body)).not.toContain('eprs_');
    // An operator token may end it too (another named operator, audited by name).
    const ender = await nameOperator('Ender', `ender.${Date.now()}@operateur.example`);
    const ended = await request(t.url)
      .delete(`/api/v1/admin/operator-sessions/${mine[0].id}`)
      .set({ authorization: `Bearer ${ender.token}` });
    expect(ended.status).toBe(204);
    const page = await browser.get('/operator');
    expect([page.status, page.location]).toEqual([303, '/operator/sign-in']);
    const after = await request(t.url).get('/api/v1/admin/operator-sessions').set(admin());
    expect(after.body.some((s: { id: string }) => s.id === mine[0].id)).toBe(false);
    const { rows } = await t.pool.query(`SELECT actor_name FROM audit_events WHERE action = 'operator_session.ended' AND target_id = $1`, [
      mine[0].id,
    ]);
    expect(rows).toEqual([{ actor_name: 'Ender' }]);
    // Again: a no-op; an unknown id: 404; a client token: refused.
    expect((await request(t.url).delete(`/api/v1/admin/operator-sessions/${mine[0].id}`).set(admin())).status).toBe(204);
    expect((await request(t.url).delete('/api/v1/admin/operator-sessions/00000000-0000-4000-8000-000000000000').set(admin())).status).toBe(
      404,
    );
    expect((await request(t.url).delete('/api/v1/admin/operator-sessions/not-a-uuid').set(admin())).status).toBe(404);
    const client = await createClientWithToken(t);
    const refused = await request(t.url)
      .get('/api/v1/admin/operator-sessions')
      .set({ authorization: `Bearer ${client.token}` });
    expect([401, 403]).toContain(refused.status);
  });
});
