/**
 * The client dashboard in a real browser (Debian's Chromium driven by playwright-core), with
 * axe-core for accessibility: the whole journey of the issue, then every page at 375 px and
 * 1280 px (no console error, no failed or foreign request, nothing wider than the screen, no
 * WCAG 2.1 AA violation), with full-page screenshots in test-results/screenshots/ when SCREENSHOTS=1.
 */
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import request from 'supertest';
import { axeViolations, launchChromium, overflow, screenshot, SCREENSHOTS, watch } from '../support/browser.js';
import { signInLink } from '../support/dashboard-browser.js';
import { MESSAGES } from '../../src/i18n/messages/index.js';
import { ADMIN_TOKEN, startTestApp, type TestApp } from '../support/test-app.js';

/** The line-by-line spreadsheet's section of « Nouvelle déclaration » (her per-product file has its own, above). */
const LINE_FILE = 'section[aria-labelledby="by-file"]';

let t: TestApp;
let browser: Browser;

beforeAll(async () => {
  t = await startTestApp();
  browser = await launchChromium();
  await mkdir(SCREENSHOTS, { recursive: true });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
});

const admin = () => ({ authorization: `Bearer ${ADMIN_TOKEN}` });

/**
 * The operator's part: a client created and confirmed through the admin API, and a sign-in link.
 * Once signed in, the dashboard speaks the account's language (the operator's choice): English
 * journeys onboard an English-speaking client.
 */
async function onboard(language: 'fr' | 'en' = 'fr'): Promise<{ clientId: string; url: string }> {
  const created = await request(t.url)
    .post('/api/v1/admin/clients')
    .set(admin())
    .send({
      email: 'achats@exemple.fr',
      company: 'Exemple Vins SAS',
      country: 'FR',
      plan: 'business',
      streams: ['EMB'],
      idus: ['FR123456_01ABCD'],
    });
  expect(created.status).toBe(201);
  const clientId = created.body.client_id as string;
  expect((await request(t.url).post(`/api/v1/admin/clients/${clientId}/confirm`).set(admin()).send({})).status).toBe(200);
  if (language === 'en') await request(t.url).patch(`/api/v1/admin/clients/${clientId}`).set(admin()).send({ language }).expect(200);
  const link = await signInLink(t, clientId);
  expect(link.status).toBe(201);
  return { clientId, url: link.url.replace(t.config.publicBaseUrl, t.url) };
}

/** The check page: the declaration by a named person, then the confirmation (or the unchanged notice). */
async function declareOnCheckPage(page: Page, p: (typeof MESSAGES)['fr']['dashboardPages'], name = 'Claire Martin'): Promise<void> {
  await page.locator('#statement').waitFor();
  await page.getByLabel(p.check.name).fill(name);
  await page.getByRole('button', { name: p.check.file }).click();
}

/** axe (WCAG 2.1 A and AA), the width check and a screenshot of the page as it is now. */
async function check(page: Page, name: string, width: number): Promise<string[]> {
  const problems = (await axeViolations(page)).map((line) => `${name}: ${line}`);
  const wider = await overflow(page);
  if (wider > 0) problems.push(`${name}: ${wider} px wider than the viewport`);
  await screenshot(page, `dashboard-${name}-${width}`);
  return problems;
}

