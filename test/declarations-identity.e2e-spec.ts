/**
 * One material, one identity: a material given by its code or by its published name in either
 * language is the same material, so the same figures are the same declaration (no new revision)
 * whichever way they came: derived from the product catalogue, the dashboard's form, its upload,
 * or the API. The check page says so before filing, and a derived revision keeps its per-product detail.
 */
import request from 'supertest';
import { formRows, signedIn } from './support/dashboard-browser.js';
import { createClientWithToken } from './support/factories.js';
import { startTestApp, type TestApp } from './support/test-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
}, 180_000);
afterAll(async () => {
  await t?.close();
});

const PERIOD = '2025-S2';
const revisions = async (clientId: string, period: string) =>
  (
    await t.pool.query(`SELECT revision, status FROM declarations WHERE client_id = $1 AND period = $2 ORDER BY revision`, [
      clientId,
      period,
    ])
  ).rows;
const form = (period: string, lines: Array<[string, string, string, string]>) => ({
  period,
  ...formRows(lines),
  action: 'submit',
});
/** The form for paper and cardboard only: `kg` of it in 20,000 units, by its English name. */
const paperForm = (kg: string) =>
  form(PERIOD, [
    ['EMB', 'Paper and cardboard', 'kg', kg],
    ['EMB', 'Paper and cardboard', 'uvc', '20,000'],
  ]);

