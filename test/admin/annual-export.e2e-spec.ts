/** The annual filing per eco-organism: S1 + S2 from current revisions, missing half-years, JSON and CSV in both dialects. */
import request from 'supertest';
import { createClientWithToken } from '../support/factories.js';
import { ADMIN_TOKEN, startTestApp, type TestApp } from '../support/test-app.js';

let t: TestApp;
const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
const line = (material: string, quantity: number, unit = 'uvc') => ({ stream: 'EMB', material, unit, quantity });
const submit = async (token: string, period: string, lines: unknown[]) => {
  const res = await request(t.url).post('/api/v1/declarations').set('authorization', `Bearer ${token}`).send({ period, lines });
  expect(res.status).toBe(201);
  return res.body as { receipt: string };
};
const setStream = async (clientId: string, eco_organism: string) =>
  expect(
    (await request(t.url).put(`/api/v1/admin/clients/${clientId}/streams/EMB`).set(admin).send({ eco_organism, liable_from: '2025-S1' }))
      .status,
  ).toBe(200);

let a: { clientId: string; token: string };
let b: { clientId: string; token: string };
let late: { clientId: string; token: string };
let aS2: { receipt: string };
let aS1: { receipt: string };

beforeAll(async () => {
  t = await startTestApp();
  a = await createClientWithToken(t, { client_id: 'annual-a', company: 'Alpha SAS' });
  b = await createClientWithToken(t, { client_id: 'annual-b', company: 'Bravo SAS' });
  late = await createClientWithToken(t, { client_id: 'annual-late', company: 'Tardif SARL' });
  await setStream(a.clientId, 'Citeo');
  await setStream(b.clientId, 'Léko');
  await setStream(late.clientId, 'Citeo');
  // a: S1 revised (only revision 2 counts), S2 once.
  await submit(a.token, '2025-S1', [line('Verre', 100)]);
  aS1 = await submit(a.token, '2025-S1', [line('Verre', 1000.5, 'kg'), line('Verre', 120), line('Film étirable', 3)]);
  aS2 = await submit(a.token, '2025-S2', [line('glass', 0.25, 'kg'), line('Verre', 80)]);
  await submit(b.token, '2025-S1', [line('Verre', 7)]);
  await submit(b.token, '2025-S2', [line('Verre', 8)]);
  // late declared S1 only.
  await submit(late.token, '2025-S1', [line('Verre', 1)]);
}, 120_000);
afterAll(async () => {
  await t?.close();
});

