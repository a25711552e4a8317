/**
 * Declarations in the dashboard: the form, the spreadsheet upload, the list, one declaration with
 * its revisions, and its CSV download; every submission goes through the API's own rules.
 */
import request from 'supertest';
import { type DashboardClient, signedIn } from '../support/dashboard-browser.js';
import { createClient, createClientWithToken } from '../support/factories.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
}, 60_000);
afterAll(async () => {
  await t?.close();
});

const count = async (clientId: string) => (await t.pool.query(`SELECT count(*)::int AS n FROM declarations WHERE client_id = $1`, [clientId])).rows[0].n as number;
const idOf = (location: string | null) => /^\/dashboard\/declarations\/([0-9a-f-]{36})\?result=(filed|unchanged)$/.exec(location ?? '');

async function submitForm(browser: DashboardClient, period: string, lines: Array<[string, string, string, string]>) {
  return browser.post('/dashboard/declarations', {
    period,
    stream: lines.map((l) => l[0]),
    material: lines.map((l) => l[1]),
    unit: lines.map((l) => l[2]),
    quantity: lines.map((l) => l[3]),
    action: 'submit',
  });
}

/** The form, then its check page's "Declare and file" with a name: what a person does to file. */
async function fileForm(browser: DashboardClient, period: string, lines: Array<[string, string, string, string]>) {
  const check = await submitForm(browser, period, lines);
  expect(check.status).toBe(200);
  return browser.declare(check, 'Claire Martin');
}

describe('a declaration by form', () => {
  it('stores what the API would (decimal comma, blank lines left out), then shows it with its receipt', async () => {
    const { clientId } = await createClient(t);
    const browser = await signedIn(t, clientId);
    const form = await browser.get('/dashboard/declarations/new');
    expect(form.status).toBe(200);
    expect(form.html).toContain('<option value="EMB">');
    expect(form.html).toContain('<option value="uvc">');
    const res = await fileForm(browser, '2025-S1', [
      ['EMB', 'Verre', 'kg', '1200,5'],
      ['', '', '', ''],
      ['EMB', 'Verre', 'uvc', '3000'],
    ]);
    expect(res.status).toBe(303);
    const [, id, result] = idOf(res.location)!;
    expect(result).toBe('filed');
    const page = await browser.get(res.location!);
    expect(page.status).toBe(200);
    expect(page.html).toContain('Declaration filed');
    const stored = await t.pool.query(`SELECT unit, quantity::text FROM declaration_lines WHERE declaration_id = $1 ORDER BY position`, [id]);
    expect(stored.rows).toEqual([{ unit: 'kg', quantity: '1200.500' }, { unit: 'uvc', quantity: '3000.000' }]);

    // The same lines again: nothing new (the API's 200), said as such.
    const again = await fileForm(browser, '2025-S1', [['EMB', 'Verre', 'uvc', '3000'], ['EMB', 'Verre', 'kg', '1200.5']]);
    expect(idOf(again.location)?.slice(1)).toEqual([id, 'unchanged']);
    expect(await count(clientId)).toBe(1);

    // A new revision supersedes it; the page lists both revisions.
    const second = await fileForm(browser, '2025-S1', [['EMB', 'Verre', 'kg', '1300'], ['EMB', 'Verre', 'uvc', '3100']]);
    const secondId = idOf(second.location)![1]!;
    const detail = await browser.get(`/dashboard/declarations/${secondId}`);
    expect(detail.html).toContain('revision 2 (this one)');
    expect(detail.html).toContain(`href="/dashboard/declarations/${id}"`);
  });

  it('shows every problem next to its line and field (422) and stores nothing', async () => {
    const { clientId } = await createClient(t);
    const browser = await signedIn(t, clientId);
    const res = await submitForm(browser, '2025-S9', [
      ['EMB', 'Verre', 'kg', '-3'],
      ['EMB', 'Carton', 'litre', '12'],
    ]);
    expect(res.status).toBe(422);
    expect(res.html).toContain('Nothing was recorded.');
    expect(res.html).toContain('id="period-error"');
    expect(res.html).toMatch(/id="quantity-0-error">[^<]*negative/);
    expect(res.html).toContain('id="unit-1-error"');
    // The summary links each problem to its field.
    expect(res.html).toContain('<a href="#quantity-0">Line 1, quantity:');
    expect(res.html).toContain('<a href="#period">');
    // What was typed is kept.
    expect(res.html).toContain('value="Carton"');
    expect(await count(clientId)).toBe(0);
  });

  it('"Add a line" keeps what was typed and adds a blank line, storing nothing', async () => {
    const { clientId } = await createClient(t);
    const browser = await signedIn(t, clientId);
    const res = await browser.post('/dashboard/declarations', { period: '2025-S2', stream: ['EMB'], material: ['Verre'], unit: ['kg'], quantity: ['7'], action: 'add' });
    expect(res.status).toBe(200);
    expect(res.html).toContain('value="Verre"');
    expect(res.html).toContain('id="quantity-1"');
    expect(res.html).not.toContain('id="quantity-2"');
    expect(await count(clientId)).toBe(0);
  });

  it('a pending account is told why nothing can be declared yet', async () => {
    const { clientId } = await createClient(t, { company: 'En Attente SARL' }, { confirm: false });
    const browser = await signedIn(t, clientId);
    const overview = (await browser.get('/dashboard')).html;
    expect(overview).toContain('Onboarding pending.');
    // What is pending: the profile the operator recorded, not yet in force.
    expect(overview).toContain('Waiting for the operator’s confirmation');
    expect(overview).toContain('En Attente SARL');
    const res = await submitForm(browser, '2025-S1', [['EMB', 'Verre', 'kg', '1']]);
    expect(res.status).toBe(422);
    expect(res.html).toContain('Your account is not confirmed yet');
  });
});

