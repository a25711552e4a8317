import { jest } from '@jest/globals';
import request from 'supertest';
import { Clock } from '../src/calendar/clock.js';
import { createClientWithToken } from './support/factories.js';
import { startTestApp, type TestApp } from './support/test-app.js';

let t: TestApp;
let token: string;

beforeAll(async () => {
  t = await startTestApp();
  jest.spyOn(t.app.get(Clock), 'now').mockImplementation(() => new Date('2026-03-15T10:00:00Z'));
  ({ token } = await createClientWithToken(t, { streams: ['EMB', 'EPRO'] }));
});
afterAll(async () => {
  await t?.close();
});

const PATH = '/api/v1/declarations';
/** The characters of these tests that Windows-1252 writes outside Latin-1. */
const CP1252: Record<string, number> = { '€': 0x80, œ: 0x9c };
/** Text as Windows-1252 bytes (Latin-1 characters are their own code). */
const cp1252 = (text: string) => Buffer.from([...text].map((c) => CP1252[c] ?? c.charCodeAt(0)));
const BOM = '\ufeff';

const postJson = (period: string, lines: unknown[]) =>
  request(t.url)
    .post(PATH)
    .set('authorization', `Bearer ${token}`)
    .set('content-type', 'application/json')
    .send(JSON.stringify({ period, lines }));
const postCsv = (period: string | undefined, body: string | Buffer, options: { contentType?: string; key?: string } = {}) => {
  const req = request(t.url)
    .post(period === undefined ? PATH : `${PATH}?period=${period}`)
    .set('authorization', `Bearer ${token}`)
    .set('content-type', options.contentType ?? 'text/csv');
  if (options.key) req.set('idempotency-key', options.key);
  return req.send(typeof body === 'string' ? Buffer.from(body, 'utf8') : body);
};

async function counts(): Promise<{ declarations: number; lines: number }> {
  const { rows } = await t.pool.query(
    'SELECT (SELECT count(*) FROM declarations)::int AS declarations, (SELECT count(*) FROM declaration_lines)::int AS lines',
  );
  return rows[0];
}

function expectErrors(res: request.Response, expected: { pointer: string; code: string; row?: number }[]) {
  expect(res.status).toBe(422);
  expect(res.headers['content-type']).toBe('application/problem+json; charset=utf-8');
  expect(
    res.body.errors.map(({ pointer, code, row }: { pointer: string; code: string; row?: number }) => ({
      pointer,
      code,
      ...(row ? { row } : {}),
    })),
  ).toEqual(expected);
}

// Household packaging: each material's weight (kg) with its count of sales units (uvc).
const LINES = [
  { stream: 'EMB', material: 'Verre', unit: 'kg', quantity: 1200.5 },
  { stream: 'EMB', material: 'Papier-carton ondulé, "kraft"', unit: 'kg', quantity: 0.125 },
  { stream: 'EMB', material: 'Bidons acier 5 l (€, œ)', unit: 'kg', quantity: 310 },
  { stream: 'EMB', material: 'Verre', unit: 'uvc', quantity: 4800 },
  { stream: 'EMB', material: 'Papier-carton ondulé, "kraft"', unit: 'uvc', quantity: 10 },
  { stream: 'EMB', material: 'Bidons acier 5 l (€, œ)', unit: 'uvc', quantity: 62 },
];

