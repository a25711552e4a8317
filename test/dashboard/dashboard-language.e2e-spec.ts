/**
 * The dashboard in French and English: the language of a page (`?lang=`, remembered;
 * else the browser's; else French), a switch on every page, every page's words from its own
 * catalogue only, and numbers typed as people write them.
 */
import { MESSAGES } from '../../src/i18n/messages/index.js';
import type { Language } from '../../src/i18n/language.js';
import request from 'supertest';
import { DashboardClient, signedIn, signInLink, formRows } from '../support/dashboard-browser.js';
import { createClient } from '../support/factories.js';
import { ADMIN_TOKEN, startTestApp, type TestApp } from '../support/test-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
}, 60_000);
afterAll(async () => {
  await t?.close();
});

/** The text a person reads on a page: its elements' text, tags and attributes left out, entities as characters. */
const textOf = (html: string) =>
  html
    .replace(/<(script|style|datalist)[\s\S]*?<\/\1>/g, ' ')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&amp;/g, '&')
    .replace(/&#39;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>');

/** The plain strings of the catalogue's dashboard sections and problem titles, long enough to be a sentence or a label of their own. */
function strings(language: Language): Set<string> {
  const out = new Set<string>();
  const walk = (value: unknown) => {
    if (typeof value === 'string') out.add(value);
    else if (value && typeof value === 'object') for (const child of Object.values(value)) walk(child);
  };
  const m = MESSAGES[language];
  walk([m.dashboard, m.dashboardPages, Object.values(m.problems).map((p) => p.title)]);
  return out;
}

/** The other language's strings that are not also this language's, at least 8 characters long. */
function foreign(language: Language): string[] {
  const own = strings(language);
  const other = strings(language === 'fr' ? 'en' : 'fr');
  return [...other].filter((text) => text.length >= 8 && !own.has(text) && ![...own].some((mine) => mine.includes(text)));
}

const langOf = (html: string) => /<html lang="(\w+)">/.exec(html)?.[1];
const form = (period: string, lines: Array<[string, string, string, string]>) => ({
  period,
  ...formRows(lines),
  action: 'submit',
});

describe('the language of a page', () => {
  it('is French by default, the browser’s when it prefers English, and ?lang= (remembered) over both', async () => {
    const none = new DashboardClient(t.url, null);
    const page = await none.get('/dashboard/sign-in');
    expect(langOf(page.html)).toBe('fr');
    expect(page.html).toContain(MESSAGES.fr.dashboard.signIn.lead);
    // The switch to the other language keeps the page.
    expect(page.html).toContain('href="/dashboard/sign-in?lang=en" hreflang="en" lang="en">English</a>');

    const english = await new DashboardClient(t.url, 'en-GB,en;q=0.9').get('/dashboard/sign-in');
    expect(langOf(english.html)).toBe('en');
    expect(english.html).toContain('href="/dashboard/sign-in?lang=fr" hreflang="fr" lang="fr">Français</a>');
    // A browser that reads none of the service's languages: English, not French.
    expect(langOf((await new DashboardClient(t.url, 'de-DE,de;q=0.9').get('/dashboard/sign-in')).html)).toBe('en');
    expect(langOf((await new DashboardClient(t.url, 'zh-CN,zh;q=0.9').get('/dashboard/sign-in')).html)).toBe('en');

    // The public site's link: French whatever the browser says, and remembered for the next pages.
    const browser = new DashboardClient(t.url, 'en-US,en;q=0.9');
    const chosen = await browser.get('/dashboard/sign-in?lang=fr');
    expect(langOf(chosen.html)).toBe('fr');
    expect(chosen.headers.getSetCookie().find((c) => c.startsWith('lang='))).toMatch(
      /^lang=fr; Max-Age=\d+; Path=\/; Expires=[^;]+; HttpOnly; SameSite=Lax$/,
    );
    expect(langOf((await browser.get('/dashboard/sign-in')).html)).toBe('fr');
    // Switching back is remembered too; a value that is not a language changes nothing.
    expect(langOf((await browser.get('/dashboard/sign-in?lang=en')).html)).toBe('en');
    expect(langOf((await browser.get('/dashboard/sign-in?lang=xx')).html)).toBe('en');
    expect(browser.cookies.get('lang')).toBe('en');
  });
});

describe('the language of a signed-in person', () => {
  const setLanguage = (clientId: string, language: Language) =>
    request(t.url).patch(`/api/v1/admin/clients/${clientId}`).set('authorization', `Bearer ${ADMIN_TOKEN}`).send({ language }).expect(200);

  it('is the account’s, whatever the browser prefers; the person’s switch overrides it and is remembered', async () => {
    const { clientId } = await createClient(t);
    await setLanguage(clientId, 'en');
    // A Chinese browser: the link's page (before sign-in) falls back to English; after it, the account's English.
    const chinese = new DashboardClient(t.url, 'zh-CN,zh;q=0.9');
    const link = await signInLink(t, clientId);
    const page = await chinese.get(new URL(link.url).pathname + new URL(link.url).search);
    expect(langOf(page.html)).toBe('en');
    expect(textOf(page.html)).toContain('Continue to the dashboard');
    expect((await chinese.signIn(link.url)).status).toBe(303);
    for (const path of ['/dashboard', '/dashboard/declarations/new', '/dashboard/tokens']) {
      expect([path, langOf((await chinese.get(path)).html)]).toEqual([path, 'en']);
    }
    expect((await chinese.get('/dashboard/declarations/template.csv')).html).toContain('stream,material,unit,quantity');

    // A French browser on an English account: English once signed in.
    const french = new DashboardClient(t.url, 'fr-FR,fr;q=0.9');
    expect((await french.signIn((await signInLink(t, clientId)).url)).status).toBe(303);
    expect(langOf((await french.get('/dashboard')).html)).toBe('en');
    // The switch: French, and French on the next pages.
    expect(langOf((await french.get('/dashboard?lang=fr')).html)).toBe('fr');
    expect(langOf((await french.get('/dashboard/declarations')).html)).toBe('fr');

    // The operator changes the account's language: it applies on the next page of a person who chose nothing.
    await setLanguage(clientId, 'fr');
    expect(langOf((await chinese.get('/dashboard')).html)).toBe('fr');
    expect(langOf((await french.get('/dashboard')).html)).toBe('fr');
  });
});

describe('every page in one language only', () => {
  it.each(['fr', 'en'] as const)('in %s, no page shows a message of the other language’s catalogue', async (language) => {
    const { clientId } = await createClient(t);
    const browser = await signedIn(t, clientId, language === 'fr' ? 'fr-FR,fr;q=0.9' : 'en-GB,en;q=0.9');
    // The check page (with a warning: an uncategorised material), then the declaration by name, then its confirmation.
    const check = await browser.post(
      '/dashboard/declarations',
      form('2025-S1', [
        ['EMB', 'Verre', 'kg', '1200,5'],
        ['EMB', 'Verre', 'uvc', '4800'],
        ['EMB', 'Plastique', 'kg', '3'],
        ['EMB', 'Plastique', 'uvc', '10'],
      ]),
    );
    expect(check.status).toBe(200);
    const stored = await browser.declare(check, 'Claire Martin');
    expect(stored.status).toBe(303);
    const created = await browser.post('/dashboard/tokens', { name: 'ERP' });
    expect(created.status).toBe(201);
    const tokenId = /href="\/dashboard\/tokens\/([0-9a-f-]{36})\/revoke"/.exec((await browser.get('/dashboard/tokens')).html)![1]!;
    const pages = {
      overview: await browser.get('/dashboard'),
      tokens: await browser.get('/dashboard/tokens'),
      tokenCreated: created,
      revoke: await browser.get(`/dashboard/tokens/${tokenId}/revoke`),
      declarations: await browser.get('/dashboard/declarations'),
      check,
      declaration: await browser.get(stored.location!),
      newForm: await browser.get('/dashboard/declarations/new'),
      formErrors: await browser.post(
        '/dashboard/declarations',
        form('2025-S9', [
          ['EMB', 'Verre', 'kg', '-5'],
          ['EMB', 'Verre', 'uvc', '1.200'],
        ]),
      ),
      uploadErrors: await browser.upload(
        '/dashboard/declarations/upload',
        { period: '2025-S2' },
        { name: 'ventes.csv', content: 'flux;matériau;unité;quantité\nEMB;Verre;kg;12 kg\n' },
      ),
      notFound: await browser.get('/dashboard/declarations/00000000-0000-4000-8000-000000000000'),
      signIn: await new DashboardClient(t.url, browser.language).get('/dashboard/sign-in'),
      link: await new DashboardClient(t.url, browser.language).get('/dashboard/sign-in/link?token=x'),
    };
    const words = foreign(language);
    expect(words.length).toBeGreaterThan(50);
    for (const [name, page] of Object.entries(pages)) {
      expect([name, langOf(page.html)]).toEqual([name, language]);
      const text = textOf(page.html);
      expect([name, words.filter((word) => text.includes(word))]).toEqual([name, []]);
      // Never JSON syntax, a pointer or a field's key shown to a person.
      expect([name, text.match(/\/(lines|rows|query)\/|\{"|quantity_not_a_number|number_ambiguous/g)]).toEqual([name, null]);
    }
    expect(pages.formErrors.status).toBe(422);
    expect(pages.uploadErrors.status).toBe(422);
    expect(pages.notFound.status).toBe(404);
    const own = MESSAGES[language];
    expect(textOf(pages.formErrors.html)).toContain(own.dashboard.errorSummary.title);
    expect(textOf(pages.notFound.html)).toContain(own.problems.not_found.explanation);
    if (language === 'fr') {
      // In French words and format: the quantity as a French reader writes it, the position in words.
      expect(textOf(pages.declaration.html)).toContain('1\u202f203,5\u202fkg');
      expect(textOf(pages.formErrors.html)).toContain('Ligne 1, quantité (UVC)\u00a0:');
      expect(textOf(pages.formErrors.html)).toContain('«\u00a01.200\u00a0» peut se lire 1200 ou 1,2');
      expect(textOf(pages.uploadErrors.html)).toContain('Ligne 2 du fichier, colonne quantité\u00a0:');
    } else {
      expect(textOf(pages.declaration.html)).toContain('1,203.5 kg');
      expect(textOf(pages.formErrors.html)).toContain('Line 1, quantity (UVC):');
    }
  });
});

describe('numbers as people write them, in the form', () => {
  it('"1 200,5" and "4 800" (no-break spaces too) are stored exactly; "1.200" alone is refused with both readings, nothing stored', async () => {
    const { clientId } = await createClient(t);
    const browser = await signedIn(t, clientId, 'fr');
    const check = await browser.post(
      '/dashboard/declarations',
      form('2024-S2', [
        ['EMB', 'Verre', 'kg', '1 200,5'],
        ['EMB', 'Verre', 'uvc', '4\u202f800'],
        ['EMB', 'Acier', 'kg', '1.250,125'],
        ['EMB', 'Acier', 'uvc', '12\u00a0000'],
      ]),
    );
    expect(check.status).toBe(200);
    const res = await browser.declare(check, 'Claire Martin');
    expect(res.status).toBe(303);
    const id = /\/dashboard\/declarations\/([0-9a-f-]{36})/.exec(res.location!)![1];
    const stored = await t.pool.query(`SELECT unit, quantity::text FROM declaration_lines WHERE declaration_id = $1 ORDER BY position`, [
      id,
    ]);
    expect(stored.rows).toEqual([
      { unit: 'kg', quantity: '1200.500' },
      { unit: 'uvc', quantity: '4800.000' },
      { unit: 'kg', quantity: '1250.125' },
      { unit: 'uvc', quantity: '12000.000' },
    ]);

    const before = (await t.pool.query(`SELECT count(*)::int AS n FROM declarations WHERE client_id = $1`, [clientId])).rows[0].n;
    const ambiguous = await browser.post(
      '/dashboard/declarations',
      form('2024-S1', [
        ['EMB', 'Verre', 'kg', '1.200'],
        ['EMB', 'Verre', 'uvc', '4800'],
      ]),
    );
    expect(ambiguous.status).toBe(422);
    expect(ambiguous.html).toContain('id="quantity_kg-0-error"');
    expect(textOf(ambiguous.html)).toContain('Écrivez 1200 dans le premier cas, 1,2 dans le second');
    expect(ambiguous.html).toContain('value="1.200"');
    expect((await t.pool.query(`SELECT count(*)::int AS n FROM declarations WHERE client_id = $1`, [clientId])).rows[0].n).toBe(before);
  });
});

describe('numbers as the English form’s hint says', () => {
  it('"20,000" and "1,200.5" are read as an English reader writes them, and filed', async () => {
    const { clientId } = await createClient(t);
    const browser = await signedIn(t, clientId, 'en-GB,en;q=0.9');
    const blank = await browser.get('/dashboard/declarations/new');
    expect(textOf(blank.html)).toContain('1,200.5');
    const check = await browser.post(
      '/dashboard/declarations',
      form('2024-S2', [
        ['EMB', 'Glass', 'kg', '1,200.5'],
        ['EMB', 'Glass', 'uvc', '20,000'],
        ['EMB', 'Steel', 'kg', '4,800'],
        ['EMB', 'Steel', 'uvc', '12000'],
      ]),
    );
    expect([check.status, textOf(check.html).match(/can be read as[^.]*/g)]).toEqual([200, null]);
    const res = await browser.declare(check, 'Wei Zhang');
    expect(res.status).toBe(303);
    const id = /\/dashboard\/declarations\/([0-9a-f-]{36})/.exec(res.location!)![1];
    const stored = await t.pool.query(`SELECT unit, quantity::text FROM declaration_lines WHERE declaration_id = $1 ORDER BY position`, [
      id,
    ]);
    expect(stored.rows).toEqual([
      { unit: 'kg', quantity: '1200.500' },
      { unit: 'uvc', quantity: '20000.000' },
      { unit: 'kg', quantity: '4800.000' },
      { unit: 'uvc', quantity: '12000.000' },
    ]);
  });
});