describe('GET /api/v1/admin/years/{year}/export', () => {
  it('JSON: per client, stream, material and unit, S1 + S2 of the current revisions, naming them; missing half-years', async () => {
    const res = await request(t.url).get('/api/v1/admin/years/2025/export?eco_organism=Citeo').set(admin);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.body.year).toBe(2025);
    expect(res.body.eco_organism).toBe('Citeo');
    const rows = res.body.rows.filter((r: { client_id: string }) => r.client_id === a.clientId);
    expect(rows).toEqual([
      expect.objectContaining({
        stream: 'EMB',
        material: 'Film étirable',
        material_category: null,
        unit: 'uvc',
        quantity: '3',
        revisions: { s1: aS1.receipt, s2: null },
      }),
      expect.objectContaining({
        stream: 'EMB',
        material: null,
        material_category: 'glass',
        unit: 'kg',
        quantity: '1000.75',
        revisions: { s1: aS1.receipt, s2: aS2.receipt },
      }),
      expect.objectContaining({
        stream: 'EMB',
        material: null,
        material_category: 'glass',
        unit: 'uvc',
        quantity: '200',
        revisions: { s1: aS1.receipt, s2: aS2.receipt },
      }),
    ]);
    expect(rows[0]).toMatchObject({ company: 'Alpha SAS', eco_organism: 'Citeo', country: 'FR' });
    // Léko's client is not in Citeo's filing.
    expect(res.body.rows.map((r: { client_id: string }) => r.client_id)).not.toContain(b.clientId);
    expect(res.body.missing_clients).toEqual([
      { client_id: late.clientId, company: 'Tardif SARL', email: expect.any(String), missing_periods: ['2025-S2'] },
    ]);

    const all = await request(t.url).get('/api/v1/admin/years/2025/export').set(admin);
    expect(all.body.eco_organism).toBeNull();
    expect(new Set(all.body.rows.map((r: { client_id: string }) => r.client_id))).toEqual(new Set([a.clientId, b.clientId, late.clientId]));
    expect(all.body.rows.find((r: { client_id: string }) => r.client_id === b.clientId)).toMatchObject({
      eco_organism: 'Léko',
      quantity: '15',
    });
  });

  it('CSV in both dialects: total rows then missing rows; French headers, semicolons and decimal commas', async () => {
    const en = await request(t.url)
      .get('/api/v1/admin/years/2025/export?eco_organism=Citeo')
      .set(admin)
      .set('accept', 'text/csv')
      .buffer(true)
      .parse((res, cb) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => cb(null, Buffer.concat(chunks)));
      });
    expect(en.status).toBe(200);
    expect(en.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(en.headers['content-disposition']).toBe('attachment; filename="epr-annual-2025-Citeo.csv"');
    const text = (en.body as Buffer).toString('utf8');
    expect(text.startsWith('\uFEFFkind,year,eco_organism,client_id,')).toBe(true);
    const lines = text.slice(1).trim().split('\r\n');
    expect(lines.filter((l) => l.startsWith('total,'))).toHaveLength(4);
    expect(lines).toContain(
      `total,2025,Citeo,${a.clientId},Alpha SAS,FR,FR000000_01ABCD,EMB,,glass,kg,1000.75,${aS1.receipt},${aS2.receipt},`,
    );
    expect(lines.at(-1)).toMatch(new RegExp(`^missing,2025,Citeo,${late.clientId},Tardif SARL,.*,2025-S2$`));

    // The CSV's own operation (typed as text for generated clients): the same file, whatever Accept says.
    const fr = await request(t.url)
      .get('/api/v1/admin/years/2025/export.csv?eco_organism=Citeo&dialect=fr')
      .set(admin)
      .set('accept', 'application/json');
    expect(fr.status).toBe(200);
    expect(fr.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(fr.headers['content-disposition']).toBe('attachment; filename="epr-annual-2025-Citeo.csv"');
    expect(fr.text).toContain('type;année;éco-organisme;identifiant client;');
    expect(fr.text).toContain(`total;2025;Citeo;${a.clientId};Alpha SAS;FR;FR000000_01ABCD;EMB;;glass;kg;"1000,75";`);
    const french = await request(t.url)
      .get('/api/v1/admin/years/2025/export?eco_organism=Citeo&dialect=fr')
      .set(admin)
      .set('accept', 'text/csv');
    expect(french.text).toBe(fr.text);
    const english = await request(t.url)
      .get('/api/v1/admin/years/2025/export.csv?eco_organism=Citeo')
      .set(admin)
      .buffer(true)
      .parse((res, cb) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => cb(null, Buffer.concat(chunks)));
      });
    expect((english.body as Buffer).equals(en.body as Buffer)).toBe(true);
  });

  it('refuses an eco-organism the published data does not list, with the list; a malformed year is 404', async () => {
    const res = await request(t.url).get('/api/v1/admin/years/2025/export?eco_organism=Ecomaison').set(admin);
    expect(res.status).toBe(422);
    expect(res.body.errors[0]).toMatchObject({ pointer: '/query/eco_organism', code: 'unknown_eco_organism' });
    expect(res.body.errors[0].detail).toContain('Citeo');
    const dialect = await request(t.url).get('/api/v1/admin/years/2025/export?dialect=de').set(admin);
    expect(dialect.status).toBe(422);
    expect(dialect.body.errors[0]).toMatchObject({ pointer: '/query/dialect', code: 'invalid_csv_dialect' });
    // The CSV operation checks its query the same way, before anything is sent.
    const both = await request(t.url).get('/api/v1/admin/years/2025/export.csv?eco_organism=&dialect=de').set(admin);
    expect(both.status).toBe(422);
    expect(both.body.errors.map((e: { pointer: string }) => e.pointer)).toEqual(['/query/eco_organism', '/query/dialect']);
    const unlisted = await request(t.url).get('/api/v1/admin/years/2025/export.csv?eco_organism=Ecomaison').set(admin);
    expect(unlisted.body.errors[0]).toMatchObject({ pointer: '/query/eco_organism', code: 'unknown_eco_organism' });
    for (const year of ['25', '2025-S1', 'abcd']) {
      expect((await request(t.url).get(`/api/v1/admin/years/${year}/export`).set(admin)).status).toBe(404);
      expect((await request(t.url).get(`/api/v1/admin/years/${year}/export.csv`).set(admin)).status).toBe(404);
    }
    // A year nobody declared: empty rows.
    const empty = await request(t.url).get('/api/v1/admin/years/2023/export').set(admin);
    expect(empty.body).toEqual({ year: 2023, eco_organism: null, rows: [], missing_clients: [] });
  });
});

describe('the units sold in the annual filing', () => {
  it('a row of their own (S1 + S2 as stated), never the uvc lines added up; none when a half-year does not state them', async () => {
    const c = await createClientWithToken(t, { client_id: 'annual-units', company: 'Unités SAS' });
    await setStream(c.clientId, 'Citeo');
    const file = (period: string, lines: unknown[], unitsSold?: number) =>
      request(t.url)
        .post('/api/v1/declarations')
        .set('authorization', `Bearer ${c.token}`)
        .send({ period, lines, ...(unitsSold === undefined ? {} : { units_sold: [{ stream: 'EMB', quantity: unitsSold }] }) });
    expect((await file('2024-S1', [line('paper_cardboard', 85000), line('glass', 60000)], 90000)).status).toBe(201);
    expect((await file('2024-S2', [line('glass', 10000)], 10000)).status).toBe(201);
    const rowsOf = async () =>
      (await request(t.url).get('/api/v1/admin/years/2024/export?eco_organism=Citeo').set(admin)).body.rows
        .filter((r: { client_id: string }) => r.client_id === c.clientId)
        .map((r: Record<string, unknown>) => [r.material, r.material_category, r.unit, r.quantity]);
    expect(await rowsOf()).toEqual([
      [null, 'glass', 'uvc', '70000'],
      [null, 'paper_cardboard', 'uvc', '85000'],
      // 90,000 + 10,000 units sold, each once (the lines would add up to 155,000).
      [null, null, 'uvc', '100000'],
    ]);
    const csv = (await request(t.url).get('/api/v1/admin/years/2024/export.csv?eco_organism=Citeo').set(admin)).text;
    expect(csv).toMatch(/\r\nunits_sold,2024,Citeo,annual-units,Unités SAS,[^\r]*,EMB,,,uvc,100000,/);
    // S2 filed again without its units sold: the year's would be S1's alone, so none is given.
    expect((await file('2024-S2', [line('glass', 10000)])).status).toBe(201);
    expect((await rowsOf()).filter((r: unknown[]) => r[1] === null)).toEqual([]);
  });
});
