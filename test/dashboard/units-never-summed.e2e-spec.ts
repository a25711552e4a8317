/**
 * True unit counts: a household declaration's per-material `uvc` lines (85,000 units whose packaging
 * contains paperboard, 20,000 that contain glass) are never added up (105,000) on any page, e-mail,
 * CSV file or API answer; the units sold she states once for the stream (90,000) are shown where
 * units are stated.
 */
import type { ParsedMail } from 'mailparser';
import request from 'supertest';
import { signedIn } from '../support/dashboard-browser.js';
import { createClient, issueToken } from '../support/factories.js';
import { drainOutbox, FAST_MAIL_DELIVERY, type Mailbox, startMailbox } from '../support/mailbox.js';
import { ADMIN_TOKEN, startTestApp, type TestApp } from '../support/test-app.js';

let t: TestApp;
let mailbox: Mailbox;
let inbox: ParsedMail[];

beforeAll(async () => {
  mailbox = await startMailbox();
  inbox = mailbox.inbox;
  t = await startTestApp({
    env: { SMTP_URL: mailbox.url, MAIL_FROM: 'dashboard@epr.example.org', CONTACT_EMAIL: 'contact@epr.example.org' },
    mailDelivery: FAST_MAIL_DELIVERY,
  });
}, 60_000);

afterAll(async () => {
  await t?.close();
  await mailbox?.close();
});

const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
/** 105,000 however it is written: 105000, 105 000 (any space), 105,000, 105.000. */
const SUM = /(?<!\d)(?<!\d[\s,.])105[\s,.]?000(?![\d])/u;
/** 90,000, the units sold, however it is written. */
const SOLD = /(?<!\d)(?<!\d[\s,.])90[\s,.]?000(?![\d])/u;
/** What could hold six digits by chance: ids, hashes, CSRF tokens and seals. */
const noise = (text: string) =>
  text.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '#').replace(/[0-9A-Za-z_.-]{24,}/g, '#');

describe('units sold, never the uvc lines added up', () => {
  it('no page, e-mail, CSV file or API answer shows 105,000; the 90,000 units sold are shown where units are stated', async () => {
    const email = `units.${Date.now()}@exemple.fr`;
    const { clientId } = await createClient(t, { email, company: 'Biscuiterie Exemple', streams: ['EMB'] });
    expect(
      (await request(t.url).put(`/api/v1/admin/clients/${clientId}/streams/EMB`).set(admin).send({ eco_organism: 'Citeo' })).status,
    ).toBe(200);
    const { token } = await issueToken(t, clientId);
    const client = { authorization: `Bearer ${token}` };
    const seen: Record<string, string> = {};
    const sees = (name: string, text: string) => (seen[name] = noise(text));

    // Her form: one row per material, kg and UVC side by side, the units sold once.
    const browser = await signedIn(t, clientId, 'fr');
    const check = await browser.post('/dashboard/declarations', {
      period: '2025-S1',
      stream: ['EMB', 'EMB'],
      material: ['Papier-carton', 'Verre'],
      quantity_kg: ['3 867,5', '4 410'],
      quantity_uvc: ['85 000', '20 000'],
      units_sold_EMB: '90 000',
      action: 'submit',
    });
    expect(check.status).toBe(200);
    sees('check page', check.html);
    const filed = await browser.declare(check, 'Claire Martin');
    expect(filed.status).toBe(303);
    const id = /\/dashboard\/declarations\/([0-9a-f-]{36})/.exec(filed.location!)![1]!;
    sees('confirmation page', (await browser.get(filed.location!)).html);
    sees('declaration page', (await browser.get(`/dashboard/declarations/${id}`)).html);
    sees('list page', (await browser.get('/dashboard/declarations')).html);
    sees('overview', (await browser.get('/dashboard')).html);
    sees('dashboard CSV (fr)', (await browser.get(`/dashboard/declarations/${id}/csv`)).html);
    const english = await signedIn(t, clientId, 'en');
    sees('declaration page (en)', (await english.get(`/dashboard/declarations/${id}`)).html);
    sees('dashboard CSV (en)', (await english.get(`/dashboard/declarations/${id}/csv`)).html);
    await drainOutbox(t);
    const mail = inbox.find((m) => m.to && JSON.stringify(m.to).includes(email));
    expect(mail).toBeDefined();
    sees('confirmation e-mail', `${mail!.subject}\n${mail!.text}`);

    // The client API, in JSON and CSV.
    const api = async (path: string, accept = 'application/json') => {
      const res = await request(t.url).get(path).set(client).set('accept', accept);
      expect([path, res.status]).toEqual([path, 200]);
      return res.text;
    };
    sees('GET /declarations', await api('/api/v1/declarations'));
    sees('GET /declarations/{id}', await api(`/api/v1/declarations/${id}`));
    sees('GET /declarations/{id} as CSV', await api(`/api/v1/declarations/${id}`, 'text/csv'));
    sees('GET /declarations/{id}.csv', await api(`/api/v1/declarations/${id}.csv`));
    sees('GET /me/years/2025', await api('/api/v1/me/years/2025'));
    sees('GET /me/obligations', await api('/api/v1/me/obligations'));

    // The operator's answers and exports.
    const operator = async (path: string) => {
      const res = await request(t.url).get(path).set(admin);
      expect([path, res.status]).toEqual([path, 200]);
      return res.text;
    };
    sees('admin declarations', await operator(`/api/v1/admin/declarations?client_id=${clientId}`));
    sees('admin declaration', await operator(`/api/v1/admin/declarations/${id}`));
    sees('period export', await operator('/api/v1/admin/periods/2025-S1/export'));
    sees('period export, products', await operator('/api/v1/admin/periods/2025-S1/export?detail=products'));
    sees('period export CSV', await operator('/api/v1/admin/periods/2025-S1/export.csv'));
    sees('period export CSV (fr)', await operator('/api/v1/admin/periods/2025-S1/export.csv?dialect=fr'));
    sees('period summary', await operator('/api/v1/admin/periods/2025-S1/summary'));
    sees('annual export', await operator('/api/v1/admin/years/2025/export?eco_organism=Citeo'));
    sees('annual export CSV', await operator('/api/v1/admin/years/2025/export.csv?eco_organism=Citeo'));

    const sums = Object.entries(seen).filter(([, text]) => SUM.test(text));
    expect(sums.map(([name, text]) => `${name}: …${text.slice(Math.max(0, text.search(SUM) - 120), text.search(SUM) + 20)}…`)).toEqual([]);
    // The per-material counts are still there, as lines…
    for (const name of ['check page', 'declaration page', 'GET /declarations/{id}', 'admin declaration', 'period export CSV'])
      expect([name, /(?<!\d)(?<!\d[\s,.])85[\s,.]?000(?![\d])/u.test(seen[name]!)]).toEqual([name, true]);
    // …and the units sold where units are stated.
    const stating = [
      'check page',
      'confirmation page',
      'declaration page',
      'declaration page (en)',
      'confirmation e-mail',
      'dashboard CSV (fr)',
      'dashboard CSV (en)',
      'GET /declarations/{id}',
      'GET /declarations/{id}.csv',
      'GET /me/years/2025',
      'admin declaration',
      'period export',
      'period export CSV',
      'annual export',
      'annual export CSV',
    ];
    expect(stating.filter((name) => !SOLD.test(seen[name]!))).toEqual([]);
  });
});

