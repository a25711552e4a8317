import request from 'supertest';
import { formatNumber } from '../../src/i18n/format.js';
import { signedIn } from '../support/dashboard-browser.js';
import { createClientWithToken } from '../support/factories.js';
import { ADMIN_TOKEN, startTestApp, type TestApp } from '../support/test-app.js';

/**
 * The overview says, for each year with a declaration, where its count of sales units puts the
 * client in each eco-organism's published tiers: the figures of GET /api/v1/me/years/{year}.
 */
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t?.close();
});

const line = (material: string, unit: string, quantity: number) => ({ stream: 'EMB', material, unit, quantity });
const file = (token: string, period: string, lines: object[], unitsSold?: number) =>
  request(t.url)
    .post('/api/v1/declarations')
    .set('authorization', `Bearer ${token}`)
    .send({ period, lines, ...(unitsSold === undefined ? {} : { units_sold: [{ stream: 'EMB', quantity: unitsSold }] }) });

describe('the year on the overview', () => {
  it('gives the year’s count of units and its tier with each eco-organism, in the page’s language and formats', async () => {
    const { clientId, token } = await createClientWithToken(t, { streams: ['EMB'] });
    expect((await file(token, '2025-S1', [line('glass', 'kg', 10), line('glass', 'uvc', 4000)])).status).toBe(201);
    expect(
      (
        await file(token, '2025-S2', [
          line('glass', 'kg', 10),
          line('glass', 'uvc', 4400),
          line('steel', 'kg', 1),
          line('steel', 'uvc', 1000),
        ])
      ).status,
    ).toBe(201);
    const fr = await signedIn(t, clientId, 'fr');
    const french = (await fr.get('/dashboard')).html;
    // 8,400 units carry glass, 1,000 steel: 8,400 to 9,400 units in the whole year 2025, under Citeo's 10,000.
    // A range, never presented as the count, and the page says why.
    expect(french).toContain(
      `Chez Citeo\u00a0: entre ${formatNumber('fr', 8400)} (le plus grand nombre d’UVC d’un matériau) et ${formatNumber('fr', 9400)} unités de vente consommateur (UVC) (les nombres de tous les matériaux réunis, si aucune unité n’en associait deux) → Forfait de 80\u00a0€ HT. C’est un intervalle, car vos unités vendues ne sont pas indiquées\u00a0:`,
    );
    const en = await signedIn(t, clientId, 'en');
    const english = (await en.get('/dashboard')).html;
    expect(english).toContain(
      'With Citeo: between 8,400 (the largest count of one material) and 9,400 consumer sales units (the counts of all materials together, were no unit to combine two) → €80 flat fee. This is a range because your units sold are not stated:',
    );
    // Adelphe publishes its flat fee under 10,000 units (and no level above); Léko publishes no tiers by count: the page
    // says nothing about Léko rather than an empty list.
    expect(english).toContain(
      'With Adelphe: between 8,400 (the largest count of one material) and 9,400 consumer sales units (the counts of all materials together, were no unit to combine two) → €80 annual flat fee.',
    );
    expect(english).not.toContain('With Léko');

    // 2,000 steel units instead: 8,400 to 10,400 straddles the threshold, and the page says so rather than guess.
    expect(
      (
        await file(token, '2025-S2', [
          line('glass', 'kg', 10),
          line('glass', 'uvc', 4400),
          line('steel', 'kg', 1),
          line('steel', 'uvc', 2000),
        ])
      ).status,
    ).toBe(201);
    const straddling = (await en.get('/dashboard')).html;
    expect(straddling).toContain('With Citeo: between 8,400 (the largest count of one material) and 10,400 consumer sales units');
    expect(straddling).toContain('€80 flat fee or Simplified declaration');
    expect(straddling).toContain('€80 annual flat fee or Declaration');
  });
});

