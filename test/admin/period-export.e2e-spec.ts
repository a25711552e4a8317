import http from 'node:http';
import request from 'supertest';
import { createClient, createClientWithToken } from '../support/factories.js';
import { ADMIN_TOKEN, startTestApp, type TestApp } from '../support/test-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t?.close();
});

const admin = () => ({ authorization: `Bearer ${ADMIN_TOKEN}` });
const PERIOD = '2025-S2';
// Food-service packaging: declared in kg alone (household packaging would need counts beside weights).
const line = (quantity: number, material: string, stream = 'CHR') => ({ stream, material, unit: 'kg', quantity });
const submit = async (token: string, lines: unknown[]) => {
  const res = await request(t.url).post('/api/v1/declarations').set('authorization', `Bearer ${token}`).send({ period: PERIOD, lines });
  expect(res.status).toBe(201);
  return res.body;
};

/** Exact decimal arithmetic on thousandths (the quantities have at most 3 decimals). */
const milli = (text: string | number) => {
  const [int, frac = ''] = String(text).split('.');
  return BigInt(int!) * 1000n + BigInt(frac.padEnd(3, '0'));
};
const decimal = (m: bigint) => {
  const frac = (m % 1000n).toString().padStart(3, '0').replace(/0+$/, '');
  return `${m / 1000n}${frac ? `.${frac}` : ''}`;
};

/** A minimal RFC 4180 reader (quoted cells, doubled quotes, CRLF or LF). */
function parseCsv(text: string, delimiter = ','): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  const endCell = () => {
    row.push(cell);
    cell = '';
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === delimiter) endCell();
    else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      endCell();
      rows.push(row);
      row = [];
    } else cell += c;
  }
  if (cell !== '' || row.length > 0) {
    endCell();
    rows.push(row);
  }
  return rows;
}

