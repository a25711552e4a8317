/**
 * « Nouvelle déclaration » from her per-product spreadsheet in Chromium: in French, an .xlsx with
 * her own headers (the column step), the check page (90 000 UVC), declared by name and kept as her
 * catalogue, then the confirmation; in English, an .ods with the template's headers straight to the
 * check page. axe-core (WCAG 2.1 A and AA) and the width check at 375 and 1280 px on each page.
 */
import { mkdir } from 'node:fs/promises';
import * as XLSX from '@e965/xlsx';
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

/** axe and the width check at both widths, a screenshot at each. */
async function check(page: Page, name: string): Promise<string[]> {
  const problems: string[] = [];
  for (const width of [375, 1280]) {
    await page.setViewportSize({ width, height: 800 });
    problems.push(...(await axeViolations(page)).map((line) => `${name} at ${width}: ${line}`));
    const wider = await overflow(page);
    if (wider > 0) problems.push(`${name} at ${width}: ${wider} px wider than the viewport`);
    await screenshot(page, `dashboard-${name}-${width}`);
  }
  return problems;
}

function book(header: string[], rows: (string | number)[][], type: 'xlsx' | 'ods'): Buffer {
  const workbook = XLSX.utils.book_new();
  XLSX.utils.book_append_sheet(workbook, XLSX.utils.aoa_to_sheet([header, ...rows]), 'Feuille1');
  return XLSX.write(workbook, { type: 'buffer', bookType: type }) as Buffer;
}

const BISCUITS: (string | number)[][] = [
  ['Sablés nature', 40000, 'boîte', 'Papier-carton', 45.5, 1],
  ['', '', 'film', 'Emballages souples en PE et PP', 3.2, 1],
  ['Palets bretons', 30000, 'boîte', 'Papier-carton', 45.5, 1],
  ['', '', 'film', 'Emballages souples en PE et PP', 3.2, 1],
  ['Pâte à tartiner', 20000, 'pot', 'Verre', 210, 1],
  ['', '', 'couvercle', 'Acier', 6, 1],
];

async function open(clientId: string, language: 'fr' | 'en') {
  const session = await signedIn(t, clientId, language);
  const context = await browser.newContext({ viewport: { width: 375, height: 800 }, locale: language === 'fr' ? 'fr-FR' : 'en-GB' });
  await context.addCookies([...session.cookies].map(([name, value]) => ({ name, value, url: t.url })));
  const page = await context.newPage();
  return { context, page, problems: watch(page, new URL(t.url).origin) };
}

describe('her per-product file in Chromium', () => {
  it('in French: her own headers, the column step, the check page, declared by name and kept as catalogue', async () => {
    const { clientId } = await createClient(t);
    const { context, page, problems } = await open(clientId, 'fr');
    const found: string[] = [];
    try {
      await page.goto(`${t.url}/dashboard/declarations/new`);
      await page.getByRole('heading', { name: 'À partir de votre tableur par produit' }).waitFor();
      found.push(...(await check(page, 'product-file-new')));

      await page.getByLabel('Semestre').first().fill('2026-S1');
      const own = ['Article', 'Ventes S1', 'Composant', 'Matière première', 'Grammage', 'Qté'];
      await page.getByLabel('Votre fichier (Excel, LibreOffice ou CSV)').setInputFiles({
        name: 'mes-produits.xlsx',
        mimeType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
        buffer: book(own, BISCUITS, 'xlsx'),
      });
      await page.getByRole('button', { name: 'Envoyer et vérifier' }).first().click();
      await page.getByRole('heading', { name: 'Quelle colonne contient quoi\u202f?' }).waitFor();
      found.push(...(await check(page, 'product-file-columns')));
      await page.getByLabel('produit', { exact: true }).selectOption({ index: 1 });
      await page.getByLabel('UVC vendues sur le semestre').selectOption({ index: 2 });
      await page.getByLabel('matériau').selectOption({ index: 4 });
      await page.getByLabel('poids (g)').selectOption({ index: 5 });
      await page.getByLabel('nombre par UVC (facultatif)').selectOption({ index: 6 });
      await page.getByRole('button', { name: 'Utiliser ces colonnes et vérifier' }).click();

      await page.getByRole('heading', { name: 'Déclaration sur l’honneur' }).waitFor();
      expect(await page.locator('#units-sold-EMB').innerText()).toContain('90\u202f000');
      expect(await page.locator('main').innerText()).toContain('Sablés nature');
      found.push(...(await check(page, 'product-file-check')));
      await page.getByLabel('Garder ces produits comme catalogue').check();
      await page.getByLabel('Vos nom et prénom').fill('Claire Martin');
      await page.getByRole('button', { name: 'Déclarer et déposer' }).click();
      await page.waitForURL(/\/dashboard\/declarations\/[0-9a-f-]{36}\?result=filed$/);
      expect(await page.locator('main').innerText()).toContain('Claire Martin');
      found.push(...(await check(page, 'product-file-filed')));
      const { rows } = await t.pool.query(`SELECT count(*)::int AS n FROM products WHERE client_id = $1`, [clientId]);
      expect(rows[0].n).toBe(3);
    } finally {
      await context.close();
    }
    expect(found).toEqual([]);
    expect(problems).toEqual([]);
  }, 360_000);

  it('in English: an .ods with the template’s headers goes straight to the check page', async () => {
    const { clientId } = await createClient(t);
    const { context, page, problems } = await open(clientId, 'en');
    const found: string[] = [];
    try {
      await page.goto(`${t.url}/dashboard/declarations/new`);
      await page.getByRole('heading', { name: 'From your per-product spreadsheet' }).waitFor();
      await page.getByLabel('Half-year').first().fill('2026-S1');
      const header = ['product', 'units sold in the half-year', 'packaging element', 'material', 'weight (g)', 'number per unit'];
      await page.getByLabel('Your file (Excel, LibreOffice or CSV)').setInputFiles({
        name: 'products.ods',
        mimeType: 'application/vnd.oasis.opendocument.spreadsheet',
        buffer: book(header, BISCUITS, 'ods'),
      });
      await page.getByRole('button', { name: 'Upload and check' }).first().click();
      await page.locator('#units-sold-EMB').waitFor();
      expect(await page.locator('#units-sold-EMB').innerText()).toContain('90,000');
      found.push(...(await check(page, 'product-file-check-en')));
      await page.getByLabel('Your full name').fill('Jane Smith');
      await page.getByRole('button', { name: 'Declare and file' }).click();
      await page.waitForURL(/\/dashboard\/declarations\/[0-9a-f-]{36}\?result=filed$/);
      found.push(...(await check(page, 'product-file-filed-en')));
    } finally {
      await context.close();
    }
    expect(found).toEqual([]);
    expect(problems).toEqual([]);
  }, 360_000);
});
