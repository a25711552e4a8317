/**
 * Test tokens, the dashboard's half: a client's people make a test token as well as a live one, see
 * each token's mode at a glance, and every page that shows the client's data says it is the live
 * data and points to the test environment. Through HTTP, against the real app on PostgreSQL.
 */
import request from 'supertest';
import { MESSAGES } from '../../src/i18n/messages/index.js';
import { signedIn } from '../support/dashboard-browser.js';
import { createClient } from '../support/factories.js';
import { ADMIN_TOKEN, startTestApp, type TestApp } from '../support/test-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
}, 60_000);
afterAll(async () => {
  await t?.close();
});

const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const GLASS = (kg: number, uvc: number) => [
  { stream: 'EMB', material: 'glass', unit: 'kg', quantity: kg },
  { stream: 'EMB', material: 'glass', unit: 'uvc', quantity: uvc },
];
const secretOf = (html: string) => /value="(epr[ct]_[0-9A-Za-z]{32}_[0-9A-Za-z]{6})"/.exec(html)?.[1];
/** The list's card of the token named `name`. */
const cardOf = (html: string, name: string) =>
  html.split('<li class="card">').find((card) => card.includes(`<h3 class="card-title">${name} `));
const en = MESSAGES.en.dashboardPages;
const fr = MESSAGES.fr.dashboardPages;
const enFrame = MESSAGES.en.dashboard;

describe('a test token from the dashboard', () => {
  it('is an eprt_ token of the client’s sandbox, shown as such, audited with its mode; a live one still the default', async () => {
    const { clientId } = await createClient(t);
    const browser = await signedIn(t, clientId);
    const form = await browser.get('/dashboard/tokens');
    // The choice, live checked unless the person picks test.
    expect(form.html).toContain('<input type="radio" id="mode-live" name="mode" value="live" checked');
    expect(form.html).toContain('<input type="radio" id="mode-test" name="mode" value="test" aria-describedby');
    expect(form.html).toContain(en.tokens.modeHints.test);

    const created = await browser.post('/dashboard/tokens', { name: 'ERP recette', mode: 'test', expires: '' });
    expect(created.status).toBe(201);
    const secret = secretOf(created.html)!;
    expect(secret).toMatch(/^eprt_/);
    expect(created.html).toContain(en.tokens.createdTest);
    expect(created.html).toContain('/api/v1/test-data');

    // It works on the API, on the sandbox: what it files is a test declaration the dashboard does not show.
    expect((await request(t.url).get('/api/v1/me').set(bearer(secret))).status).toBe(200);
    const filed = await request(t.url)
      .post('/api/v1/declarations')
      .set(bearer(secret))
      .send({ period: '2025-S1', lines: GLASS(10, 40) });
    expect(filed.status).toBe(201);
    expect(filed.body.mode).toBe('test');

    const live = await browser.post('/dashboard/tokens', { name: 'ERP production', mode: 'live' });
    expect(live.status).toBe(201);
    expect(secretOf(live.html)).toMatch(/^eprc_/);
    expect(live.html).toContain(en.tokens.createdLive);
    const unsaid = await browser.post('/dashboard/tokens', { name: 'Older form' });
    expect(secretOf(unsaid.html)).toMatch(/^eprc_/);

    // The list: each token's mode at a glance (a badge in its title) and in words.
    const list = await browser.get('/dashboard/tokens');
    expect(cardOf(list.html, 'ERP recette')).toContain(`<span class="badge badge-test">${en.tokens.modeBadges.test}</span>`);
    expect(cardOf(list.html, 'ERP recette')).toContain(`<dd>${en.tokens.modeNames.test}</dd>`);
    expect(cardOf(list.html, 'ERP production')).toContain(`<span class="badge badge-live">${en.tokens.modeBadges.live}</span>`);
    expect(cardOf(list.html, 'ERP production')).toContain(`<dd>${en.tokens.modeNames.live}</dd>`);
    expect(list.html).not.toContain(secret);

    // The operator sees the same tokens with their modes; the audit records the mode and who made it.
    const tokens = await request(t.url).get(`/api/v1/admin/clients/${clientId}/tokens`).set(admin);
    const byName = Object.fromEntries(
      (tokens.body as Array<{ name: string; mode: string; created_via: string; id: string }>).map((tok) => [tok.name, tok]),
    );
    expect(byName['ERP recette']).toMatchObject({ mode: 'test', created_via: 'dashboard' });
    expect(byName['ERP production']).toMatchObject({ mode: 'live', created_via: 'dashboard' });
    const audit = await request(t.url).get(`/api/v1/admin/audit?client_id=${clientId}&action=token.issued`).set(admin);
    const issued = (audit.body.data as Array<{ target: { id: string }; actor: { type: string }; changes: { mode: string } }>).find(
      (e) => e.target.id === byName['ERP recette']!.id,
    );
    expect(issued).toMatchObject({ actor: { type: 'client' }, changes: { mode: 'test', created_via: 'dashboard' } });
    expect(JSON.stringify(audit.body)).not.toContain(secret);
  });

  it('refuses a mode that is neither live nor test, next to its field (422), and creates nothing', async () => {
    const { clientId } = await createClient(t);
    const browser = await signedIn(t, clientId);
    const res = await browser.post('/dashboard/tokens', { name: 'ERP', mode: 'sandbox' });
    expect(res.status).toBe(422);
    expect(res.html).toContain(`<p class="error" id="mode-error">${en.tokens.modeError}</p>`);
    expect(res.html).toContain('aria-describedby="mode-error"');
    // What the person typed is kept; the choice falls back to live.
    expect(res.html).toContain('value="ERP"');
    expect(res.html).toContain('id="mode-live" name="mode" value="live" checked');
    expect((await t.pool.query(`SELECT count(*)::int AS n FROM client_tokens WHERE client_id = $1`, [clientId])).rows[0].n).toBe(0);
  });
});

