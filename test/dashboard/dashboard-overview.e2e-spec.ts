/**
 * What a client owes, on the overview, before and after her first filing: per stream her
 * eco-organism (the operator's record), her tier (from her declarations, else to be confirmed
 * with the eco-organism's published tiers), the annual deadline, and what happens after she files —
 * the same statement as the public site's.
 */
import request from 'supertest';
import { MESSAGES } from '../../src/i18n/messages/index.js';
import { formatDate, formatNumber } from '../../src/i18n/format.js';
import { signedIn } from '../support/dashboard-browser.js';
import { createClientWithToken } from '../support/factories.js';
import { ADMIN_TOKEN, startTestApp, type TestApp } from '../support/test-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
}, 60_000);
afterAll(async () => {
  await t?.close();
});

const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
/** The text a person reads: tags left out, entities as characters, runs of white space as one space. */
const textOf = (html: string) =>
  html
    .replace(/<[^>]+>/g, ' ')
    .replace(/&amp;/g, '&')
    .replace(/&#39;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/\s+/g, ' ');
const sectionOf = (html: string, id: string) => {
  const start = html.indexOf(`id="${id}"`);
  expect(start).toBeGreaterThan(-1);
  return html.slice(start, html.indexOf('</dl>', start));
};
const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim();

describe('what she owes, before she files', () => {
  it.each(['fr', 'en'] as const)(
    'in %s: her eco-organism, a tier to be confirmed with the published tiers, the annual deadline, and the site’s story of what happens after',
    async (language) => {
      const { clientId, token } = await createClientWithToken(t, { streams: ['EMB'] });
      expect(
        (await request(t.url).put(`/api/v1/admin/clients/${clientId}/streams/EMB`).set(admin).send({ eco_organism: 'Citeo' })).status,
      ).toBe(200);
      const browser = await signedIn(t, clientId, language);
      const page = await browser.get('/dashboard');
      expect(page.status).toBe(200);
      const w = MESSAGES[language].dashboardPages.overview.owes;
      const owes = textOf(sectionOf(page.html, 'owes-EMB'));
      expect(owes).toContain(`${w.eco} Citeo`);
      expect(owes).toContain(oneLine(w.tierUnknown));
      const n = (value: number) => formatNumber(language, value);
      // The eco-organism's own tiers, from the published streams data: no threshold written in code.
      const streams = (await request(t.url).get('/api/v1/streams.json')).body;
      const citeo = streams.streams
        .find((s: { code: string }) => s.code === 'EMB')
        .eco_organisms.find((e: { name: string }) => e.name === 'Citeo');
      for (const tier of citeo.filing.tiers as { label: Record<string, string>; uvc_per_year: { from: number; below: number | null } }[])
        expect(owes).toContain(
          oneLine(
            w.band({
              label: tier.label[language]!,
              from: n(tier.uvc_per_year.from),
              below: tier.uvc_per_year.below === null ? null : n(tier.uvc_per_year.below),
              unit: 'UVC',
            }),
          ),
        );
      // The annual deadline as GET /me/obligations gives it, and the eco-organism's own calendar.
      const obligations = await request(t.url).get('/api/v1/me/obligations').set('authorization', `Bearer ${token}`);
      expect(obligations.status).toBe(200);
      const dues = (obligations.body.streams[0].periods as { due_date: string | null }[]).flatMap((p) => (p.due_date ? [p.due_date] : []));
      expect(dues.length).toBeGreaterThan(0);
      expect(owes).toContain(w.deadline);
      expect([dues, dues.some((due) => owes.includes(oneLine(formatDate(language, due))))]).toEqual([dues, true]);
      expect(owes).toContain(oneLine(citeo.filing.calendar.text[language]));
      // What happens after she files: a link to the statement the site shows, from the same source.
      expect(sectionOf(page.html, 'owes-EMB')).toContain(`<a href="#who-files">${w.afterLink}</a>`);
      const whoFiles = (await request(t.url).get('/api/v1/pricing.json')).body.who_files;
      const site = textOf((await request(t.url).get(language === 'fr' ? '/fr/pricing' : '/pricing')).text);
      const overview = textOf(page.html);
      for (const key of ['you_give', 'operator_does', 'you_still_do', 'by_when']) {
        const text = oneLine(whoFiles[key][language]);
        expect([key, overview.includes(text), site.includes(text)]).toEqual([key, true, true]);
      }
    },
  );

  it('without an eco-organism recorded: says so and what to do, with every eco-organism’s published tiers', async () => {
    const { clientId } = await createClientWithToken(t, { streams: ['EMB'] });
    const browser = await signedIn(t, clientId, 'fr');
    const owes = textOf(sectionOf((await browser.get('/dashboard')).html, 'owes-EMB'));
    const w = MESSAGES.fr.dashboardPages.overview.owes;
    expect(owes).toContain(oneLine(w.ecoUnknown));
    expect(owes).toContain('Niveaux publiés par Citeo');
  });

  it('after declarations stating units sold: her tier with her eco-organism, from the year she declared', async () => {
    const { clientId, token } = await createClientWithToken(t, { streams: ['EMB'] });
    expect(
      (await request(t.url).put(`/api/v1/admin/clients/${clientId}/streams/EMB`).set(admin).send({ eco_organism: 'Citeo' })).status,
    ).toBe(200);
    const filed = await request(t.url)
      .post('/api/v1/declarations')
      .set('authorization', `Bearer ${token}`)
      .send({
        period: '2025-S1',
        lines: [
          { stream: 'EMB', material: 'paper_cardboard', unit: 'kg', quantity: 3867.5 },
          { stream: 'EMB', material: 'paper_cardboard', unit: 'uvc', quantity: 85000 },
          { stream: 'EMB', material: 'glass', unit: 'kg', quantity: 4410 },
          { stream: 'EMB', material: 'glass', unit: 'uvc', quantity: 20000 },
        ],
        units_sold: [{ stream: 'EMB', quantity: 90000 }],
      });
    expect(filed.status).toBe(201);
    for (const language of ['fr', 'en'] as const) {
      const browser = await signedIn(t, clientId, language);
      const page = await browser.get('/dashboard');
      const owes = textOf(sectionOf(page.html, 'owes-EMB'));
      const w = MESSAGES[language].dashboardPages.overview.owes;
      const simplified = language === 'fr' ? 'Déclaration simplifiée' : 'Simplified declaration';
      expect(owes).toContain(oneLine(w.tierFrom({ eco: 'Citeo', tier: simplified, year: '2025' })));
      expect(owes).not.toContain(oneLine(w.tierUnknown));
    }
  });
});
