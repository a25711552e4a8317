/**
 * The client dashboard in a real browser (Debian's Chromium driven by playwright-core), with
 * axe-core for accessibility: the whole journey of the issue, then every page at 375 px and
 * 1280 px (no console error, no failed or foreign request, nothing wider than the screen, no
 * WCAG 2.1 AA violation), with full-page screenshots kept in test-results/screenshots/.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import request from 'supertest';
import { REPO_ROOT } from '../../src/common/repo-root.js';
import { axeViolations, launchChromium, overflow, watch } from '../support/browser.js';
import { signInLink } from '../support/dashboard-browser.js';
import { ADMIN_TOKEN, startTestApp, type TestApp } from '../support/test-app.js';

const SCREENSHOTS = join(REPO_ROOT, 'test-results', 'screenshots');

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

/** The operator's part: a client created and confirmed through the admin API, and a sign-in link. */
async function onboard(): Promise<{ clientId: string; url: string }> {
  const created = await request(t.url)
    .post('/api/v1/admin/clients')
    .set(admin())
    .send({ email: 'achats@exemple.fr', company: 'Exemple Vins SAS', country: 'FR', plan: 'business', streams: ['EMB'], idus: ['FR123456_01ABCD'] });
  expect(created.status).toBe(201);
  const clientId = created.body.client_id as string;
  expect((await request(t.url).post(`/api/v1/admin/clients/${clientId}/confirm`).set(admin()).send({})).status).toBe(200);
  const link = await signInLink(t, clientId);
  expect(link.status).toBe(201);
  return { clientId, url: link.url.replace(t.config.publicBaseUrl, t.url) };
}

/** axe (WCAG 2.1 A and AA), the width check and a screenshot of the page as it is now. */
async function check(page: Page, name: string, width: number): Promise<string[]> {
  const problems = (await axeViolations(page)).map((line) => `${name}: ${line}`);
  const wider = await overflow(page);
  if (wider > 0) problems.push(`${name}: ${wider} px wider than the viewport`);
  await page.screenshot({ path: join(SCREENSHOTS, `dashboard-${name}-${width}.png`), fullPage: true });
  return problems;
}