describe('the tier from the units sold', () => {
  it('counts the units sold where stated, never the per-material lines added up', async () => {
    const { clientId, token } = await createClientWithToken(t, { streams: ['EMB'] });
    // 2024-S1: 85,000 units with carton and 60,000 with glass (145,000 lines added up), 90,000 sold; S2: 400,000 sold.
    const counted = [
      line('paper_cardboard', 'kg', 3867.5),
      line('paper_cardboard', 'uvc', 85000),
      line('glass', 'kg', 12600),
      line('glass', 'uvc', 60000),
    ];
    expect((await file(token, '2024-S1', counted)).status).toBe(201);
    const fr = await signedIn(t, clientId, 'fr');
    // Without units sold: S1 alone is 85,000 to 145,000, the simplified declaration either way, said as a range and why.
    expect((await fr.get('/dashboard')).html).toContain(
      `Chez Citeo\u00a0: entre ${formatNumber('fr', 85000)} (le plus grand nombre d’UVC d’un matériau) et ${formatNumber('fr', 145000)} unités de vente consommateur (UVC) (les nombres de tous les matériaux réunis, si aucune unité n’en associait deux) à ce jour → Déclaration simplifiée. C’est un intervalle`,
    );
    expect((await file(token, '2024-S1', counted, 90000)).status).toBe(201);
    expect((await file(token, '2024-S2', [line('glass', 'kg', 84000), line('glass', 'uvc', 400000)], 420000)).status).toBe(201);
    const year = await request(t.url).get('/api/v1/me/years/2024').set('authorization', `Bearer ${token}`);
    const citeo = year.body.filing_tiers.find((p: { eco_organism: string }) => p.eco_organism === 'Citeo');
    // 90,000 + 420,000 = 510,000: the declaration per UVC, compulsory from 500,000. From the lines alone it would be 490,000 to 545,000, a range across two tiers.
    expect(citeo).toMatchObject({
      count: { at_least: 510000, at_most: 510000, basis: 'units_sold' },
      tier: { id: 'per-uvc' },
      possible_tiers: ['per-uvc'],
    });
    const html = (await fr.get('/dashboard')).html;
    expect(html).toContain(
      `Chez Citeo\u00a0: ${formatNumber('fr', 510000)} unités de vente consommateur (UVC) vendues → Déclaration à l’UVC.`,
    );
    expect(html).not.toContain(formatNumber('fr', 145000));
  });
});

describe('the rest of the overview, read in one statement', () => {
  it('says "so far" for a year not over, shows the operator’s unconfirmed change and counts the browsers signed in', async () => {
    const { clientId, token } = await createClientWithToken(t, { streams: ['EMB'] });
    // The current year is never complete (its S2 has not ended): its count is a count so far.
    const year = new Date().getUTCFullYear();
    expect((await file(token, `${year}-S1`, [line('glass', 'kg', 10), line('glass', 'uvc', 4000)])).status).toBe(201);
    const first = await signedIn(t, clientId, 'en');
    const before = (await first.get('/dashboard')).html;
    expect(before).toContain('With Citeo: 4,000 consumer sales units sold so far → €80 flat fee.');
    expect(before).not.toContain('Waiting for the operator’s confirmation');
    expect(before).toContain('One browser is signed in');

    // The operator records a new company name and does not confirm it yet; a second browser signs in.
    const patched = await request(t.url)
      .patch(`/api/v1/admin/clients/${clientId}`)
      .set('authorization', `Bearer ${ADMIN_TOKEN}`)
      .send({ company: 'Nouvelle Raison Sociale SAS' });
    expect(patched.status).toBe(200);
    await signedIn(t, clientId, 'en');
    const after = (await first.get('/dashboard')).html;
    expect(after).toContain('Waiting for the operator’s confirmation');
    expect(after).toContain('The operator has recorded this change to your profile');
    expect(after).toContain('Nouvelle Raison Sociale SAS');
    expect(after).toContain('2 browsers are signed in');
  });
});