describe('the dashboard in Chromium', () => {
  it('the journey in French: sign in, what is due, a form with “1 200,5” and a mistake, a CSV from French Excel, download and upload again, a token created and revoked', async () => {
    const fr = MESSAGES.fr;
    const p = fr.dashboardPages;
    const { clientId, url } = await onboard();
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true, locale: 'fr-FR' });
    const page = await context.newPage();
    const problems = watch(page, new URL(t.url).origin);
    try {
      await page.goto(url);
      await page.getByRole('button', { name: fr.dashboard.link.continue }).click();
      await page.waitForURL(`${t.url}/dashboard`);
      await expectHeading(page, p.overview.title);
      expect(await page.locator('html').getAttribute('lang')).toBe('fr');
      const overview = await page.locator('main').innerText();
      expect(overview).toContain('Exemple Vins SAS');
      expect(overview).toContain(p.overview.annual);

      // By form: French numbers, one mistake shown next to its field, then fixed.
      await frNav(page, fr.dashboard.nav.declarations).click();
      await page.getByRole('link', { name: p.common.newDeclaration }).click();
      await page.locator('#period').fill('2025-S1');
      // Her one stream is chosen; kg and UVC of a material side by side on one row.
      expect(await page.getByLabel(`${p.form.lineNumber} 1, ${p.common.stream}`).inputValue()).toBe('EMB');
      await page.getByLabel(`${p.form.lineNumber} 1, ${p.common.material}`).fill('Verre');
      await page.getByLabel(`${p.form.lineNumber} 1, ${p.form.quantityIn('kg')}`).fill('1 200,5');
      await page.getByLabel(`${p.form.lineNumber} 1, ${p.form.quantityIn('UVC')}`).fill('4 800,5');
      await page.getByRole('button', { name: p.form.submit }).click();
      expect(await page.locator('#quantity_uvc-0-error').innerText()).toContain('nombre entier');
      expect(await page.locator('#form-errors').innerText()).toContain('Ligne 1, quantité (UVC)');
      await page.getByLabel(`${p.form.lineNumber} 1, ${p.form.quantityIn('UVC')}`).fill('4 800');
      await page.getByRole('button', { name: p.form.submit }).click();
      // Checked, then declared by name: the confirmation with the receipt and who filed.
      expect(await page.locator('main').innerText()).toContain(p.check.first);
      await declareOnCheckPage(page, p);
      await page.locator('#confirmation').waitFor();
      expect(await page.locator('#confirmation').innerText()).toContain('Claire Martin');
      const main = await page.locator('main').innerText();
      expect(main).toContain('1\u202f200,5\u202fkg');
      const { rows: lines } = await t.pool.query(
        `SELECT l.quantity::text AS q FROM declaration_lines l JOIN declarations d ON d.id = l.declaration_id WHERE d.client_id = $1 AND d.period = '2025-S1' ORDER BY l.position`,
        [clientId],
      );
      expect(lines.map((r) => r.q)).toEqual(['1200.500', '4800.000']);

      // A file saved by French Excel: semicolons, decimal comma, no-break space thousands, Windows-1252.
      await frNav(page, fr.dashboard.nav.declarations).click();
      await page.getByRole('link', { name: p.common.newDeclaration }).click();
      await page.getByLabel(p.common.halfYear).last().fill('2025-S2');
      const excel = Buffer.from('flux;matériau;unité;quantité\r\nEMB;Verre;kg;1\u00a0250,5\r\nEMB;Verre;uvc;4\u00a0200\r\n', 'latin1');
      await page
        .locator(LINE_FILE)
        .getByLabel(p.form.file)
        .setInputFiles({ name: 'ventes-2025-S2.csv', mimeType: 'text/csv', buffer: excel });
      await page.locator(LINE_FILE).getByRole('button', { name: p.form.upload }).click();
      await declareOnCheckPage(page, p);
      await page.locator('#confirmation').waitFor();
      const receipt = await page.locator('dd code').first().innerText();
      expect(await page.locator('main').innerText()).toContain('1\u202f250,5\u202fkg');

      // Downloaded, then uploaded again unchanged: nothing new.
      const download = page.waitForEvent('download');
      await page.getByRole('link', { name: p.declaration.download }).click();
      const file = await download;
      const saved = join(SCREENSHOTS, `declaration-fr-${Date.now()}.csv`);
      await file.saveAs(saved);
      await frNav(page, fr.dashboard.nav.declarations).click();
      expect(await page.locator('main').innerText()).toContain(receipt);
      await page.getByRole('link', { name: p.common.newDeclaration }).click();
      await page.getByLabel(p.common.halfYear).last().fill('2025-S2');
      await page.locator(LINE_FILE).getByLabel(p.form.file).setInputFiles(saved);
      await page.locator(LINE_FILE).getByRole('button', { name: p.form.upload }).click();
      await declareOnCheckPage(page, p);
      await page.getByText(p.declaration.unchanged).waitFor();
      // In the French dialect, which French Excel opens as columns.
      expect((await readFile(saved, 'utf8')).startsWith('\ufefffilière;matériau;unité;quantité\r\nEMB;Verre;kg;"1250,5"\r\n')).toBe(true);

      // A file with a mistake: the page gives it back as an error report, a download in the file's dialect.
      await frNav(page, fr.dashboard.nav.declarations).click();
      await page.getByRole('link', { name: p.common.newDeclaration }).click();
      await page.getByLabel(p.common.halfYear).last().fill('2025-S2');
      await page
        .locator(LINE_FILE)
        .getByLabel(p.form.file)
        .setInputFiles({
          name: 'erreurs.csv',
          mimeType: 'text/csv',
          buffer: Buffer.from('flux;matériau;unité;quantité\r\nEMB;Verre;kg;12 kg\r\nEMB;Verre;uvc;4\u00a0200\r\n'),
        });
      await page.locator(LINE_FILE).getByRole('button', { name: p.form.upload }).click();
      const reportDownload = page.waitForEvent('download');
      await page.getByRole('link', { name: p.form.report }).click();
      const report = await reportDownload;
      expect(report.suggestedFilename()).toBe('rapport-erreurs-erreurs.csv');
      const reportPath = join(SCREENSHOTS, `rapport-erreurs-${Date.now()}.csv`);
      await report.saveAs(reportPath);
      expect(await readFile(reportPath, 'utf8')).toMatch(
        /^\ufeffligne;colonne;type;message;filière;matériau;unité;quantité\r\n2;quantité;erreur;[^\r\n]+;EMB;Verre;kg;12 kg\r\n$/,
      );

      // A token created and revoked: the API takes it, then refuses it.
      await softwareCorner(page, 'fr').click();
      await page.getByLabel(p.tokens.name).fill('ERP production');
      await page.getByRole('button', { name: p.tokens.submit }).click();
      await expectHeading(page, p.tokens.createdTitle);
      const token = await page.locator('#secret').inputValue();
      expect((await request(t.url).get('/api/v1/me').set('authorization', `Bearer ${token}`)).status).toBe(200);
      await softwareCorner(page, 'fr').click();
      await page.getByRole('link', { name: new RegExp(p.tokens.revoke) }).click();
      await page.getByRole('button', { name: p.tokens.revokeSubmit }).click();
      await page.getByText(/est révoqué/).waitFor();
      expect((await request(t.url).get('/api/v1/me').set('authorization', `Bearer ${token}`)).status).toBe(401);

      // A test token, chosen on the form by its label, and told apart in the list at a glance.
      await page.getByLabel(p.tokens.name, { exact: true }).fill('ERP recette');
      await page.getByLabel(p.tokens.modeNames.test).check();
      await page.getByRole('button', { name: p.tokens.submit }).click();
      expect(await page.locator('#secret').inputValue()).toMatch(/^eprt_/);
      await softwareCorner(page, 'fr').click();
      expect(await page.locator('.card', { hasText: 'ERP recette' }).locator('.badge').innerText()).toBe(p.tokens.modeBadges.test);

      // The switch: the same page in English, remembered.
      await page.getByRole('link', { name: 'English' }).click();
      await expectHeading(page, MESSAGES.en.dashboardPages.tokens.title);
      await page.goto(`${t.url}/dashboard`);
      expect(await page.locator('html').getAttribute('lang')).toBe('en');
    } finally {
      await context.close();
    }
    expect(problems.filter((p) => !/status of 422/.test(p))).toEqual([]);
  }, 360_000);

  it('the journey in English: sign in with the operator’s link, create a token the API accepts, upload a spreadsheet, revoke, sign out', async () => {
    const { clientId, url } = await onboard('en');
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true, locale: 'en-GB' });
    const page = await context.newPage();
    const problems = watch(page, new URL(t.url).origin);
    try {
      await page.goto(url);
      await page.getByRole('button', { name: 'Continue to the dashboard' }).click();
      await page.waitForURL(`${t.url}/dashboard`);
      await expectHeading(page, 'Overview');
      expect(await page.locator('main').innerText()).toContain('Exemple Vins SAS');
      // What is due: the stream's half-years, none declared yet.
      expect(await page.locator('#stream-EMB').count()).toBe(1);

      // A token, shown once, copied with the button (the script of the page), works on the API.
      await softwareCorner(page, 'en').click();
      await page.getByLabel('Name').fill('ERP production');
      await page.getByRole('button', { name: 'Create token' }).click();
      await expectHeading(page, 'Token created');
      const token = await page.locator('#secret').inputValue();
      expect(token).toMatch(/^eprc_[0-9A-Za-z]{32}_[0-9A-Za-z]{6}$/);
      await context.grantPermissions(['clipboard-read', 'clipboard-write']);
      await page.getByRole('button', { name: 'Copy' }).click();
      await page.getByText('Copied to the clipboard.').waitFor();
      const me = await request(t.url).get('/api/v1/me').set('authorization', `Bearer ${token}`);
      expect(me.status).toBe(200);
      expect(me.body.client_id).toBe(clientId);

      // A spreadsheet upload, then the declaration in the list and its page.
      await nav(page, 'Declarations').click();
      await page.getByRole('link', { name: 'New declaration' }).click();
      await page.getByLabel('Half-year').last().fill('2025-S2');
      await page.getByLabel('CSV file').setInputFiles({
        name: 'ventes-2025-S2.csv',
        mimeType: 'text/csv',
        buffer: Buffer.from('flux;matériau;unité;quantité\r\nEMB;Verre;kg;1250,5\r\nEMB;Verre;uvc;4200\r\n', 'latin1'),
      });
      await page.locator(LINE_FILE).getByRole('button', { name: 'Upload and check' }).click();
      await declareOnCheckPage(page, MESSAGES.en.dashboardPages, 'John Smith');
      await page.getByText('Declaration filed').first().waitFor();
      const receipt = await page.locator('dd code').first().innerText();
      await page.getByRole('link', { name: 'All declarations' }).click();
      expect(await page.locator('main').innerText()).toContain(receipt);
      const download = page.waitForEvent('download');
      await page.getByRole('link', { name: '2025-S2' }).click();
      await page.getByRole('link', { name: 'Download as CSV' }).click();
      expect((await download).suggestedFilename()).toBe('declaration-2025-S2-r1.csv');

      // Revoked: the API refuses the token at once.
      await softwareCorner(page, 'en').click();
      await page.getByRole('link', { name: /Revoke/ }).click();
      await page.getByRole('button', { name: 'Revoke token' }).click();
      await page.getByText(/is revoked: it no longer works/).waitFor();
      expect((await request(t.url).get('/api/v1/me').set('authorization', `Bearer ${token}`)).status).toBe(401);

      // Signed out: the session is over, the dashboard sends to sign-in, and the used link is spent.
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByText('You are signed out.').waitFor();
      await page.goto(`${t.url}/dashboard`);
      await expectHeading(page, 'Sign in');
      const { rows } = await t.pool.query(
        `SELECT count(*)::int AS live FROM dashboard_sessions WHERE client_id = $1 AND ended_at IS NULL`,
        [clientId],
      );
      expect(rows[0].live).toBe(0);
      await page.goto(url);
      await page.getByRole('button', { name: 'Continue to the dashboard' }).click();
      await page.getByText('This sign-in link does not work').waitFor();
    } finally {
      await context.close();
    }
    expect(problems.filter((p) => !/status of 400/.test(p))).toEqual([]);
  }, 300_000);

  // The pages of both languages are one template with other words: every page in French (the longer words)
  // at both widths, and in English where its words could overflow, at 375 px (the 1280 px layout gives every
  // column more room; what axe reads of the layout at 1280 px is the French run's).
  for (const [language, width] of [
    ['fr', 375],
    ['fr', 1280],
    ['en', 375],
  ] as const) {
    it(`every page in ${language} at ${width} px: no WCAG 2.1 AA violation, nothing wider than the screen, no error`, async () => {
      const m = MESSAGES[language];
      const p = m.dashboardPages;
      const line = (n: number, field: string) => `${p.form.lineNumber} ${n}, ${field}`;
      const { url } = await onboard(language);
      const context: BrowserContext = await browser.newContext({
        viewport: { width, height: 800 },
        locale: language === 'fr' ? 'fr-FR' : 'en-GB',
      });
      const page = await context.newPage();
      const problems = watch(page, new URL(t.url).origin);
      const shot = (name: string) => check(page, `${language}-${name}`, width);
      try {
        await page.goto(`${t.url}/dashboard/sign-in`);
        expect(await page.locator('html').getAttribute('lang')).toBe(language);
        problems.push(...(await shot('sign-in')));
        await page.goto(url);
        problems.push(...(await shot('sign-in-link')));
        await page.getByRole('button', { name: m.dashboard.link.continue }).click();
        await page.waitForURL(`${t.url}/dashboard`);
        problems.push(...(await shot('overview')));

        await page.goto(`${t.url}/dashboard/tokens`);
        await page.getByRole('button', { name: p.tokens.submit }).click(); // no name: the 422 with its error
        problems.push(...(await shot('tokens-error')));
        await page.getByLabel(p.tokens.name, { exact: true }).fill('Marketplace');
        await page.getByLabel(p.tokens.expires).fill(`${new Date().getUTCFullYear() + 1}-06-30`);
        await page.getByRole('button', { name: p.tokens.submit }).click();
        problems.push(...(await shot('token-created')));
        await page.goto(`${t.url}/dashboard/tokens`);
        problems.push(...(await shot('tokens')));
        await page.getByRole('link', { name: new RegExp(p.tokens.revoke) }).click();
        problems.push(...(await shot('token-revoke')));

        await page.goto(`${t.url}/dashboard/declarations/new`);
        problems.push(...(await shot('declaration-new')));
        // A form with mistakes: every problem next to its field.
        await page.locator('#period').fill('2025-S1');
        await page.getByLabel(line(1, p.common.material)).fill('Verre');
        await page.getByLabel(line(1, p.form.quantityIn('kg'))).fill('-5');
        await page.getByRole('button', { name: p.form.submit }).click();
        expect(await page.locator('#quantity_kg-0-error').innerText()).toContain(language === 'fr' ? 'négative' : 'negative');
        problems.push(...(await shot('declaration-errors')));
        await page.getByLabel(line(1, p.form.quantityIn('kg'))).fill(language === 'fr' ? '1 212,5' : '1,212.5');
        // "Add a line" comes back at the new row, focused, not at the top of the page.
        await page.getByRole('button', { name: p.form.add }).click();
        await page.locator('#row-8').waitFor();
        expect(await page.evaluate<string>('document.activeElement.id')).toBe('material-8');
        // In view: the page came back at the new row, whatever the screen's height.
        expect(
          await page.evaluate<boolean>(
            '(() => { const r = document.activeElement.getBoundingClientRect(); return r.top >= 0 && r.bottom <= window.innerHeight; })()',
          ),
        ).toBe(true);
        await page.getByLabel(line(1, p.form.quantityIn('UVC'))).fill('300');
        await page.getByRole('button', { name: p.form.submit }).click();
        await page.locator('#statement').waitFor();
        problems.push(...(await shot('declaration-check')));
        // Declared without a name: the 422 with its error next to the field.
        await page.getByRole('button', { name: p.check.file }).click();
        await page.locator('#name-error').waitFor();
        problems.push(...(await shot('declaration-check-error')));
        await declareOnCheckPage(page, p);
        await page.locator('#confirmation').waitFor();
        problems.push(...(await shot('declaration')));
        await page.goto(`${t.url}/dashboard/declarations`);
        problems.push(...(await shot('declarations')));
        await page.goto(`${t.url}/dashboard/declarations/00000000-0000-4000-8000-000000000000`);
        expect(await page.locator('main').innerText()).toContain(m.problems.not_found.explanation);
        problems.push(...(await shot('not-found')));
      } finally {
        await context.close();
      }
      // The 422s and the 404 shown on purpose are the pages' own status, not failures of the page.
      expect(problems.filter((p) => !/status of (404|422)/.test(p))).toEqual([]);
    }, 360_000);
  }

  it('works without JavaScript: signing in and creating a token (the copy button stays hidden)', async () => {
    const { url } = await onboard('en');
    const context = await browser.newContext({ javaScriptEnabled: false, locale: 'en-GB' });
    const page = await context.newPage();
    try {
      await page.goto(url);
      await page.getByRole('button', { name: 'Continue to the dashboard' }).click();
      await expectHeading(page, 'Overview');
      await page.goto(`${t.url}/dashboard/tokens`);
      await page.getByLabel('Name').fill('No script');
      await page.getByRole('button', { name: 'Create token' }).click();
      expect(await page.locator('#secret').inputValue()).toMatch(/^eprc_/);
      expect(await page.getByRole('button', { name: 'Copy' }).count()).toBe(0);
    } finally {
      await context.close();
    }
  }, 60_000);
});

/** A link of the dashboard's navigation. */
const nav = (page: Page, name: string) => page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name });
/** The header's « Pour votre logiciel » corner: the API tokens, out of the main menu. */
const softwareCorner = (page: Page, language: 'fr' | 'en') =>
  page.getByRole('banner').getByRole('link', { name: MESSAGES[language].dashboard.software, exact: true });

const frNav = (page: Page, name: string) =>
  page.getByRole('navigation', { name: MESSAGES.fr.dashboard.nav.label }).getByRole('link', { name });

async function expectHeading(page: Page, text: string): Promise<void> {
  await page.locator('main h1', { hasText: text }).waitFor();
}