describe('a declaration from a spreadsheet', () => {
  it('uploads a French semicolon CSV in Windows-1252 and lists it; a bad file shows its rows', async () => {
    const { clientId } = await createClient(t);
    const browser = await signedIn(t, clientId);
    const file = Buffer.from('flux;matériau;unité;quantité\r\nEMB;Verre;kg;12,5\r\nEMB;Verre;uvc;40\r\n', 'latin1');
    const check = await browser.upload('/dashboard/declarations/upload', { period: '2025-S2' }, { name: 'ventes.csv', content: file });
    expect(check.status).toBe(200);
    expect(await count(clientId)).toBe(0);
    const res = await browser.declare(check, 'Claire Martin');
    expect(res.status).toBe(303);
    const id = idOf(res.location)![1]!;
    const list = await browser.get('/dashboard/declarations');
    expect(list.html).toContain(`href="/dashboard/declarations/${id}"`);
    expect(list.html).toContain('2025-S2');

    const bad = await browser.upload('/dashboard/declarations/upload', { period: '2025-S2' }, { name: 'bad.csv', content: 'stream,material,unit,quantity\nEMB,Verre,kg,abc\nEMB,Verre,uvc,1.5\n' });
    expect(bad.status).toBe(422);
    expect(bad.html).toContain('Nothing was recorded from bad.csv.');
    expect(bad.html).toContain('Row 2 of the file, quantity column:');
    expect(bad.html).toContain('Row 3 of the file, quantity column:');
    // The row is named once, not again inside the message.
    expect(bad.html).not.toMatch(/Row 2 of the file[^<]*row 2/i);
    const none = await browser.upload('/dashboard/declarations/upload', { period: '2025-S2' }, { name: 'empty.csv', content: '' });
    expect(none.status).toBe(422);
    // A broken multipart body: a 400 page, nothing stored.
    const broken = await fetch(`${t.url}/dashboard/declarations/upload`, {
      method: 'POST',
      headers: { cookie: [...browser.cookies].map(([n, v]) => `${n}=${v}`).join('; '), 'content-type': 'multipart/form-data; boundary=xyz' },
      body: '--xyz\r\nContent-Disposition: form-data; name="period"\r\n\r\n2025-S2',
      redirect: 'manual',
    });
    expect([broken.status, broken.headers.get('content-type')]).toEqual([400, 'text/html; charset=utf-8']);
    expect(await count(clientId)).toBe(1);
  });

  it('downloads a declaration as the same CSV as the API gives', async () => {
    const { clientId, token } = await createClientWithToken(t);
    const api = await request(t.url)
      .post('/api/v1/declarations')
      .set('authorization', `Bearer ${token}`)
      .send({ period: '2024-S2', lines: [{ stream: 'EMB', material: '=cmd', unit: 'kg', quantity: 0.5 }, { stream: 'EMB', material: '=cmd', unit: 'uvc', quantity: 2 }] });
    const browser = await signedIn(t, clientId);
    const fromPage = await browser.get(`/dashboard/declarations/${api.body.id}/csv`);
    expect(fromPage.status).toBe(200);
    expect(fromPage.headers.get('content-disposition')).toBe('attachment; filename="declaration-2024-S2-r1.csv"');
    const fromApi = await request(t.url).get(`/api/v1/declarations/${api.body.id}`).set('authorization', `Bearer ${token}`).set('accept', 'text/csv').buffer(true).parse((res, done) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => done(null, text));
    });
    expect(fromPage.html).toBe(fromApi.body);
  });

  it('lists with filters and pages through with the cursor', async () => {
    const { clientId, token } = await createClientWithToken(t);
    for (const period of ['2023-S1', '2023-S2', '2024-S1']) {
      await request(t.url).post('/api/v1/declarations').set('authorization', `Bearer ${token}`).send({ period, lines: [{ stream: 'EMB', material: 'Verre', unit: 'kg', quantity: 1 }, { stream: 'EMB', material: 'Verre', unit: 'uvc', quantity: 1 }] });
    }
    const browser = await signedIn(t, clientId);
    const filtered = await browser.get('/dashboard/declarations?period=2023-S2');
    expect(filtered.html).toContain('2023-S2');
    expect(filtered.html).not.toContain('>2024-S1<');
    const first = await browser.get('/dashboard/declarations?limit=2');
    const next = /href="\/dashboard\/declarations(\?[^"]+)" rel="next"/.exec(first.html)![1]!.replace(/&amp;/g, '&');
    const second = await browser.get(`/dashboard/declarations${next}`);
    expect(second.html).toContain('>2023-S1<');
    const bad = await browser.get('/dashboard/declarations?period=2023-S7');
    expect(bad.status).toBe(422);
    expect(bad.headers.get('content-type')).toContain('text/html');
  });
});