describe('the same figures, whichever way they came', () => {
  it('from products, then by the form, then by upload: one revision, its per-product detail kept; the check page says "unchanged"', async () => {
    const { clientId, token } = await createClientWithToken(t, { streams: ['EMB'] });
    const api = (req: request.Test) => req.set('authorization', `Bearer ${token}`);
    // A phone case in a carton box (18 g) with a PET tray (6 g), 20,000 sold in the half-year.
    const product = {
      reference: 'CASE-01',
      name: 'Phone case',
      stream: 'EMB',
      valid_from: PERIOD,
      elements: [
        { material: 'paper_cardboard', weight_g: 18, per_unit: 1 },
        { material: 'PET trays', weight_g: 6, per_unit: 1 },
      ],
    };
    await api(request(t.url).post('/api/v1/products'))
      .send({ products: [product] })
      .expect(201);
    await api(request(t.url).post(`/api/v1/sales?period=${PERIOD}`))
      .send({ sales: [{ reference: 'CASE-01', units: 20000 }] })
      .expect(200);
    const derived = await api(request(t.url).post(`/api/v1/periods/${PERIOD}/derived-declaration`));
    expect(derived.status).toBe(201);
    expect(derived.body.lines.map((l: { material: string; unit: string; quantity: number }) => [l.material, l.unit, l.quantity])).toEqual([
      ['paper_cardboard', 'kg', 360],
      ['paper_cardboard', 'uvc', 20000],
      ['plastic_pet_tray', 'kg', 120],
      ['plastic_pet_tray', 'uvc', 20000],
    ]);

    // The derived declaration states its units sold (each case once): the same figures state them too.
    expect(derived.body.units_sold).toEqual([{ stream: 'EMB', quantity: 20000 }]);

    // The form, in English, by the categories' English names (and English numbers).
    const browser = await signedIn(t, clientId, 'en-GB,en;q=0.9');
    const check = await browser.post('/dashboard/declarations', {
      ...form(PERIOD, [
        ['EMB', 'PET trays', 'uvc', '20,000'],
        ['EMB', 'Paper and cardboard', 'kg', '360'],
        ['EMB', 'Paper and cardboard', 'uvc', '20,000'],
        ['EMB', 'PET trays', 'kg', '120.000'],
      ]),
      units_sold_EMB: '20,000',
    });
    expect(check.status).toBe(200);
    expect(check.html).toContain('Unchanged: these are the figures of revision 1 in force');
    expect(check.html).not.toContain('Filing this replaces revision');
    const filed = await browser.declare(check, 'Wei Zhang');
    expect(filed.location).toMatch(/\?result=unchanged$/);

    // The upload, in French, by the French names.
    const csv =
      'flux;matériau;unité;quantité\nEMB;Papier-carton;kg;360\nEMB;Papier-carton;uvc;20000\nEMB;Barquettes en PET;kg;120\nEMB;Barquettes en PET;uvc;20000\nEMB;;uvc;20000\n';
    const uploaded = await browser.upload('/dashboard/declarations/upload', { period: PERIOD }, { name: 'ventes.csv', content: csv });
    expect(uploaded.status).toBe(200);
    expect(uploaded.html).toContain('Unchanged: these are the figures of revision 1 in force');
    expect((await browser.declare(uploaded, 'Wei Zhang')).location).toMatch(/\?result=unchanged$/);

    expect(await revisions(clientId, PERIOD)).toEqual([{ revision: 1, status: 'current' }]);
    // The revision in force is still the derived one: its per-product detail is there for the operator's export.
    const detail = await t.pool.query(
      `SELECT count(*)::int AS n FROM declaration_derivations d JOIN declarations r ON r.id = d.declaration_id WHERE r.client_id = $1 AND r.status = 'current'`,
      [clientId],
    );
    expect(detail.rows[0].n).toBe(1);
    // Its lines keep the words as given (the codes the catalogue gave).
    const lines = await t.pool.query(
      `SELECT l.material FROM declaration_lines l JOIN declarations r ON r.id = l.declaration_id WHERE r.client_id = $1 ORDER BY l.position`,
      [clientId],
    );
    expect(lines.rows.map((r) => r.material)).toEqual(['paper_cardboard', 'paper_cardboard', 'plastic_pet_tray', 'plastic_pet_tray']);

    // Different figures are a new revision, and the check page says what it replaces.
    const changed = await browser.post('/dashboard/declarations', paperForm('361'));
    expect(changed.html).toContain('Filing this replaces revision 1');
    expect(changed.html).not.toContain('Unchanged:');
  });

  it('the check page compares a revision in force filed before identities were stored by its lines, and says what it replaces', async () => {
    const { clientId, token } = await createClientWithToken(t, { streams: ['EMB'] });
    const filed = await request(t.url)
      .post('/api/v1/declarations')
      .set('authorization', `Bearer ${token}`)
      .send({
        period: PERIOD,
        lines: [
          { stream: 'EMB', material: 'paper_cardboard', unit: 'kg', quantity: 360 },
          { stream: 'EMB', material: 'paper_cardboard', unit: 'uvc', quantity: 20000 },
        ],
      });
    expect(filed.status).toBe(201);
    // As a revision filed before the column existed holds it.
    await t.pool.query(`UPDATE declarations SET identity_hash = NULL WHERE client_id = $1`, [clientId]);
    const browser = await signedIn(t, clientId, 'en-GB,en;q=0.9');
    const same = await browser.post('/dashboard/declarations', paperForm('360'));
    expect(same.html).toContain('Unchanged: these are the figures of revision 1 in force');
    const other = await browser.post('/dashboard/declarations', paperForm('361'));
    expect(other.html).toContain('Filing this replaces revision 1');
    expect(other.html).not.toContain('Unchanged:');
  });

  it('through the API: `paper_cardboard`, "Paper and cardboard" and "Papier-carton" with the same quantities make one revision', async () => {
    const { clientId, token } = await createClientWithToken(t, { streams: ['EMB'] });
    const post = (material: string) =>
      request(t.url)
        .post('/api/v1/declarations')
        .set('authorization', `Bearer ${token}`)
        .send({
          period: '2025-S1',
          lines: [
            { stream: 'EMB', material, unit: 'kg', quantity: 360 },
            { stream: 'EMB', material, unit: 'uvc', quantity: 20000 },
          ],
        });
    const first = await post('paper_cardboard');
    expect(first.status).toBe(201);
    for (const material of ['Paper and cardboard', 'Papier-carton', ' PAPIER-CARTON ']) {
      const again = await post(material);
      expect([material, again.status, again.body.id, again.body.revision]).toEqual([material, 200, first.body.id, 1]);
      expect(again.body.lines[0]).toMatchObject({ material: 'paper_cardboard', material_category: { code: 'paper_cardboard' } });
    }
    // An uncategorised material is its text, folded: the same text again is the same declaration; other text is not.
    const other = (material: string) =>
      request(t.url)
        .post('/api/v1/declarations')
        .set('authorization', `Bearer ${token}`)
        .send({
          period: '2024-S2',
          lines: [
            { stream: 'EMB', material, unit: 'kg', quantity: 1 },
            { stream: 'EMB', material, unit: 'uvc', quantity: 1 },
          ],
        });
    expect((await other('Cork stoppers')).status).toBe(201);
    expect((await other('cork stoppers')).status).toBe(200);
    expect((await other('Cork')).status).toBe(201);
    expect(await revisions(clientId, '2025-S1')).toEqual([{ revision: 1, status: 'current' }]);
  });
});