describe("a period's export and summary", () => {
  let a: { clientId: string; token: string };
  let b: { clientId: string; token: string };
  let quiet: { clientId: string };
  let pending: { clientId: string };
  let current: Array<{ stream: string; material: string; unit: string; quantity: number }>;

  beforeAll(async () => {
    a = await createClientWithToken(t, {
      client_id: 'export-a',
      company: '=HYPERLINK("http://evil")',
      idus: ['FR1_A', 'FR2_A'],
      streams: ['CHR'],
    });
    b = await createClientWithToken(t, { client_id: 'export-b', company: 'Bravo SAS', country: 'BE', streams: ['CHR'] });
    quiet = await createClient(t, { client_id: 'export-quiet', company: 'Quiet SAS', streams: ['CHR'] });
    pending = await createClient(t, { client_id: 'export-pending' }, { confirm: false });
    // Onboarded today, but declaring food-service packaging since 2025: liable for the half-years of the test.
    for (const { clientId } of [a, b, quiet]) {
      const set = await request(t.url)
        .put(`/api/v1/admin/clients/${clientId}/streams/CHR`)
        .set(admin())
        .send({ liable_from: '2025-S1', eco_organism: clientId === b.clientId ? 'Citeo Pro' : null });
      expect(set.status).toBe(200);
    }
    // a amends: only its second revision counts.
    await submit(a.token, [line(1000, 'Verre'), line(7, 'Bois')]);
    const aLines = [line(0.1, 'Verre'), line(0.2, 'glass'), line(999_999_999_999.999, 'paper_cardboard')];
    const bLines = [line(0.001, 'verre'), line(12.5, '+Palettes consignées'), line(0.7, 'Bois')];
    await submit(a.token, aLines);
    await submit(b.token, bLines);
    current = [...aLines, ...bLines];
    // Another period is not exported.
    await request(t.url)
      .post('/api/v1/declarations')
      .set('authorization', `Bearer ${b.token}`)
      .send({ period: '2025-S1', lines: [line(5, 'Verre')] });
  });

  it('summary: exact totals of the current revisions per stream, material and unit; who declared and who has not', async () => {
    const res = await request(t.url).get(`/api/v1/admin/periods/${PERIOD}/summary`).set(admin());
    expect(res.status).toBe(200);
    expect(res.body.period).toBe(PERIOD);
    expect(res.body.clients).toEqual({ confirmed: 3, liable: 3, declared: 2, missing: 1 });
    expect(res.body.ended).toBe(true);
    expect(res.body.missing_clients).toEqual([{ client_id: quiet.clientId, company: 'Quiet SAS', email: expect.any(String) }]);
    expect(JSON.stringify(res.body)).not.toContain(pending.clientId);

    const total = current.reduce((sum, l) => sum + milli(l.quantity), 0n);
    expect(res.body.stream_totals).toEqual([{ stream: 'CHR', unit: 'kg', quantity: decimal(total) }]);
    expect(res.body.stream_totals[0].quantity).toBe('1000000000013.5');
    const byMaterial = Object.fromEntries(
      res.body.totals.map((x: { material_category: string | null; material: string | null; quantity: string }) => [
        x.material_category ?? x.material,
        x.quantity,
      ]),
    );
    expect(byMaterial).toEqual({ glass: '0.301', paper_cardboard: '999999999999.999', wood: '0.7', '+Palettes consignées': '12.5' });
    const glass = res.body.totals.find((x: { material_category: string }) => x.material_category === 'glass');
    expect(glass).toMatchObject({ client_count: 2, line_count: 3 });
    // The sum of the summary's rows is the stream total, exactly.
    expect(decimal(res.body.totals.reduce((s: bigint, x: { quantity: string }) => s + milli(x.quantity), 0n))).toBe(
      res.body.stream_totals[0].quantity,
    );
  });

  it('JSON export: the current revision of every client that declared, with company, country and IDUs; its lines sum to the summary', async () => {
    const res = await request(t.url).get(`/api/v1/admin/periods/${PERIOD}/export`).set(admin());
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body.period).toBe(PERIOD);
    expect(res.body.declarations.map((d: { client_id: string }) => d.client_id)).toEqual([a.clientId, b.clientId]);
    expect(res.body.declarations[0]).toMatchObject({
      company: '=HYPERLINK("http://evil")',
      country: 'FR',
      idus: ['FR1_A', 'FR2_A'],
      revision: 2,
    });
    expect(res.body.declarations[0].lines).toEqual([
      { stream: 'CHR', material: 'Verre', material_category: 'glass', unit: 'kg', quantity: '0.1', eco_organism: null },
      { stream: 'CHR', material: 'glass', material_category: 'glass', unit: 'kg', quantity: '0.2', eco_organism: null },
      {
        stream: 'CHR',
        material: 'paper_cardboard',
        material_category: 'paper_cardboard',
        unit: 'kg',
        quantity: '999999999999.999',
        eco_organism: null,
      },
    ]);
    // The eco-organism set for b's stream goes with each of its lines.
    expect(res.body.declarations[1].lines.map((l: { eco_organism: string | null }) => l.eco_organism)).toEqual([
      'Citeo Pro',
      'Citeo Pro',
      'Citeo Pro',
    ]);
    const lines = res.body.declarations.flatMap((d: { lines: Array<{ quantity: string }> }) => d.lines);
    expect(decimal(lines.reduce((s: bigint, l: { quantity: string }) => s + milli(l.quantity), 0n))).toBe('1000000000013.5');
  });

  it('CSV export (Accept: text/csv or .csv): one row per client and line, formulas neutralised', async () => {
    const byAccept = await request(t.url).get(`/api/v1/admin/periods/${PERIOD}/export`).set(admin()).set('accept', 'text/csv');
    const byPath = await request(t.url).get(`/api/v1/admin/periods/${PERIOD}/export.csv`).set(admin());
    for (const res of [byAccept, byPath]) {
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
      expect(res.headers['content-disposition']).toBe(`attachment; filename="epr-declarations-${PERIOD}.csv"`);
    }
    expect(byAccept.text).toBe(byPath.text);
    const [header, ...rows] = parseCsv(byPath.text);
    expect(header).toEqual([
      'period',
      'client_id',
      'company',
      'country',
      'idus',
      'declaration_id',
      'revision',
      'receipt',
      'submitted_at',
      'stream',
      'material',
      'material_category',
      'unit',
      'quantity',
      'eco_organism',
    ]);
    expect(rows).toHaveLength(6);
    const column = (name: string) => header!.indexOf(name);
    expect(rows[0]![column('company')]).toBe(`'=HYPERLINK("http://evil")`);
    expect(rows[0]![column('idus')]).toBe('FR1_A; FR2_A');
    expect(rows.map((r) => r[column('client_id')])).toEqual([a.clientId, a.clientId, a.clientId, b.clientId, b.clientId, b.clientId]);
    expect(rows[4]![column('material')]).toBe(`'+Palettes consignées`);
    expect(rows[3]).toEqual(expect.arrayContaining(['BE', 'Bravo SAS', 'verre', 'glass', '0.001', 'Citeo Pro']));
    expect(rows[0]![column('eco_organism')]).toBe('');
    expect(decimal(rows.reduce((s, r) => s + milli(r[column('quantity')]!), 0n))).toBe('1000000000013.5');
  });

  it('CSV export with dialect=fr: what French Excel opens as columns (BOM, `;`, decimal comma, French headers), the same rows; the default has no BOM', async () => {
    const byAccept = await request(t.url)
      .get(`/api/v1/admin/periods/${PERIOD}/export?dialect=fr`)
      .set(admin())
      .set('accept', 'text/csv')
      .buffer(true);
    const byPath = await request(t.url).get(`/api/v1/admin/periods/${PERIOD}/export.csv?dialect=fr`).set(admin()).buffer(true);
    for (const res of [byAccept, byPath]) {
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
      expect(res.headers['content-disposition']).toBe(`attachment; filename="epr-declarations-${PERIOD}.csv"`);
    }
    expect(byAccept.text).toBe(byPath.text);
    expect(
      byPath.text.startsWith(
        '\ufeffpériode;identifiant client;société;pays;IDU;identifiant de déclaration;révision;reçu;date de dépôt;filière;matériau;catégorie de matériau;unité;quantité;éco-organisme\r\n',
      ),
    ).toBe(true);
    const [header, ...rows] = parseCsv(byPath.text.slice(1), ';');
    const english = parseCsv((await request(t.url).get(`/api/v1/admin/periods/${PERIOD}/export.csv`).set(admin())).text);
    expect(rows).toHaveLength(english.length - 1);
    const quantity = header!.indexOf('quantité');
    // The same cells, quantities with a decimal comma; IDUs (which hold `;`) quoted, formulas neutralised.
    expect(rows.map((r) => r[quantity])).toEqual(english.slice(1).map((r) => r[13]!.replace('.', ',')));
    expect(rows.map((r) => r[quantity])).toContain('999999999999,999');
    expect(rows.map((r) => [...r.slice(0, quantity), ...r.slice(quantity + 1)])).toEqual(
      english.slice(1).map((r) => [...r.slice(0, 13), ...r.slice(14)]),
    );
    expect(rows[0]![header!.indexOf('IDU')]).toBe('FR1_A; FR2_A');
    expect(rows[0]![header!.indexOf('société')]).toBe(`'=HYPERLINK("http://evil")`);
    // The default is unchanged: comma, point, no byte order mark.
    const plain = await request(t.url).get(`/api/v1/admin/periods/${PERIOD}/export.csv?dialect=en`).set(admin()).buffer(true);
    expect(plain.text.startsWith('period,client_id,')).toBe(true);
    const bad = await request(t.url).get(`/api/v1/admin/periods/${PERIOD}/export.csv?dialect=de`).set(admin());
    expect([bad.status, bad.body.errors]).toEqual([
      422,
      [expect.objectContaining({ pointer: '/query/dialect', code: 'invalid_csv_dialect' })],
    ]);
  });

  it('a period nobody declared: empty export, and nobody missing before the clients are liable; a malformed period is a 404', async () => {
    const json = await request(t.url).get('/api/v1/admin/periods/2023-S1/export').set(admin());
    expect(json.body).toEqual({ period: '2023-S1', declarations: [] });
    const csv = await request(t.url).get('/api/v1/admin/periods/2023-S1/export.csv').set(admin());
    expect(parseCsv(csv.text)).toHaveLength(1);
    const summary = await request(t.url).get('/api/v1/admin/periods/2023-S1/summary').set(admin());
    expect(summary.body).toMatchObject({
      ended: true,
      clients: { confirmed: 3, liable: 0, declared: 0, missing: 0 },
      missing_clients: [],
      totals: [],
      stream_totals: [],
    });
    for (const path of ['2025-S3/export', '2025/export.csv', 'now/summary']) {
      expect((await request(t.url).get(`/api/v1/admin/periods/${path}`).set(admin())).status).toBe(404);
    }
  });

  it('readers that hang up mid-export cost nothing: no error logged, no connection kept', async () => {
    // A period big enough (20,000 lines, ~3 MB of CSV) to be cut in the middle.
    await t.pool.query(
      `INSERT INTO declarations (id, client_id, period, revision, status, supersedes, submitted_at, receipt, content_hash)
       SELECT md5('abort/' || c)::uuid, client_id, '2024-S2', 1, 'current', NULL, now(), 'EPR-ABORT-' || c, 'x'
         FROM (SELECT client_id, row_number() OVER (ORDER BY client_id) AS c FROM clients WHERE confirmed_at IS NOT NULL) AS confirmed`,
    );
    await t.pool.query(
      `INSERT INTO declaration_lines (declaration_id, position, stream, material, material_code, unit, quantity)
       SELECT d.id, p, 'EMB', 'Matériau ' || p, NULL, 'kg', p FROM declarations d, generate_series(0, 999) AS p WHERE d.period = '2024-S2'`,
    );
    // More aborted exports than the pool has connections (10): a cursor's connection not released would block the last request.
    for (let i = 0; i < 12; i++) {
      await new Promise<void>((resolve, reject) => {
        const req = http.get(`${t.url}/api/v1/admin/periods/2024-S2/export.csv`, { headers: admin() }, (res) => {
          res.once('data', () => {
            req.destroy();
            resolve();
          });
        });
        req.on('error', (error: NodeJS.ErrnoException) => (error.code === 'ECONNRESET' ? resolve() : reject(error)));
      });
    }
    const after = await request(t.url).get(`/api/v1/admin/periods/${PERIOD}/summary`).set(admin());
    expect(after.status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(t.logs.filter((line) => /"level":(50|60)/.test(line) && line.includes('/export'))).toEqual([]);
  });
});

