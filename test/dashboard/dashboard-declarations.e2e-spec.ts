/**
 * Declarations in the dashboard: the form, the spreadsheet upload, the list, one declaration with
 * its revisions, and its CSV download; every submission goes through the API's own rules.
 */
import request from 'supertest';
import { type DashboardClient, signedIn, formRows } from '../support/dashboard-browser.js';
import { createClient, createClientWithToken } from '../support/factories.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
}, 60_000);
afterAll(async () => {
  await t?.close();
});

const count = async (clientId: string) =>
  (await t.pool.query(`SELECT count(*)::int AS n FROM declarations WHERE client_id = $1`, [clientId])).rows[0].n as number;
const idOf = (location: string | null) => /^\/dashboard\/declarations\/([0-9a-f-]{36})\?result=(filed|unchanged)$/.exec(location ?? '');

async function submitForm(browser: DashboardClient, period: string, lines: Array<[string, string, string, string]>) {
  return browser.post('/dashboard/declarations', {
    period,
    ...formRows(lines),
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
    // Her one stream is chosen on every row (no blank choice); kg and UVC side by side on each of 8 rows.
    expect(form.html).toContain('<option value="EMB" selected>');
    expect(form.html).not.toContain('<option value=""></option>');
    expect(form.html).toMatch(/id="row-0"[\s\S]*name="quantity_kg"[\s\S]*name="quantity_uvc"[\s\S]*id="row-1"/);
    expect(form.html).toContain('id="row-7"');
    expect(form.html).not.toContain('id="row-8"');
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
    const stored = await t.pool.query(`SELECT unit, quantity::text FROM declaration_lines WHERE declaration_id = $1 ORDER BY position`, [
      id,
    ]);
    expect(stored.rows).toEqual([
      { unit: 'kg', quantity: '1200.500' },
      { unit: 'uvc', quantity: '3000.000' },
    ]);

    // The same lines again: nothing new (the API's 200), said as such.
    const again = await fileForm(browser, '2025-S1', [
      ['EMB', 'Verre', 'uvc', '3000'],
      ['EMB', 'Verre', 'kg', '1200.5'],
    ]);
    expect(idOf(again.location)?.slice(1)).toEqual([id, 'unchanged']);
    expect(await count(clientId)).toBe(1);

    // A new revision supersedes it; the page lists both revisions.
    const second = await fileForm(browser, '2025-S1', [
      ['EMB', 'Verre', 'kg', '1300'],
      ['EMB', 'Verre', 'uvc', '3100'],
    ]);
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
      ['EMB', 'Carton', 'uvc', '12.5'],
    ]);
    expect(res.status).toBe(422);
    expect(res.html).toContain('Nothing was recorded.');
    expect(res.html).toContain('id="period-error"');
    expect(res.html).toMatch(/id="quantity_kg-0-error">[^<]*negative/);
    expect(res.html).toContain('id="quantity_uvc-1-error"');
    // The summary links each problem to its cell, naming the unit's column of the row.
    expect(res.html).toContain('<a href="#quantity_kg-0">Line 1, quantity (kg):');
    expect(res.html).toContain('<a href="#quantity_uvc-1">Line 2, quantity (UVC):');
    expect(res.html).toContain('<a href="#period">');
    // What was typed is kept.
    expect(res.html).toContain('value="Carton"');
    expect(await count(clientId)).toBe(0);
  });

  it('"Add a line" keeps what was typed, adds a blank row and comes back at it (focused), storing nothing', async () => {
    const { clientId } = await createClient(t);
    const browser = await signedIn(t, clientId);
    const form = await browser.get('/dashboard/declarations/new');
    expect(form.html).not.toContain('autofocus');
    const typed = formRows([
      ['EMB', 'Verre', 'kg', '7'],
      ['EMB', 'Verre', 'uvc', '20 000'],
      ...Array.from({ length: 7 }, () => ['EMB', '', '', ''] as [string, string, string, string]),
    ]);
    const res = await browser.post('/dashboard/declarations', { period: '2025-S2', ...typed, action: 'add' });
    expect(res.status).toBe(200);
    expect(res.html).toContain('value="Verre"');
    expect(res.html).toContain('value="20 000"');
    expect(res.html).toContain('id="row-8"');
    expect(res.html).not.toContain('id="row-9"');
    // The new row's first field is focused (the browser scrolls to it), and only it.
    expect(res.html).toMatch(/id="material-8"[^>]*autofocus/);
    expect(res.html.match(/autofocus/g)).toHaveLength(1);
    expect(await count(clientId)).toBe(0);
  });

  it('a material on one row with kg and UVC side by side is filed as two lines, kg and uvc', async () => {
    const { clientId } = await createClient(t);
    const browser = await signedIn(t, clientId);
    const check = await browser.post('/dashboard/declarations', {
      period: '2025-S1',
      stream: ['EMB', 'EMB', 'EMB'],
      material: ['Papier-carton', 'Verre', ''],
      quantity_kg: ['3 867,5', '4 410', ''],
      quantity_uvc: ['85 000', '20 000', ''],
      units_sold_EMB: '90 000',
      action: 'submit',
    });
    expect(check.status).toBe(200);
    const res = await browser.declare(check, 'Claire Martin');
    expect(res.status).toBe(303);
    const [, id] = idOf(res.location)!;
    const stored = await t.pool.query(
      `SELECT material, unit, quantity::text FROM declaration_lines WHERE declaration_id = $1 ORDER BY position`,
      [id],
    );
    expect(stored.rows).toEqual([
      { material: 'Papier-carton', unit: 'kg', quantity: '3867.500' },
      { material: 'Papier-carton', unit: 'uvc', quantity: '85000.000' },
      { material: 'Verre', unit: 'kg', quantity: '4410.000' },
      { material: 'Verre', unit: 'uvc', quantity: '20000.000' },
    ]);
    // "Change" on the check page gives the rows back, one per material.
    const again = await browser.post('/dashboard/declarations', {
      period: '2025-S2',
      stream: ['EMB'],
      material: ['Verre'],
      quantity_kg: ['1'],
      quantity_uvc: ['2'],
      action: 'submit',
    });
    const edit = await browser.declare(again, '', 'edit');
    expect(edit.status).toBe(200);
    expect(edit.html).toContain('id="material-0" name="material" value="Verre"');
    expect(edit.html).toContain('id="quantity_kg-0" name="quantity_kg" value="1"');
    expect(edit.html).toContain('id="quantity_uvc-0" name="quantity_uvc" value="2"');
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

    const bad = await browser.upload(
      '/dashboard/declarations/upload',
      { period: '2025-S2' },
      { name: 'bad.csv', content: 'stream,material,unit,quantity\nEMB,Verre,kg,abc\nEMB,Verre,uvc,1.5\n' },
    );
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
      headers: {
        cookie: [...browser.cookies].map(([n, v]) => `${n}=${v}`).join('; '),
        'content-type': 'multipart/form-data; boundary=xyz',
      },
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
      .send({
        period: '2024-S2',
        lines: [
          { stream: 'EMB', material: '=cmd', unit: 'kg', quantity: 0.5 },
          { stream: 'EMB', material: '=cmd', unit: 'uvc', quantity: 2 },
        ],
      });
    const browser = await signedIn(t, clientId);
    const fromPage = await browser.get(`/dashboard/declarations/${api.body.id}/csv`);
    expect(fromPage.status).toBe(200);
    expect(fromPage.headers.get('content-disposition')).toBe('attachment; filename="declaration-2024-S2-r1.csv"');
    const fromApi = await request(t.url)
      .get(`/api/v1/declarations/${api.body.id}`)
      .set('authorization', `Bearer ${token}`)
      .set('accept', 'text/csv')
      .buffer(true)
      .parse((res, done) => {
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
      await request(t.url)
        .post('/api/v1/declarations')
        .set('authorization', `Bearer ${token}`)
        .send({
          period,
          lines: [
            { stream: 'EMB', material: 'Verre', unit: 'kg', quantity: 1 },
            { stream: 'EMB', material: 'Verre', unit: 'uvc', quantity: 1 },
          ],
        });
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

describe("files in the page's dialect", () => {
  const BOM = '\ufeff';
  const LINES = [
    { stream: 'EMB', material: 'Verre', unit: 'kg', quantity: 1200.5 },
    { stream: 'EMB', material: 'Verre', unit: 'uvc', quantity: 4800 },
    // Could be read as 1234 in a file of whole numbers: written with a fourth place, it reads back as meant.
    { stream: 'EMB', material: 'Papier-carton', unit: 'kg', quantity: 1.234 },
    { stream: 'EMB', material: 'Papier-carton', unit: 'uvc', quantity: 3 },
  ];

  it.each([
    [
      'fr',
      `${BOM}filière;matériau;unité;quantité\r\nEMB;Verre;kg;"1200,5"\r\nEMB;Verre;uvc;4800\r\nEMB;Papier-carton;kg;"1,2340"\r\nEMB;Papier-carton;uvc;3\r\n`,
    ],
    [
      'en',
      `${BOM}stream,material,unit,quantity\r\nEMB,Verre,kg,1200.5\r\nEMB,Verre,uvc,4800\r\nEMB,Papier-carton,kg,1.2340\r\nEMB,Papier-carton,uvc,3\r\n`,
    ],
  ])('in %s: the download is in that dialect and uploads again unchanged (the same lines: no new revision)', async (language, expected) => {
    const { clientId, token } = await createClientWithToken(t);
    const api = await request(t.url)
      .post('/api/v1/declarations')
      .set('authorization', `Bearer ${token}`)
      .send({ period: '2024-S1', lines: LINES });
    expect(api.status).toBe(201);
    const browser = await signedIn(t, clientId, language);
    const file = await browser.get(`/dashboard/declarations/${api.body.id}/csv`);
    expect([file.status, file.headers.get('content-type')]).toEqual([200, 'text/csv; charset=utf-8']);
    expect(file.html).toBe(expected);
    const check = await browser.upload(
      '/dashboard/declarations/upload',
      { period: '2024-S1' },
      { name: 'declaration-2024-S1-r1.csv', content: Buffer.from(file.html, 'utf8') },
    );
    expect(check.status).toBe(200);
    const again = await browser.declare(check, 'Claire Martin');
    expect(idOf(again.location)?.slice(1)).toEqual([api.body.id, 'unchanged']);
    const stored = await t.pool.query(`SELECT quantity::text FROM declaration_lines WHERE declaration_id = $1 ORDER BY position`, [
      api.body.id,
    ]);
    expect(stored.rows.map((r) => r.quantity)).toEqual(['1200.500', '4800.000', '1.234', '3.000']);
    expect(await count(clientId)).toBe(1);
  });

  it.each([
    [
      'fr',
      'modele-declaration.csv',
      /^\ufefffilière;matériau;unité;quantité\r\n"# Les lignes qui commencent par # sont des remarques[^\r\n]*\r\n(# EMB;[^;\r\n]+;(kg|uvc);1250\r\n){2}$/,
    ],
    [
      'en',
      'declaration-template.csv',
      /^\ufeffstream,material,unit,quantity\r\n"# Rows starting with # are notes and examples[^\r\n]*\r\n(# EMB,[^,\r\n]+,(kg|uvc),1250\r\n){2}$/,
    ],
  ])(
    'in %s: the template is in that dialect; its examples are comments that file nothing until their # is taken away',
    async (language, name, shape) => {
      const { clientId } = await createClient(t);
      const browser = await signedIn(t, clientId, language);
      const form = await browser.get('/dashboard/declarations/new');
      expect(form.html).toContain('href="/dashboard/declarations/template.csv"');
      const template = await browser.get('/dashboard/declarations/template.csv');
      expect([template.status, template.headers.get('content-type'), template.headers.get('content-disposition')]).toEqual([
        200,
        'text/csv; charset=utf-8',
        `attachment; filename="${name}"`,
      ]);
      expect(template.html).toMatch(shape);
      // Sent as downloaded: nothing filed, and the page says there is no line.
      const unchanged = await browser.upload(
        '/dashboard/declarations/upload',
        { period: '2024-S2' },
        { name, content: Buffer.from(template.html, 'utf8') },
      );
      expect(unchanged.status).toBe(422);
      expect(unchanged.html).toContain(language === 'fr' ? 'La déclaration ne comporte aucune ligne.' : 'The declaration has no line.');
      // Why: the rows starting with # are not read, and what to do.
      expect(unchanged.html).toContain(
        language === 'fr'
          ? 'Les 3 lignes du fichier qui commencent par # (remarques et exemples du modèle) ne sont jamais lues'
          : 'The file’s 3 rows that start with # (the template’s notes and examples) are never read',
      );
      expect(await count(clientId)).toBe(0);
      // The examples kept on purpose (their # taken away): filed.
      const check = await browser.upload(
        '/dashboard/declarations/upload',
        { period: '2024-S2' },
        { name, content: Buffer.from(template.html.replace(/^# /gm, ''), 'utf8') },
      );
      expect(check.status).toBe(200);
      const kept = await browser.declare(check, 'Claire Martin');
      expect([kept.status, idOf(kept.location)?.[2]]).toEqual([303, 'filed']);
    },
  );
});

describe('an upload with problems gives the file back as an error report', () => {
  /** The report the page links to: its file name and its text (a data: link, nothing kept on the server). */
  const reportOf = (html: string) => {
    const link = /<a href="data:text\/csv;charset=utf-8;base64,([A-Za-z0-9+/=]+)" download="([^"]+)" id="upload-report">/.exec(html);
    return link ? { name: link[2]!, text: Buffer.from(link[1]!, 'base64').toString('utf8') } : undefined;
  };

  it("in French, for a French file: each problem's row, column, type, code and what to do, then the row's cells, in the file's dialect", async () => {
    const { clientId } = await createClient(t);
    const browser = await signedIn(t, clientId, 'fr');
    const file = 'flux;matériau;unité;quantité\r\nEMB;Verre;kg;12,5 kg\r\nEMB;Verre;litre;40\r\nEMB;Carton;kg;1\u00a0200,5\r\n';
    const res = await browser.upload('/dashboard/declarations/upload', { period: '2025-S1' }, { name: 'ventes S1.csv', content: file });
    expect(res.status).toBe(422);
    const report = reportOf(res.html)!;
    expect(report.name).toBe('rapport-erreurs-ventes-S1.csv');
    const [header, ...rows] = report.text
      .replace(/^\ufeff/, '')
      .trimEnd()
      .split('\r\n');
    expect(report.text.startsWith('\ufeff')).toBe(true);
    // No column of codes: what is wrong is said in words.
    expect(header).toBe('ligne;colonne;type;message;filière;matériau;unité;quantité');
    expect(report.text).not.toMatch(/number_has_unit|companion_line_missing|unit_not_allowed/);
    const cells = rows.map((row) => row.split(';'));
    // In the order of the file; each with what to do, in French.
    expect(cells.map((c) => [c[0], c[1], c[2]])).toEqual([
      ['2', 'quantité', 'erreur'],
      ['2', 'unité', 'erreur'],
      ['3', 'unité', 'erreur'],
      ['4', 'unité', 'erreur'],
    ]);
    expect(rows[0]).toContain('Écrivez le nombre seul, sans unité ni symbole');
    expect(rows[0]!.endsWith(';EMB;Verre;kg;"12,5 kg"')).toBe(true);
    expect(rows[3]!.endsWith(';EMB;Carton;kg;"1\u00a0200,5"')).toBe(true);
    // The page says what the report holds and its cap.
    expect(res.html).toContain('Télécharger le rapport d’erreurs (CSV)');
    expect(res.html).toContain('Il liste au plus 1\u202f000 problèmes.');
    expect(await count(clientId)).toBe(0);
  });

  it('in English, for a comma file; past the cap, the first 1,000 problems of all those found, said so', async () => {
    const { clientId } = await createClient(t);
    const browser = await signedIn(t, clientId, 'en');
    // 600 rows, each with two problems (a fifth cell, a quantity with a unit): 1,200 found.
    const file = `stream,material,unit,quantity\n${Array.from({ length: 600 }, (_, i) => `EMB,Verre ${i},kg,${i} kg,x\n`).join('')}`;
    const res = await browser.upload('/dashboard/declarations/upload', { period: '2025-S1' }, { name: 'big.csv', content: file });
    expect(res.status).toBe(422);
    const report = reportOf(res.html)!;
    expect(report.name).toBe('error-report-big.csv');
    const [header, ...rows] = report.text
      .replace(/^\ufeff/, '')
      .trimEnd()
      .split('\r\n');
    expect(header).toBe('row,column,type,message,stream,material,unit,quantity');
    expect(rows).toHaveLength(1000);
    expect(rows[0]).toMatch(/^2,,error,/);
    expect(res.html).toMatch(
      /It lists at most 1,000 problems: here the first 1,000 of 1,\d{3}; fix them, then upload the file again to see the others\./,
    );
  });

  it("a file refused whole (no header it can read) gets a report of that problem, in the page's dialect", async () => {
    const { clientId } = await createClient(t);
    const browser = await signedIn(t, clientId, 'fr');
    const res = await browser.upload(
      '/dashboard/declarations/upload',
      { period: '2025-S1' },
      { name: 'notes.csv', content: 'bonjour\r\n' },
    );
    expect(res.status).toBe(422);
    const report = reportOf(res.html)!;
    const [header, row] = report.text
      .replace(/^\ufeff/, '')
      .trimEnd()
      .split('\r\n');
    expect(header).toBe('ligne;colonne;type;message;filière;matériau;unité;quantité');
    expect(row).toMatch(/^1;;erreur;"?La première ligne du fichier doit nommer les colonnes/);
  });
});
