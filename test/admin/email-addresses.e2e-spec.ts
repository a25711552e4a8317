/**
 * One rule for e-mail addresses wherever one enters (the admin API's create and change, the
 * clients import, the dashboard's sign-in form): the same normalisation (trimmed, NFC, the domain in
 * lower case, an internationalised one in its ASCII form) and the same refusal of look-alikes, with
 * a problem that points at the field; duplicates judged on the normalised address and company.
 */
import type { ParsedMail } from 'mailparser';
import request from 'supertest';
import { DashboardClient } from '../support/dashboard-browser.js';
import { createClient } from '../support/factories.js';
import { type Mailbox, startMailbox } from '../support/mailbox.js';
import { ADMIN_TOKEN, startTestApp, type TestApp } from '../support/test-app.js';

let t: TestApp;
let mailbox: Mailbox;
let inbox: ParsedMail[];

beforeAll(async () => {
  mailbox = await startMailbox();
  inbox = mailbox.inbox;
  t = await startTestApp({ env: { SMTP_URL: mailbox.url, MAIL_FROM: 'dashboard@epr.example.org' } });
}, 60_000);

afterAll(async () => {
  await t?.close();
  await mailbox?.close();
});

const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
const LOOKALIKES = [
  'compliance-a@exеmple.fr', // a Cyrillic е in a Latin domain
  'İ@exemple.fr',
  'ｃompliance@exemple.fr', // a full-width c
  'compliance@срасе.fr', // Cyrillic letters throughout that read as Latin
];
const importFile = (csv: string, query = '') =>
  request(t.url).post(`/api/v1/admin/clients/import${query}`).set(admin).set('content-type', 'text/csv').send(Buffer.from(csv, 'utf8'));

describe('the admin API', () => {
  it('POST /clients refuses look-alike addresses with 422 email_characters at /email, and creates nothing', async () => {
    const before = (await t.pool.query('SELECT count(*)::int AS n FROM clients')).rows[0].n;
    for (const email of LOOKALIKES) {
      const res = await request(t.url).post('/api/v1/admin/clients').set(admin).send({ company: 'Exemple SAS', email });
      expect([email, res.status]).toEqual([email, 422]);
      expect(res.body.errors).toEqual([expect.objectContaining({ pointer: '/email', code: 'email_characters' })]);
    }
    expect((await t.pool.query('SELECT count(*)::int AS n FROM clients')).rows[0].n).toBe(before);
  });

  it('stores the address normalised: trimmed, its domain in lower case, an internationalised domain in ASCII', async () => {
    const created = await request(t.url).post('/api/v1/admin/clients').set(admin).send({ email: '  Lea.Martin@Exemple.FR ' });
    expect(created.status).toBe(201);
    expect(created.body.pending.email).toBe('Lea.Martin@exemple.fr');
    const patched = await request(t.url)
      .patch(`/api/v1/admin/clients/${created.body.client_id}`)
      .set(admin)
      .send({ email: 'achats@München.de' });
    expect(patched.status).toBe(200);
    expect(patched.body.pending.email).toBe('achats@xn--mnchen-3ya.de');
  });

  it('PATCH refuses look-alike addresses the same way, and changes nothing', async () => {
    const { clientId } = await createClient(t, { email: `avant.${Date.now()}@exemple.fr` });
    for (const email of LOOKALIKES) {
      const res = await request(t.url).patch(`/api/v1/admin/clients/${clientId}`).set(admin).send({ email });
      expect([email, res.status, res.body.errors?.[0]?.code, res.body.errors?.[0]?.pointer]).toEqual([
        email,
        422,
        'email_characters',
        '/email',
      ]);
    }
    expect((await request(t.url).get(`/api/v1/admin/clients/${clientId}`).set(admin)).body.pending.email).toMatch(/^avant\./);
  });
});

describe('the clients import', () => {
  it('refuses look-alike addresses at their cell', async () => {
    const csv = `company,email\n${LOOKALIKES.map((email, i) => `Société ${i},${email}`).join('\n')}\n`;
    const res = await importFile(csv);
    expect(res.status).toBe(422);
    expect(res.body.errors.map((e: { pointer: string; code: string }) => [e.pointer, e.code])).toEqual(
      LOOKALIKES.map((_, i) => [`/rows/${i + 2}/email`, 'email_characters']),
    );
  });

  it('judges duplicates on the normalised address and company: case, full-width and Cyrillic letters do not hide one', async () => {
    const inFile = await importFile(
      'company,email\nExemple SAS,achats@exemple.fr\nＥｘｅｍｐｌｅ ＳＡＳ,ACHATS@EXEMPLE.FR\nЕхеmрlе SAS, achats@Exemple.fr\nExemple  sas,achats@exemple.fr\n',
    );
    expect(inFile.status).toBe(422);
    expect(inFile.body.errors.map((e: { pointer: string; code: string }) => [e.pointer, e.code])).toEqual([
      ['/rows/3/email', 'duplicate_client'],
      ['/rows/4/email', 'duplicate_client'],
      ['/rows/5/email', 'duplicate_client'],
    ]);

    await createClient(t, { company: 'Brasserie Nord', email: 'compta@brasserie-nord.fr' }, { confirm: false });
    const existing = await importFile('company,email\nВrаssеriе Νоrd,Compta@Brasserie-Nord.FR\n');
    expect(existing.status).toBe(422);
    expect(existing.body.errors).toEqual([expect.objectContaining({ pointer: '/rows/2/email', code: 'client_exists' })]);
  });

  it('stores the addresses normalised', async () => {
    const res = await importFile('company,email\nVins du Sud SARL, Contact@Vins-Du-Sud.FR \n', '?dry_run=false');
    expect(res.status).toBe(201);
    expect(res.body.clients[0].pending.email).toBe('Contact@vins-du-sud.fr');
  });
});

describe('the dashboard’s sign-in form', () => {
  it('refuses the same look-alikes (422), and finds the client by the normalised address', async () => {
    for (const email of LOOKALIKES) {
      const res = await new DashboardClient(t.url).post('/dashboard/sign-in', { email });
      expect([email, res.status]).toEqual([email, 422]);
    }
    const { clientId } = await createClient(t, { email: 'compliance@münchen.de' });
    const { rows } = await t.pool.query('SELECT confirmed_email FROM clients WHERE client_id = $1', [clientId]);
    expect(rows[0].confirmed_email).toBe('compliance@xn--mnchen-3ya.de');
    expect((await new DashboardClient(t.url).post('/dashboard/sign-in', { email: ' Compliance@MÜNCHEN.de ' })).status).toBe(200);
    for (let waited = 0; !inbox.some((m) => m.text?.includes(clientId)) && waited < 20_000; waited += 50)
      await new Promise((r) => setTimeout(r, 50));
    expect(inbox.some((m) => m.text?.includes(clientId))).toBe(true);
  });
});