describe('the dashboard says which data it shows', () => {
  it('the live data said at the foot of every page that shows declarations or products; the test material on the tokens page only; never a test declaration', async () => {
    const { clientId } = await createClient(t);
    const browser = await signedIn(t, clientId);
    const test = secretOf((await browser.post('/dashboard/tokens', { name: 'ERP recette', mode: 'test' })).html)!;
    const filed = await request(t.url)
      .post('/api/v1/declarations')
      .set(bearer(test))
      .send({ period: '2025-S1', lines: GLASS(10, 40) });
    expect(filed.status).toBe(201);

    for (const path of ['/dashboard', '/dashboard/declarations', '/dashboard/declarations/new', '/dashboard/products']) {
      const page = await browser.get(path);
      expect([path, page.status]).toEqual([path, 200]);
      const main = page.html.slice(page.html.indexOf('<main'), page.html.indexOf('</main>'));
      // Said after the page's own content, not before it.
      expect([path, main.indexOf(en.common.liveDataText) > main.indexOf('</h1>') + 200]).toEqual([path, true]);
      expect([path, main.includes(en.common.createTestToken), main.includes('#sandbox')]).toEqual([path, false, false]);
      // The developer material is one click away, in the header's corner, not in the main menu.
      expect([path, page.html.includes(`<a class="software-link" href="/dashboard/tokens">${enFrame.software}</a>`)]).toEqual([path, true]);
      const nav = page.html.slice(page.html.indexOf('<nav'), page.html.indexOf('</nav>'));
      expect([path, nav.includes('/dashboard/tokens')]).toEqual([path, false]);
    }
    const declarations = await browser.get('/dashboard/declarations');
    expect(declarations.html).not.toContain(filed.body.id);
    expect(declarations.html).toContain(en.declarations.none);
    expect((await browser.get(`/dashboard/declarations/${filed.body.id}`)).status).toBe(404);
    // The tokens page is about both kinds of token: no live-data note there, the test environment explained.
    const tokens = (await browser.get('/dashboard/tokens')).html;
    expect(tokens).not.toContain(en.common.liveDataText);
    expect(tokens).toContain(`<a class="software-link" href="/dashboard/tokens" aria-current="page">${enFrame.software}</a>`);
    expect(tokens).toContain(en.tokens.testHeading);
    expect(tokens).toContain(`<a href="#mode-test">${en.common.createTestToken}</a>`);
    expect(tokens).toContain('href="/developers#sandbox"');
  });

  it('in French: « jeton de test », « jeton réel (production) », « Données réelles » and the French developers’ page', async () => {
    const { clientId } = await createClient(t);
    const browser = await signedIn(t, clientId, 'fr-FR,fr;q=0.9');
    const created = await browser.post('/dashboard/tokens', { name: 'ERP recette', mode: 'test' });
    expect(created.status).toBe(201);
    expect(created.html).toContain(fr.tokens.createdTest);
    const list = await browser.get('/dashboard/tokens');
    expect(list.html).toContain('<label for="mode-test">Jeton de test</label>');
    expect(list.html).toContain('<label for="mode-live">Jeton réel (production)</label>');
    expect(cardOf(list.html, 'ERP recette')).toContain('<span class="badge badge-test">Test</span>');
    const overview = await browser.get('/dashboard');
    expect(overview.html).toContain('<strong>Données réelles.</strong>');
    expect(overview.html).toContain(fr.common.liveDataText);
    expect(overview.html).toContain('>Pour votre logiciel</a>');
    expect(list.html).toContain('href="/fr/developers#sandbox"');
  });
});
