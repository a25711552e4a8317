/**
 * A seller abroad in a real browser (Debian's Chromium driven by playwright-core): a Chinese-language
 * browser follows the English invitation e-mail's link to the dashboard of an account whose
 * language is English, files a declaration with English numbers and reaches its confirmation, every
 * page in English; the overview points a client without an IDU to the site's page on selling from abroad.
 */
import type { ParsedMail } from 'mailparser';
import type { Browser, Page } from 'playwright-core';
import request from 'supertest';
import { MESSAGES } from '../../src/i18n/messages/index.js';
import { axeViolations, launchChromium, overflow, watch } from '../support/browser.js';
import { type Mailbox, startMailbox } from '../support/mailbox.js';
import { ADMIN_TOKEN, startTestApp, type TestApp } from '../support/test-app.js';

let t: TestApp;
let browser: Browser;
let mailbox: Mailbox;

beforeAll(async () => {
  mailbox = await startMailbox();
  t = await startTestApp({ env: { SMTP_URL: mailbox.url, MAIL_FROM: 'operator@epr.example.org' } });
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
  await mailbox?.close();
});

const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
const en = MESSAGES.en;
const p = en.dashboardPages;
/** Words of the French catalogue a French page would show on these pages. */
const FRENCH = /Tableau de bord|Déclaration|déclaration|Continuer|semestre|Accusé|Identifiants uniques/;

/** The page is in English (no word of the French catalogue), passes axe (WCAG 2.1 AA) and fits the screen. */
async function englishPage(page: Page, what: string): Promise<string> {
  expect([what, await page.locator('html').getAttribute('lang')]).toEqual([what, 'en']);
  expect([what, await axeViolations(page), await overflow(page)]).toEqual([what, [], 0]);
  const text = await page.locator('main').innerText();
  expect([what, FRENCH.exec(text)?.[0] ?? null]).toEqual([what, null]);
  return text;
}

async function waitForMail(clientId: string): Promise<ParsedMail> {
  for (let i = 0; i < 100; i++) {
    const mail = mailbox.inbox.find((m) => m.text?.includes(clientId));
    if (mail) return mail;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('no invitation e-mail');
}

describe('a seller abroad, in English, in Chromium', () => {
  it('from the English invitation, with a Chinese browser, to a filed declaration’s confirmation: every page in English', async () => {
    const created = await request(t.url)
      .post('/api/v1/admin/clients')
      .set(admin)
      .send({ email: 'ops@cases.example.com', company: 'Shenzhen Cases Ltd', country: 'CN', plan: 'business', streams: ['EMB'], idus: [] });
    expect(created.status).toBe(201);
    const clientId = created.body.client_id as string;
    await request(t.url).post(`/api/v1/admin/clients/${clientId}/confirm`).set(admin).send({}).expect(200);
    await request(t.url).patch(`/api/v1/admin/clients/${clientId}`).set(admin).send({ language: 'en' }).expect(200);
    const invited = await request(t.url).post(`/api/v1/admin/clients/${clientId}/sign-in-links`).set(admin).send({ send: true });
    expect(invited.status).toBe(201);
    const mail = await waitForMail(clientId);
    expect(mail.subject).toBe('Your access to the EPR declarations dashboard of Shenzhen Cases Ltd');
    const link = /https?:\/\/\S+\/dashboard\/sign-in\/link\?\S+/.exec(mail.text ?? '')![0];
    expect(new URL(link).searchParams.get('lang')).toBe('en');

    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'zh-CN' });
    const page = await context.newPage();
    const problems = watch(page, new URL(t.url).origin);
    try {
      await page.goto(link.replace(t.config.publicBaseUrl, t.url));
      await englishPage(page, 'link');
      await page.getByRole('button', { name: en.dashboard.link.continue }).click();
      await page.waitForURL(`${t.url}/dashboard`);
      const overview = await englishPage(page, 'overview');
      expect(overview).toContain('Shenzhen Cases Ltd');
      // No IDU yet: what it is, and the way to get one.
      expect(overview).toContain(p.overview.noIdu);
      expect(await page.getByRole('link', { name: p.overview.noIduNext }).getAttribute('href')).toBe('/selling-from-abroad#idu');

      await page
        .getByRole('navigation', { name: en.dashboard.nav.label })
        .getByRole('link', { name: en.dashboard.nav.declarations })
        .click();
      await englishPage(page, 'declarations');
      await page.getByRole('link', { name: p.common.newDeclaration }).click();
      await englishPage(page, 'form');
      await page.locator('#period').fill('2025-S2');
      const line = (n: number, field: string) => page.getByLabel(`${p.form.lineNumber} ${n}, ${field}`);
      // Her one stream chosen; kg and UVC of the material side by side on one row.
      expect(await line(1, p.common.stream).inputValue()).toBe('EMB');
      await line(1, p.common.material).fill('Paper and cardboard');
      await line(1, p.form.quantityIn('kg')).fill('1,200.5');
      await line(1, p.form.quantityIn('UVC')).fill('20,000');
      await page.getByRole('button', { name: p.form.submit }).click();
      await page.locator('#statement').waitFor();
      const check = await englishPage(page, 'check');
      expect(check).toContain(p.check.first);
      expect(check).toContain('1,200.5 kg');
      await page.getByLabel(p.check.name).fill('Wei Zhang');
      await page.getByRole('button', { name: p.check.file }).click();
      await page.locator('#confirmation').waitFor();
      const confirmation = await englishPage(page, 'confirmation');
      expect(confirmation).toContain('Wei Zhang');
      expect(confirmation).toContain('20,000');
      const { rows } = await t.pool.query(
        `SELECT l.quantity::text AS q FROM declaration_lines l JOIN declarations d ON d.id = l.declaration_id WHERE d.client_id = $1 ORDER BY l.position`,
        [clientId],
      );
      expect(rows.map((r) => r.q)).toEqual(['1200.500', '20000.000']);

      // The page the overview points to, on the public site, in English too.
      await page.goto(`${t.url}/selling-from-abroad#idu`);
      expect(await page.locator('html').getAttribute('lang')).toBe('en');
      expect([await axeViolations(page), await overflow(page)]).toEqual([[], 0]);
      expect(await page.locator('#idu h2').innerText()).toContain('What is the IDU');
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