/** Whether any part of the file, split as a spreadsheet splitting on `separator` would (quotes and spaces before it dropped), starts a formula. */
const formulaParts = (text: string, separator: string) =>
  text
    .split(/\r\n|\n|\r/)
    .flatMap((row) => row.split(separator))
    .map((part) => part.replace(/^[\p{Zs}"]*/u, ''))
    .filter((part) => /^[=+\-@]/.test(part));

describe('formulas in the export, whichever separator a spreadsheet splits it on', () => {
  it("`@` first, and a formula after a `;`, a `,` or a space and a quote: every part starts with `'`", async () => {
    const { token } = await createClientWithToken(t, { company: 'Evil; =1+2', streams: ['CHR'] });
    const lines = [line(1, ';=1+2;'), line(2, '@SUM(A1)'), line(3, 'x,-2+3'), line(4, 'y; "+1"')];
    const created = await request(t.url)
      .post('/api/v1/declarations')
      .set('authorization', `Bearer ${token}`)
      .send({ period: '2024-S1', lines });
    expect(created.status).toBe(201);
    const res = await request(t.url).get('/api/v1/admin/periods/2024-S1/export.csv').set(admin());
    expect(res.status).toBe(200);
    const [header, ...rows] = parseCsv(res.text);
    const column = (name: string) => header!.indexOf(name);
    expect(rows.map((r) => r[column('material')])).toEqual([";'=1+2;", "'@SUM(A1)", "x,'-2+3", 'y; "\'+1"']);
    expect(rows[0]![column('company')]).toBe("Evil; '=1+2");
    // A cell holding `;` is quoted, so that a spreadsheet splitting on `;` keeps it whole.
    expect(res.text).toContain(`"Evil; '=1+2"`);
    expect(res.text).toContain(`";'=1+2;"`);
    for (const separator of [',', ';', '\t'])
      expect({ separator, parts: formulaParts(res.text, separator) }).toEqual({ separator, parts: [] });
  });
});

describe('a slow reader', () => {
  let slow: TestApp;
  beforeAll(async () => {
    // Queries time out after 300 ms (PostgreSQL) and 500 ms (pg): the export below is read for longer.
    slow = await startTestApp({ queryTimeouts: { statementMs: 300, queryMs: 500 } });
  });
  afterAll(async () => {
    await slow?.close();
  });

  it('gets the whole export however long it reads: the export cursor is bound by neither query timeout of the pool', async () => {
    // 20 confirmed clients with a declaration of 1,000 lines each.
    await slow.pool.query(
      `INSERT INTO clients (client_id, confirmed_email, confirmed_company, confirmed_country, confirmed_plan, confirmed_streams, confirmed_idus, confirmed_at)
       SELECT 'slow-' || c, 'slow' || c || '@example.fr', 'Slow ' || c, 'FR', 'business', '{EMB}', '{FR000000_01ABCD}', now() FROM generate_series(1, 20) AS c`,
    );
    await slow.pool.query(
      `INSERT INTO declarations (id, client_id, period, revision, status, supersedes, submitted_at, receipt, content_hash)
       SELECT md5('slow/' || c)::uuid, 'slow-' || c, '2024-S2', 1, 'current', NULL, now(), 'EPR-SLOW-' || c, 'x' FROM generate_series(1, 20) AS c`,
    );
    await slow.pool.query(
      `INSERT INTO declaration_lines (declaration_id, position, stream, material, material_code, unit, quantity)
       SELECT md5('slow/' || c)::uuid, p, 'EMB', 'Matériau ' || p, NULL, 'kg', p FROM generate_series(1, 20) AS c, generate_series(0, 999) AS p`,
    );
    const rows = await new Promise<number>((resolve, reject) => {
      const req = http.get(`${slow.url}/api/v1/admin/periods/2024-S2/export.csv`, { headers: admin() }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
          // A reader that takes a pause now and then: the export lasts well over 300 ms.
          res.pause();
          setTimeout(() => res.resume(), 20);
        });
        res.on('end', () => resolve(text.trimEnd().split('\n').length));
        res.on('error', reject);
      });
      req.on('error', reject);
    });
    expect(rows).toBe(20_000 + 1);
  });
});