describe('materials by their published names in the products path', () => {
  it('a derived declaration (materials stored as codes) shows and downloads them by name in the page’s language', async () => {
    const { clientId } = await createClient(t, { streams: ['EMB'] });
    const { token } = await issueToken(t, clientId);
    const client = { authorization: `Bearer ${token}` };
    const products = await request(t.url)
      .post('/api/v1/products')
      .set(client)
      .send({
        products: [
          {
            reference: 'POT-210',
            name: 'Confiture 210 g',
            stream: 'EMB',
            valid_from: '2025-S1',
            elements: [
              { material: 'glass', weight_g: 210 },
              { material: 'steel', weight_g: 6 },
              { material: 'plastic_pe_pp_flexible', weight_g: 3.2 },
            ],
          },
        ],
      });
    expect(products.status).toBe(201);
    expect(
      (
        await request(t.url)
          .post('/api/v1/sales?period=2025-S1')
          .set(client)
          .send({ sales: [{ reference: 'POT-210', units: 1000 }] })
      ).status,
    ).toBe(200);
    const filed = await request(t.url).post('/api/v1/periods/2025-S1/derived-declaration').set(client).send({});
    expect(filed.status).toBe(201);
    const id = filed.body.id as string;
    expect((filed.body.lines as { material: string }[]).map((l) => l.material)).toContain('glass');

    for (const [language, glass, flexible] of [
      ['fr', 'Verre', 'Emballages souples en PE et PP'],
      ['en', 'Glass', 'Flexible PE and PP packaging'],
    ] as const) {
      const browser = await signedIn(t, clientId, language);
      const page = await browser.get(`/dashboard/declarations/${id}`);
      expect(page.status).toBe(200);
      const main = page.html.slice(page.html.indexOf('<main'), page.html.indexOf('</main>'));
      expect(main).not.toMatch(/>(glass|steel|plastic_pe_pp_flexible)</);
      expect(main).toContain(`>${glass}<`);
      const csv = (await browser.get(`/dashboard/declarations/${id}/csv`)).html;
      expect(csv).not.toMatch(/glass|steel|plastic_pe_pp_flexible/);
      expect(csv).toContain(glass);
      expect(csv).toContain(flexible);
    }
  });
});