describe('POST /api/v1/declarations with text/csv: the same declaration as the JSON', () => {
  it.each([
    [
      'a French spreadsheet (semicolons, Windows-1252, decimal comma, CRLF, French headers, blank and empty rows)',
      '2025-S1',
      cp1252(
        'Quantité;Flux;Matériau;Unité;;\r\n' +
          '1200,5;EMB;Verre;kg;;\r\n' +
          ';;;;;\r\n' +
          '0,125;EMB;"Papier-carton ondulé, ""kraft""";kg;;\r\n' +
          '\r\n' +
          '310;EMB;Bidons acier 5 l (€, œ);kg;;\r\n' +
          '4800;EMB;Verre;uvc;;\r\n' +
          '10;EMB;"Papier-carton ondulé, ""kraft""";uvc;;\r\n' +
          '62;EMB;Bidons acier 5 l (€, œ);uvc;;\r\n',
      ),
      'text/csv',
    ],
    [
      'a French spreadsheet saved as "CSV UTF-8" (BOM, semicolons, decimal comma, CRLF)',
      '2025-S2',
      `${BOM}flux;materiau;unite;quantite\r\nEMB;Verre;kg;1200,5\r\nEMB;"Papier-carton ondulé, ""kraft""";kg;0,125\r\nEMB;Bidons acier 5 l (€, œ);kg;310\r\nEMB;Verre;uvc;4800\r\nEMB;"Papier-carton ondulé, ""kraft""";uvc;10\r\nEMB;Bidons acier 5 l (€, œ);uvc;62\r\n`,
      'text/csv; charset=utf-8',
    ],
    [
      'a US spreadsheet (commas, Windows-1252, CRLF, columns in another order)',
      '2024-S1',
      cp1252(
        'material,stream,quantity,unit\r\nVerre,EMB,1200.5,kg\r\n"Papier-carton ondulé, ""kraft""",EMB,0.125,kg\r\n"Bidons acier 5 l (€, œ)",EMB,310,kg\r\nVerre,EMB,4800,uvc\r\n"Papier-carton ondulé, ""kraft""",EMB,10,uvc\r\n"Bidons acier 5 l (€, œ)",EMB,62,uvc\r\n',
      ),
      'text/csv; charset=windows-1252',
    ],
    [
      'a program (commas, UTF-8, LF, every cell quoted, no final newline)',
      '2024-S2',
      '"stream","material","unit","quantity"\n"EMB","Verre","kg","1200.50"\n"EMB","Papier-carton ondulé, ""kraft""","kg","0.125"\n"EMB","Bidons acier 5 l (€, œ)","kg","310"\n"EMB","Verre","uvc","4800"\n"EMB","Papier-carton ondulé, ""kraft""","uvc","10"\n"EMB","Bidons acier 5 l (€, œ)","uvc","62"',
      'text/csv',
    ],
  ])('%s', async (_name, period, file, contentType) => {
    const json = await postJson(period, LINES);
    expect(json.status).toBe(201);
    const before = await counts();
    const csv = await postCsv(period, file, { contentType });
    // Identical content to the revision in force: nothing new, the same record.
    expect(csv.status).toBe(200);
    // The same record; the warnings (uncategorised materials) point at the file's cells rather than at lines.
    const { warnings: csvWarnings, ...csvRecord } = csv.body;
    const { warnings: jsonWarnings, ...jsonRecord } = json.body;
    expect(csvRecord).toEqual(jsonRecord);
    expect(csvWarnings.map((w: { code: string }) => w.code)).toEqual(jsonWarnings.map((w: { code: string }) => w.code));
    expect(csv.headers.location).toBe(`${PATH}/${json.body.id}`);
    expect(await counts()).toEqual(before);
  });

  it('201 with the record, Location, and Idempotency-Key replay, as JSON', async () => {
    const file = 'stream,material,unit,quantity\r\nEMB,Verre,uvc,12\r\n';
    const first = await postCsv('2023-S1', file, { key: 'csv-1' });
    expect(first.status).toBe(201);
    expect(first.headers.location).toBe(`${PATH}/${first.body.id}`);
    expect(first.body.lines).toEqual([
      { stream: 'EMB', material: 'Verre', material_category: expect.anything(), unit: 'uvc', quantity: 12 },
    ]);
    const replay = await postCsv('2023-S1', file, { key: 'csv-1' });
    expect(replay.status).toBe(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toEqual(first.body);
  });

  it('numbers as French Excel writes them (no-break space thousands, decimal comma) are stored exactly as meant', async () => {
    const file =
      'flux;matériau;unité;quantité\r\nEMB;Verre;kg;1\u00a0200,5\r\nEMB;Verre;uvc;4\u202f800\r\nEMB;Acier;kg;1.250,125\r\nEMB;Acier;uvc;12 000\r\n';
    const own = await createClientWithToken(t, { streams: ['EMB'] });
    const res = await request(t.url)
      .post(`${PATH}?period=2022-S2`)
      .set('authorization', `Bearer ${own.token}`)
      .set('content-type', 'text/csv')
      .send(Buffer.from(file, 'utf8'));
    expect(res.status).toBe(201);
    const stored = await t.pool.query(`SELECT unit, quantity::text FROM declaration_lines WHERE declaration_id = $1 ORDER BY position`, [
      res.body.id,
    ]);
    expect(stored.rows).toEqual([
      { unit: 'kg', quantity: '1200.500' },
      { unit: 'uvc', quantity: '4800.000' },
      { unit: 'kg', quantity: '1250.125' },
      { unit: 'uvc', quantity: '12000.000' },
    ]);
  });
});

describe('broken files: refused whole, the row or cell named, nothing stored', () => {
  it.each([
    ['a missing column', 'stream;material;quantity\r\nEMB;Verre;12\r\n', [{ pointer: '/rows/1', code: 'missing_column', row: 1 }]],
    [
      'an unknown column',
      'stream,material,unit,quantity,weight\nEMB,Verre,kg,12,3\n',
      [{ pointer: '/rows/1', code: 'unknown_column', row: 1 }],
    ],
    [
      'a quote never closed',
      'stream,material,unit,quantity\nEMB,Verre,kg,12\nEMB,"Bois,kg,3\nEMB,Acier,kg,4\n',
      [{ pointer: '/rows/3', code: 'invalid_csv', row: 3 }],
    ],
    [
      'a row with too many cells',
      'stream,material,unit,quantity\nEMB,Verre,uvc,12\nEMB,Acier, brut,uvc,3\n',
      [
        { pointer: '/rows/3', code: 'too_many_cells', row: 3 },
        { pointer: '/rows/3/quantity', code: 'number_has_unit', row: 3 },
        { pointer: '/rows/3/unit', code: 'unit_not_allowed', row: 3 },
      ],
    ],
    [
      'tab-separated (a wrong delimiter)',
      'stream\tmaterial\tunit\tquantity\nEMB\tVerre\tkg\t12\n',
      [{ pointer: '/rows/1', code: 'invalid_csv_header', row: 1 }],
    ],
    ['no header', 'EMB,Verre,kg,12\n', [{ pointer: '/rows/1', code: 'invalid_csv_header', row: 1 }]],
    // A decimal comma in a quoted cell is read as the person wrote it (12.5), and a count of sales units has no decimals.
    [
      'a decimal comma in a comma-separated file',
      'stream,material,unit,quantity\nEMB,Verre,uvc,"12,5"\n',
      [{ pointer: '/rows/2/quantity', code: 'quantity_too_precise', row: 2 }],
    ],
    [
      'an ambiguous number (thousands or decimals)',
      'stream,material,unit,quantity\nEMB,Verre,kg,"1,200"\nEMB,Verre,uvc,10\n',
      [{ pointer: '/rows/2/quantity', code: 'number_ambiguous', row: 2 }],
    ],
  ])('%s: 422', async (_name, file, expected) => {
    const before = await counts();
    const res = await postCsv('2023-S2', file);
    expectErrors(res, expected);
    for (const error of res.body.errors) expect(error.detail).toMatch(/^row \d+: /);
    expect(await counts()).toEqual(before);
  });

  it('1,001 rows: 422 naming the row of line 1,001', async () => {
    const before = await counts();
    const rows = Array.from({ length: 1001 }, (_, i) => `EMB,material ${i},uvc,1`);
    const res = await postCsv('2023-S2', `stream,material,unit,quantity\n${rows.join('\n')}\n`);
    expectErrors(res, [{ pointer: '/rows/1002', code: 'too_many_lines', row: 1002 }]);
    expect(await counts()).toEqual(before);
  });

  it('every problem of the cells at once, pointing at /rows/<row>/<column>, and the period at /query/period', async () => {
    const res = await postCsv(
      undefined,
      'flux;matériau;unité;quantité\n\nEMB;Verre;uvc;1 200 uvc\nXYZ;Verre;kg;3\nEMB;Acier;kg;1,0005\nEMB;Acier;uvc;4\n',
    );
    expectErrors(res, [
      { pointer: '/query/period', code: 'required' },
      { pointer: '/rows/3/quantity', code: 'number_has_unit', row: 3 },
      { pointer: '/rows/4/stream', code: 'unknown_stream', row: 4 },
      { pointer: '/rows/5/quantity', code: 'quantity_too_precise', row: 5 },
    ]);
  });

  it.each([
    ['a binary file', Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x14, 0x00, 0x06, 0x00, 0x08, 0x00]), 'text/csv'],
    ['UTF-16 ("Unicode text")', Buffer.from(`${BOM}stream\tmaterial\tunit\tquantity\r\n`, 'utf16le'), 'text/csv'],
    ['a charset other than UTF-8 or Windows-1252', Buffer.from('stream,material,unit,quantity\n'), 'text/csv; charset=utf-16'],
    [
      'invalid UTF-8 declared as UTF-8',
      Buffer.from([...Buffer.from('stream,material,unit,quantity\nEMB,Verr'), 0xe9, ...Buffer.from(',kg,1\n')]),
      'text/csv; charset=utf-8',
    ],
  ])('%s: 415', async (_name, body, contentType) => {
    const before = await counts();
    const res = await postCsv('2023-S2', body, { contentType });
    expect(res.status).toBe(415);
    expect(res.body.code).toBe('unsupported_media_type');
    expect(res.headers['accept-post']).toBe('application/json, text/csv');
    expect(await counts()).toEqual(before);
  });
});