describe('counts of sales units in the export and summary', () => {
  it('never adds uvc lines across materials; the units sold the clients state are totalled and exported on their own', async () => {
    const emb = (material: string, unit: string, quantity: number) => ({ stream: 'EMB', material, unit, quantity });
    const a = await createClientWithToken(t, { streams: ['EMB'] });
    const b = await createClientWithToken(t, { streams: ['EMB'] });
    const period = '2025-S1';
    const post = (token: string, body: object) =>
      request(t.url)
        .post('/api/v1/declarations')
        .set('authorization', `Bearer ${token}`)
        .send({ period, ...body });
    const counted = [
      emb('glass', 'kg', 12600),
      emb('glass', 'uvc', 60000),
      emb('paper_cardboard', 'kg', 3867.5),
      emb('paper_cardboard', 'uvc', 85000),
    ];
    expect((await post(a.token, { lines: counted, units_sold: [{ stream: 'EMB', quantity: 90000 }] })).status).toBe(201);
    expect((await post(b.token, { lines: [emb('glass', 'kg', 1), emb('glass', 'uvc', 1000)] })).status).toBe(201);

    const summary = await request(t.url).get(`/api/v1/admin/periods/${period}/summary`).set(admin());
    // Per material across clients (units with glass: 61,000); per stream, kg only; the units sold of the one client that states them.
    expect(summary.body.totals).toContainEqual(
      expect.objectContaining({ stream: 'EMB', material_category: 'glass', unit: 'uvc', quantity: '61000' }),
    );
    expect(summary.body.stream_totals).toContainEqual({ stream: 'EMB', unit: 'kg', quantity: '16468.5' });
    expect(summary.body.stream_totals.filter((total: { unit: string }) => total.unit !== 'kg')).toEqual([]);
    expect(summary.body.units_sold).toEqual([{ stream: 'EMB', quantity: '90000', client_count: 1 }]);

    const json = await request(t.url).get(`/api/v1/admin/periods/${period}/export`).set(admin());
    const byClient = Object.fromEntries(json.body.declarations.map((d: { client_id: string }) => [d.client_id, d]));
    expect(byClient[a.clientId].units_sold).toEqual([{ stream: 'EMB', quantity: '90000' }]);
    expect(byClient[b.clientId].units_sold).toEqual([]);

    const csv = parseCsv((await request(t.url).get(`/api/v1/admin/periods/${period}/export.csv`).set(admin())).text);
    const rowsOf = (clientId: string) => csv.filter((row) => row[1] === clientId).map((row) => row.slice(9, 14));
    expect(rowsOf(a.clientId)).toEqual([
      ['EMB', 'glass', 'glass', 'kg', '12600'],
      ['EMB', 'glass', 'glass', 'uvc', '60000'],
      ['EMB', 'paper_cardboard', 'paper_cardboard', 'kg', '3867.5'],
      ['EMB', 'paper_cardboard', 'paper_cardboard', 'uvc', '85000'],
      // The units sold: unit uvc, no material, as the client's own files write them.
      ['EMB', '', '', 'uvc', '90000'],
    ]);
    expect(rowsOf(b.clientId)).toHaveLength(2);
  });
});
