/**
 * The product pages of the dashboard in Chromium, in French (the browser's language): upload a
 * catalogue (first with a mistake, reported by row and column), see the products with their
 * packaging, upload a half-year's sales, look at the derived declaration, file it. axe-core
 * (WCAG 2.1 A and AA) and the width check on each page; screenshots in test-results/screenshots/.
 */
import { mkdir } from 'node:fs/promises';
import { jest } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import { Clock } from '../../src/calendar/clock.js';
import { axeViolations, launchChromium, overflow, screenshot, SCREENSHOTS, watch } from '../support/browser.js';
import { signedIn } from '../support/dashboard-browser.js';
import { createClient } from '../support/factories.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

let t: TestApp;
let browser: Browser;

beforeAll(async () => {
  t = await startTestApp();
  jest.spyOn(t.app.get(Clock), 'now').mockImplementation(() => new Date('2026-09-15T10:00:00Z'));
  browser = await launchChromium();
  await mkdir(SCREENSHOTS, { recursive: true });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
});

async function check(page: Page, name: string): Promise<string[]> {
  const problems = (await axeViolations(page)).map((line) => `${name}: ${line}`);
  const wider = await overflow(page);
  if (wider > 0) problems.push(`${name}: ${wider} px wider than the viewport`);
  await screenshot(page, `dashboard-${name}`);
  return problems;
}

const CATALOGUE =
  'Référence;Désignation;Flux;À partir de;Matériau;Poids (g);Nombre par UVC\r\n' +
  'BTL-75;Vin rouge 75 cl;EMB;2026-S1;Verre;410,5;1\r\n' +
  'BTL-75;Vin rouge 75 cl;EMB;2026-S1;Papier-carton;2,25;2\r\n';

describe('the product pages in Chromium, in French', () => {
  it('upload the catalogue and the sales, then file the derived declaration', async () => {
    const { clientId } = await createClient(t);
    // A session opened the way the dashboard opens one (a sign-in link), handed to the browser.
    const session = await signedIn(t, clientId, 'fr');
    const context = await browser.newContext({ viewport: { width: 375, height: 800 }, locale: 'fr-FR' });
    await context.addCookies([...session.cookies].map(([name, value]) => ({ name, value, url: t.url })));
    const page = await context.newPage();
    const problems = watch(page, new URL(t.url).origin);
    const found: string[] = [];
    try {
      await page.goto(`${t.url}/dashboard/products`);
      await page.getByText('Aucun produit pour le moment').waitFor();
      found.push(...(await check(page, 'products-empty')));

      await page
        .getByLabel('Fichier CSV')
        .first()
        .setInputFiles({
          name: 'catalogue.csv',
          mimeType: 'text/csv',
          buffer: Buffer.from(CATALOGUE.replace('410,5', '410,5555'), 'utf8'),
        });
      await page.getByRole('button', { name: 'Importer' }).first().click();
      await page.getByText('Rien n’a été enregistré.').waitFor();
      expect(await page.locator('#product-errors').innerText()).toContain('Ligne 2 du fichier');
      found.push(...(await check(page, 'products-problems')));

      await page
        .getByLabel('Fichier CSV')
        .first()
        .setInputFiles({ name: 'catalogue.csv', mimeType: 'text/csv', buffer: Buffer.from(CATALOGUE, 'utf8') });
      await page.getByRole('button', { name: 'Importer' }).first().click();
      await page.getByText('Catalogue mis à jour').waitFor();
      expect(await page.locator('main').innerText()).toContain('1 × Verre de 410,5 g');
      // « Afficher » stands out from the white page (axe cannot always tell a transparent button's contrast).
      const show = await page.evaluate<string[]>(
        `[...document.querySelectorAll('button')].filter((b) => b.textContent.trim() === 'Afficher').map((b) => getComputedStyle(b).color + ' on ' + getComputedStyle(b).backgroundColor)`,
      );
      expect(show).toEqual(['rgb(11, 92, 75) on rgb(255, 255, 255)']);
      found.push(...(await check(page, 'products-list')));

      await page.getByLabel('Semestre', { exact: true }).fill('2026-S1');
      await page
        .getByLabel('Fichier CSV')
        .last()
        .setInputFiles({
          name: 'ventes.csv',
          mimeType: 'text/csv',
          buffer: Buffer.from('référence;unités vendues\r\nBTL-75;1000\r\n', 'utf8'),
        });
      await page.getByRole('button', { name: 'Importer' }).last().click();
      await page.getByText('Ventes enregistrées pour 2026-S1').waitFor();
      expect(await page.locator('main').innerText()).toContain('410,5');
      found.push(...(await check(page, 'products-derived')));

      // The check page every filing goes through: declared by name, then the confirmation.
      await page.getByRole('button', { name: 'Vérifier cette déclaration' }).click();
      await page.getByRole('heading', { name: 'Déclaration sur l’honneur' }).waitFor();
      found.push(...(await check(page, 'products-derived-check')));
      await page.getByLabel('Vos nom et prénom').fill('Claire Martin');
      await page.getByRole('button', { name: 'Déclarer et déposer' }).click();
      await page.waitForURL(/\/dashboard\/declarations\/[0-9a-f-]{36}\?result=filed$/);
      const { rows } = await t.pool.query(`SELECT count(*)::int AS n FROM declaration_derivations WHERE client_id = $1`, [clientId]);
      expect(rows[0].n).toBe(1);
    } finally {
      await context.close();
    }
    expect(found).toEqual([]);
    // The refused upload answers 422, which the browser reports; nothing else.
    expect(problems.filter((p) => !/status of 422/.test(p))).toEqual([]);
    expect(problems.filter((p) => /status of 422/.test(p))).toHaveLength(1);
  }, 300_000);
});