describe('GET /api/v1/declarations/{id} with Accept: text/csv', () => {
  it('is the lines as CSV, formula cells neutralised; uploaded again for the same period: the identical-content 200', async () => {
    const lines = [
      { stream: 'EMB', material: '=HYPERLINK("http://evil.example","clic")', unit: 'uvc', quantity: 1 },
      { stream: 'EMB', material: '+33 bouteilles', unit: 'kg', quantity: 2.5 },
      { stream: 'EMB', material: '-Verre', unit: 'kg', quantity: 0.001 },
      { stream: 'EMB', material: '@SUM(A1)', unit: 'kg', quantity: 999999999999.999 },
      { stream: 'EMB', material: "'=déjà cité", unit: 'uvc', quantity: 3 },
      { stream: 'EMB', material: 'Fûts; "acier"', unit: 'uvc', quantity: 1000000000000 },
      // The counts of sales units that go with the weights above.
      { stream: 'EMB', material: '+33 bouteilles', unit: 'uvc', quantity: 33 },
      { stream: 'EMB', material: '-Verre', unit: 'uvc', quantity: 1 },
      { stream: 'EMB', material: '@SUM(A1)', unit: 'uvc', quantity: 7 },
    ];
    const created = await postJson('2022-S2', lines);
    expect(created.status).toBe(201);
    const res = await request(t.url)
      .get(`${PATH}/${created.body.id}`)
      .set('authorization', `Bearer ${token}`)
      .set('accept', 'text/csv')
      .buffer(true);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toBe('attachment; filename="declaration-2022-S2-r1.csv"');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers.vary).toContain('Accept');
    expect(res.text).toBe(
      `${BOM}stream,material,unit,quantity\r\n` +
        `EMB,"'=HYPERLINK(""http://evil.example"",""clic"")",uvc,1\r\n` +
        "EMB,'+33 bouteilles,kg,2.5\r\n" +
        "EMB,'-Verre,kg,0.001\r\n" +
        "EMB,'@SUM(A1),kg,999999999999.999\r\n" +
        "EMB,''=déjà cité,uvc,3\r\n" +
        'EMB,"Fûts; ""acier""",uvc,1000000000000\r\n' +
        "EMB,'+33 bouteilles,uvc,33\r\n" +
        "EMB,'-Verre,uvc,1\r\n" +
        "EMB,'@SUM(A1),uvc,7\r\n",
    );
    const again = await postCsv('2022-S2', res.text);
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(created.body.id);
    // JSON stays the default.
    const json = await request(t.url).get(`${PATH}/${created.body.id}`).set('authorization', `Bearer ${token}`);
    expect(json.headers['content-type']).toMatch(/^application\/json/);
  });

  it('a formula after a separator is neutralised too, whichever separator a spreadsheet splits on; the file still goes back unchanged', async () => {
    const materials = [';=1+2;', 'x,@SUM(A1)', 'y; "-2+3"', "z;'+1"];
    const created = await postJson(
      '2024-S1',
      materials.map((material) => ({ stream: 'EMB', material, unit: 'uvc', quantity: 1 })),
    );
    expect(created.status).toBe(201);
    const res = await request(t.url)
      .get(`${PATH}/${created.body.id}`)
      .set('authorization', `Bearer ${token}`)
      .set('accept', 'text/csv')
      .buffer(true);
    expect(res.text).toBe(
      `${BOM}stream,material,unit,quantity\r\n` +
        `EMB,";'=1+2;",uvc,1\r\n` +
        `EMB,"x,'@SUM(A1)",uvc,1\r\n` +
        `EMB,"y; ""'-2+3""",uvc,1\r\n` +
        `EMB,"z;''+1",uvc,1\r\n`,
    );
    // As French Excel (`;`), a comma-splitting program or a tab-splitting one reads the file, quotes ignored: no part starts a formula.
    const formulas = (text: string, separator: string) =>
      text
        .split(/\r\n/)
        .flatMap((row) => row.split(separator))
        .map((part) => part.replace(/^[\p{Zs}"\ufeff]*/u, ''))
        .filter((part) => /^[=+\-@]/.test(part));
    for (const separator of [',', ';', '\t'])
      expect({ separator, formulas: formulas(res.text, separator) }).toEqual({ separator, formulas: [] });
    const again = await postCsv('2024-S1', res.text);
    expect([again.status, again.body.id]).toEqual([200, created.body.id]);
    // The public template holds none either.
    const template = await request(t.url).get('/api/v1/declaration-template.csv').buffer(true);
    for (const separator of [',', ';', '\t']) expect(formulas(template.text, separator)).toEqual([]);
  });

  it("dialect=fr: French Excel's file (`;`, decimal comma, French headers, BOM) on both routes; each dialect uploads again unchanged", async () => {
    // 1.234 kg could be read as 1234 in a file of whole numbers: written 1.2340 (1,2340) it reads back as meant.
    const lines = [
      { stream: 'EMB', material: 'Verre', unit: 'kg', quantity: 1200.5 },
      { stream: 'EMB', material: 'Verre', unit: 'uvc', quantity: 4800 },
      { stream: 'EMB', material: 'Papier-carton', unit: 'kg', quantity: 1.234 },
      { stream: 'EMB', material: 'Papier-carton', unit: 'uvc', quantity: 3 },
    ];
    const created = await postJson('2025-S2', lines);
    expect(created.status).toBe(201);
    const get = (path: string) => request(t.url).get(path).set('authorization', `Bearer ${token}`).set('accept', 'text/csv').buffer(true);
    const french = await get(`${PATH}/${created.body.id}?dialect=fr`);
    const frenchFile = await get(`${PATH}/${created.body.id}.csv?dialect=fr`);
    for (const res of [french, frenchFile]) {
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
      // A cell with a comma is quoted whatever the separator (a spreadsheet splitting on commas keeps it whole); Excel reads it as the number.
      expect(res.text).toBe(
        `${BOM}filière;matériau;unité;quantité\r\nEMB;Verre;kg;"1200,5"\r\nEMB;Verre;uvc;4800\r\nEMB;Papier-carton;kg;"1,2340"\r\nEMB;Papier-carton;uvc;3\r\n`,
      );
    }
    // The default is unchanged (but for the fourth place that keeps 1.234 from reading as thousands).
    const english = await get(`${PATH}/${created.body.id}`);
    expect(english.text).toBe(
      `${BOM}stream,material,unit,quantity\r\nEMB,Verre,kg,1200.5\r\nEMB,Verre,uvc,4800\r\nEMB,Papier-carton,kg,1.2340\r\nEMB,Papier-carton,uvc,3\r\n`,
    );
    expect((await get(`${PATH}/${created.body.id}.csv?dialect=en`)).text).toBe(english.text);
    for (const file of [french.text, english.text]) {
      const again = await postCsv('2025-S2', file);
      expect([again.status, again.body.id]).toEqual([200, created.body.id]);
    }
    // A dialect the service does not write: 422 at the parameter, on both routes (JSON asked or not).
    for (const path of [`${PATH}/${created.body.id}?dialect=de`, `${PATH}/${created.body.id}.csv?dialect=FR`]) {
      const bad = await request(t.url).get(path).set('authorization', `Bearer ${token}`);
      expect([bad.status, bad.body.errors]).toEqual([
        422,
        [expect.objectContaining({ pointer: '/query/dialect', code: 'invalid_csv_dialect' })],
      ]);
    }
  });

  it("the public template's example rows are comments: sent unchanged it files nothing (no lines: 422), and no other file is read differently", async () => {
    const template = await request(t.url).get('/api/v1/declaration-template.csv').buffer(true);
    expect(template.text).toMatch(/\r\n# EMB,[^\r\n]+,kg,1250\r\n/);
    const before = await counts();
    const res = await postCsv('2025-S2', template.text);
    expectErrors(res, [{ pointer: '/rows', code: 'too_few_lines' }]);
    expect(res.body.errors[0].detail).toMatch(
      /row\(s\) starting with # are comments, which are not read: remove the # of the examples you keep$/,
    );
    expect(await counts()).toEqual(before);
    // A comment before the header, a commented row amid the lines: skipped, rows still numbered as a spreadsheet shows them.
    const commented = await postCsv(
      '2025-S2',
      '# exported by our ERP\r\nflux;matériau;unité;quantité\r\nEMB;Verre;kg;12,5\r\n"# EMB";Verre;kg;1250\r\nEMB;Verre;uvc;abc\r\n',
    );
    expectErrors(commented, [{ pointer: '/rows/5/quantity', code: 'number_has_unit', row: 5 }]);
  });

  it("another client's declaration is a 404 problem, whatever the Accept", async () => {
    const created = await postJson('2022-S1', [LINES[3]]);
    const { token: other } = await createClientWithToken(t);
    const res = await request(t.url).get(`${PATH}/${created.body.id}`).set('authorization', `Bearer ${other}`).set('accept', 'text/csv');
    expect(res.status).toBe(404);
    expect(res.headers['content-type']).toBe('application/problem+json; charset=utf-8');
  });
});

describe('OpenAPI', () => {
  it('documents text/csv beside JSON: the request body (with ?period=), and the record as its own CSV operation', async () => {
    const doc = (await request(t.url).get('/docs/openapi.json')).body;
    const post = doc.paths['/api/v1/declarations'].post;
    expect(Object.keys(post.requestBody.content)).toEqual(['application/json', 'text/csv']);
    expect(post.requestBody.content['text/csv'].schema).toEqual(expect.objectContaining({ type: 'string', maxLength: 1024 * 1024 }));
    expect(post.parameters).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'period', in: 'query', required: false })]));
    // The record is JSON, its CSV an operation of its own (a generated client types each as one thing).
    const get = doc.paths['/api/v1/declarations/{id}'].get;
    expect(Object.keys(get.responses['200'].content)).toEqual(['application/json']);
    expect(get['x-csv-operation']).toBe('getDeclarationCsv');
    expect(Object.keys(doc.paths['/api/v1/declarations/{id}.csv'].get.responses['200'].content)).toEqual(['text/csv']);
  });
});
