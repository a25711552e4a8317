/**
 * Products in the dashboard: the catalogue upload with its problem report, the list of products with
 * their packaging, a half-year's sales, the derived declaration previewed then filed; in French
 * (the default) and in English (the person's choice). Everything goes through the API's own rules.
 */
import { jest } from '@jest/globals';
import { Clock } from '../../src/calendar/clock.js';
import { signedIn } from '../support/dashboard-browser.js';
import { createClient } from '../support/factories.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
  jest.spyOn(t.app.get(Clock), 'now').mockImplementation(() => new Date('2026-09-15T10:00:00Z'));
}, 60_000);
afterAll(async () => {
  await t?.close();
});

const CATALOGUE =
  '\ufeffRéférence;Désignation;Flux;À partir de;Matériau;Poids (g);Nombre par UVC\r\n' +
  'BTL-75;Vin rouge 75 cl;EMB;2026-S1;Verre;410,5;1\r\n' +
  'BTL-75;Vin rouge 75 cl;EMB;2026-S1;Papier-carton;2,25;2\r\n';

describe('products in the dashboard', () => {
  it('uploads a catalogue and sales, lists the packaging, previews and files the derived declaration, in French', async () => {
    const { clientId } = await createClient(t);
    const browser = await signedIn(t, clientId, 'fr');
    const empty = await browser.get('/dashboard/products');
    expect(empty.status).toBe(200);
    expect(empty.html).toContain('Aucun produit pour le moment\u00a0: importez votre catalogue.');
    expect(empty.html).toContain('href="/dashboard/products"');

    const bad = await browser.upload(
      '/dashboard/products/upload',
      {},
      { name: 'catalogue.csv', content: CATALOGUE.replace('Verre', 'Verre teinté') },
    );
    expect(bad.status).toBe(422);
    expect(bad.html).toContain('Rien n’a été enregistré.');
    expect(bad.html).toContain('Ligne 2 du fichier');
    expect(bad.html).toContain('«\u00a0Verre teinté\u00a0» ne fait pas partie des matériaux du barème de EMB');
    // The allowed materials by their published French names, never their codes.
    expect(bad.html).toContain('«\u00a0Verre\u00a0»');
    expect(bad.html).toContain('«\u00a0Papier-carton\u00a0»');
    expect(bad.html).not.toMatch(/paper_cardboard|\bglass\b/);
    expect((await t.pool.query('SELECT count(*)::int AS n FROM products')).rows[0].n).toBe(0);

    // « à partir de » is a half-year: the hint says so, and a date is refused saying which format.
    expect(empty.html).toContain('à partir de (le semestre, par exemple 2026-S1)');
    const date = await browser.upload(
      '/dashboard/products/upload',
      {},
      { name: 'catalogue.csv', content: CATALOGUE.replaceAll('2026-S1', '01/01/2026') },
    );
    expect(date.status).toBe(422);
    expect(date.html).toContain('«\u00a001/01/2026\u00a0» n’est pas un semestre.');
    expect(date.html).toContain('par exemple 2026-S1');
    expect((await t.pool.query('SELECT count(*)::int AS n FROM products')).rows[0].n).toBe(0);

    const ok = await browser.upload('/dashboard/products/upload', {}, { name: 'catalogue.csv', content: CATALOGUE });
    expect(ok.status).toBe(303);
    const listed = await browser.get(ok.location!);
    expect(listed.html).toContain('Catalogue mis à jour\u00a0: 1 nouvelle version');
    expect(listed.html).toContain('BTL-75');
    expect(listed.html).toContain('1 × Verre de 410,5 g');
    expect(listed.html).toContain('2 × Papier-carton de 2,25 g');
    expect(listed.html).not.toMatch(/paper_cardboard|\bglass\b/);

    const sales = await browser.upload(
      '/dashboard/products/sales',
      { period: '2026-S1' },
      { name: 'ventes.csv', content: 'référence;unités vendues\r\nBTL-75;1 000\r\n' },
    );
    expect(sales.status).toBe(303);
    const preview = await browser.get(sales.location!);
    expect(preview.status).toBe(200);
    expect(preview.html).toContain('Ventes enregistrées pour 2026-S1\u00a0: 1 produit.');
    // 1,000 × 410.5 g = 410.5 kg; 1,000 × 2 × 2.25 g = 4.5 kg.
    expect(preview.html).toContain('410,5');
    expect(preview.html).toContain('4,5');
    expect(preview.html).toContain('BTL-75\u00a0: 1\u202f000 UVC, 410,5 kg');
    // 1,000 units sold, each once, though its two materials' uvc lines add up to 2,000.
    expect(preview.html).toContain(
      '<p class="units-sold">Unités vendues (UVC), EMB\u00a0: 1\u202f000\u00a0UVC, chaque produit une seule fois',
    );
    expect(preview.html).not.toMatch(/2\u202f000/);
    expect(preview.html).toContain('<th scope="row">Verre</th>');
    expect(preview.html).toContain('<th scope="row">Papier-carton</th>');
    expect(preview.html).not.toMatch(/paper_cardboard|\bglass\b/);

    // The derived declaration goes to the check page: nothing is filed until she declares it there by name.
    const check = await browser.post('/dashboard/products/derived', { period: '2026-S1' });
    expect(check.status).toBe(200);
    expect(check.html).toContain('id="derived-from"');
    expect(check.html).toMatch(/<li id="units-sold-EMB">[^<]*<strong>1\u202f000\u00a0UVC<\/strong>/);
    // Its products, as a per-product file's check page shows them; nothing to keep: they are the catalogue already.
    expect(check.html).toContain('<h2 id="products">Par produit</h2>');
    expect(check.html).toContain('Le 1 produit vendu au cours du semestre et son emballage');
    expect(check.html).toContain('<th scope="row" data-label="Produit">Vin rouge 75 cl</th>');
    expect(check.html).toContain('<td data-label="UVC vendues" class="num">1\u202f000</td>');
    expect(check.html).toContain('<li>Verre, 410,5\u00a0g</li><li>Papier-carton, 2,25\u00a0g × 2</li>');
    expect(check.html).not.toContain('id="products-more"');
    expect(check.html).not.toContain('name="keep"');
    expect((await t.pool.query(`SELECT count(*)::int AS n FROM declarations WHERE client_id = $1`, [clientId])).rows[0].n).toBe(0);
    const unnamed = await browser.declare(check, '');
    expect(unnamed.status).toBe(422);
    const filed = await browser.declare(check, 'Claire Martin');
    expect(filed.status).toBe(303);
    expect(filed.location).toMatch(/^\/dashboard\/declarations\/[0-9a-f-]{36}\?result=filed$/);
    expect((await t.pool.query(`SELECT declared_by_name FROM declarations WHERE client_id = $1`, [clientId])).rows).toEqual([
      { declared_by_name: 'Claire Martin' },
    ]);
    const { rows } = await t.pool.query(
      `SELECT l.material, l.unit, l.quantity::text FROM declaration_lines l JOIN declarations d ON d.id = l.declaration_id WHERE d.client_id = $1 ORDER BY l.position`,
      [clientId],
    );
    expect(rows).toEqual([
      { material: 'glass', unit: 'kg', quantity: '410.500' },
      { material: 'glass', unit: 'uvc', quantity: '1000.000' },
      { material: 'paper_cardboard', unit: 'kg', quantity: '4.500' },
      { material: 'paper_cardboard', unit: 'uvc', quantity: '1000.000' },
    ]);
    expect((await t.pool.query(`SELECT units_sold FROM declarations WHERE client_id = $1`, [clientId])).rows).toEqual([
      { units_sold: [{ stream: 'EMB', quantity: '1000' }] },
    ]);
    const { rows: audit } = await t.pool.query(`SELECT changes FROM audit_events WHERE client_id = $1 AND action = 'declaration.derived'`, [
      clientId,
    ]);
    expect(audit[0].changes).toMatchObject({ via: 'dashboard' });
  });

  it('in English, the check page of a derived declaration lists its first 50 products and counts the others', async () => {
    const { clientId } = await createClient(t);
    const browser = await signedIn(t, clientId);
    browser.cookies.set('lang', 'en');
    const references = Array.from({ length: 60 }, (_, i) => `P-${String(i).padStart(3, '0')}`);
    const catalogue = [
      'reference,name,stream,valid_from,material,weight_g,per_unit',
      ...references.map((r) => `${r},Jam ${r},EMB,2026-S1,glass,250,1`),
      ...references.map((r) => `${r},Jam ${r},EMB,2026-S1,steel,6.5,1`),
    ].join('\r\n');
    expect((await browser.upload('/dashboard/products/upload', {}, { name: 'catalogue.csv', content: catalogue })).status).toBe(303);
    const sales = ['reference,units', ...references.map((r) => `${r},1000`)].join('\r\n');
    expect((await browser.upload('/dashboard/products/sales', { period: '2026-S1' }, { name: 'sales.csv', content: sales })).status).toBe(
      303,
    );
    const check = await browser.post('/dashboard/products/derived', { period: '2026-S1' });
    expect(check.status).toBe(200);
    expect(check.html).toContain('<h2 id="products">Per product</h2>');
    expect(check.html).toContain('The 60 products sold in the half-year and their packaging');
    const rows = [...check.html.matchAll(/<th scope="row" data-label="Product">([^<]*)<\/th>/g)].map((m) => m[1]);
    expect(rows).toEqual(references.slice(0, 50).map((r) => `Jam ${r}`));
    expect(check.html).toContain('<li>Glass, 250 g</li><li>Steel, 6.5 g</li>');
    expect(check.html).toContain('<p id="products-more" class="hint">The first 50 of 60 products are shown; all of them are filed.</p>');
    expect(check.html).not.toContain('name="keep"');
    // All 60 are filed: 60,000 units sold.
    expect(check.html).toMatch(/<li id="units-sold-EMB">[^<]*<strong>60,000\u00a0UVC<\/strong>/);
  });

  it('speaks English when the person chose it, and reports a wrong sales file', async () => {
    const { clientId } = await createClient(t);
    const browser = await signedIn(t, clientId);
    browser.cookies.set('lang', 'en');
    const page = await browser.get('/dashboard/products');
    expect(page.html).toContain('No product yet: upload your catalogue.');
    const bad = await browser.upload(
      '/dashboard/products/sales',
      { period: '2026-S1' },
      { name: 'sales.csv', content: 'reference,units\r\nNOPE,3\r\n' },
    );
    expect(bad.status).toBe(422);
    expect(bad.html).toContain('Nothing was stored.');
    expect(bad.html).toContain('NOPE is not in your product catalogue.');
    const nothing = await browser.post('/dashboard/products/derived', { period: '2026-S1' });
    expect(nothing.status).toBe(422);
    expect(nothing.html).toContain('No sales are recorded for 2026-S1');
  });
});