describe('the dashboard in Chromium', () => {
  it('the journey: sign in with the operator’s link, create a token the API accepts, upload a spreadsheet, revoke, sign out', async () => {
    const { clientId, url } = await onboard();
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
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
      await nav(page, 'API tokens').click();
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
      await page.getByLabel('CSV file').setInputFiles({ name: 'ventes-2025-S2.csv', mimeType: 'text/csv', buffer: Buffer.from('flux;matériau;unité;quantité\r\nEMB;Verre;kg;1250,5\r\nEMB;Verre;uvc;4200\r\n', 'latin1') });
      await page.getByRole('button', { name: 'Upload and submit' }).click();
      await page.getByText('Declaration stored: revision 1').waitFor();
      const receipt = await page.locator('dd code').first().innerText();
      await page.getByRole('link', { name: 'All declarations' }).click();
      expect(await page.locator('main').innerText()).toContain(receipt);
      const download = page.waitForEvent('download');
      await page.getByRole('link', { name: '2025-S2' }).click();
      await page.getByRole('link', { name: 'Download as CSV' }).click();
      expect((await download).suggestedFilename()).toBe('declaration-2025-S2-r1.csv');

      // Revoked: the API refuses the token at once.
      await nav(page, 'API tokens').click();
      await page.getByRole('link', { name: /Revoke/ }).click();
      await page.getByRole('button', { name: 'Revoke token' }).click();
      await page.getByText(/is revoked: it no longer works/).waitFor();
      expect((await request(t.url).get('/api/v1/me').set('authorization', `Bearer ${token}`)).status).toBe(401);

      // Signed out: the session is over, the dashboard sends to sign-in, and the used link is spent.
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByText('You are signed out.').waitFor();
      await page.goto(`${t.url}/dashboard`);
      await expectHeading(page, 'Sign in');
      const { rows } = await t.pool.query(`SELECT count(*)::int AS live FROM dashboard_sessions WHERE client_id = $1 AND ended_at IS NULL`, [clientId]);
      expect(rows[0].live).toBe(0);
      await page.goto(url);
      await page.getByRole('button', { name: 'Continue to the dashboard' }).click();
      await page.getByText('This sign-in link does not work').waitFor();
    } finally {
      await context.close();
    }
    expect(problems.filter((p) => !/status of 400/.test(p))).toEqual([]);
  }, 120_000);

  for (const width of [375, 1280] as const) {
    it(`every page at ${width} px: no WCAG 2.1 AA violation, nothing wider than the screen, no error`, async () => {
      const { url } = await onboard();
      const context: BrowserContext = await browser.newContext({ viewport: { width, height: 800 } });
      const page = await context.newPage();
      const problems = watch(page, new URL(t.url).origin);
      try {
        await page.goto(`${t.url}/dashboard/sign-in`);
        problems.push(...(await check(page, 'sign-in', width)));
        await page.goto(url);
        problems.push(...(await check(page, 'sign-in-link', width)));
        await page.getByRole('button', { name: 'Continue to the dashboard' }).click();
        await page.waitForURL(`${t.url}/dashboard`);
        problems.push(...(await check(page, 'overview', width)));

        await page.goto(`${t.url}/dashboard/tokens`);
        await page.getByRole('button', { name: 'Create token' }).click(); // no name: the 422 with its error
        problems.push(...(await check(page, 'tokens-error', width)));
        await page.getByLabel('Name').fill('Marketplace');
        await page.getByLabel('Expires on (optional)').fill(`${new Date().getUTCFullYear() + 1}-06-30`);
        await page.getByRole('button', { name: 'Create token' }).click();
        problems.push(...(await check(page, 'token-created', width)));
        await page.goto(`${t.url}/dashboard/tokens`);
        problems.push(...(await check(page, 'tokens', width)));
        await page.getByRole('link', { name: /Revoke/ }).click();
        problems.push(...(await check(page, 'token-revoke', width)));

        await page.goto(`${t.url}/dashboard/declarations/new`);
        problems.push(...(await check(page, 'declaration-new', width)));
        // A form with mistakes: every problem next to its field.
        await page.getByLabel('Half-year').first().fill('2025-S1');
        await page.getByLabel('Line 1, stream').selectOption('EMB');
        await page.getByLabel('Line 1, material').fill('Verre');
        await page.getByLabel('Line 1, unit').selectOption('kg');
        await page.getByLabel('Line 1, quantity').fill('-5');
        await page.getByRole('button', { name: 'Submit declaration' }).click();
        expect(await page.locator('#quantity-0-error').innerText()).toContain('negative');
        problems.push(...(await check(page, 'declaration-errors', width)));
        await page.getByLabel('Line 1, quantity').fill('12,5');
        await page.getByRole('button', { name: 'Add a line' }).click();
        await page.getByLabel('Line 2, stream').selectOption('EMB');
        await page.getByLabel('Line 2, material').fill('Verre');
        await page.getByLabel('Line 2, unit').selectOption('uvc');
        await page.getByLabel('Line 2, quantity').fill('300');
        await page.getByRole('button', { name: 'Submit declaration' }).click();
        await page.getByText('Declaration stored: revision 1').waitFor();
        problems.push(...(await check(page, 'declaration', width)));
        await page.goto(`${t.url}/dashboard/declarations`);
        problems.push(...(await check(page, 'declarations', width)));
        await page.goto(`${t.url}/dashboard/declarations/00000000-0000-4000-8000-000000000000`);
        expect(await page.locator('main').innerText()).toContain('Declaration was not found.');
        problems.push(...(await check(page, 'not-found', width)));
      } finally {
        await context.close();
      }
      // The 422s and the 404 shown on purpose are the pages' own status, not failures of the page.
      expect(problems.filter((p) => !/status of (404|422)/.test(p))).toEqual([]);
    }, 180_000);
  }

  it('works without JavaScript: signing in and creating a token (the copy button stays hidden)', async () => {
    const { url } = await onboard();
    const context = await browser.newContext({ javaScriptEnabled: false });
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

async function expectHeading(page: Page, text: string): Promise<void> {
  await page.locator('main h1', { hasText: text }).waitFor();
}
