/**
 * The operator's period and annual exports with `detail=products` carry, for
 * each declaration derived from a client's catalogue and sales, the product versions behind its
 * lines (what a filing per consumer sales unit needs); without it they are unchanged.
 */
import request from 'supertest';
import { createClientWithToken } from '../support/factories.js';
import { ADMIN_TOKEN, startTestApp, type TestApp } from '../support/test-app.js';

let t: TestApp;
const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
const BOM = '\ufeff';

/** A response with its body as text, whatever its type (read as bytes: the CSV's byte order mark is kept). */
const get = async (path: string, accept?: string) => {
  const req = request(t.url).get(path).set(admin);
  if (accept) req.set('accept', accept);
  const res = await req.buffer(true).parse((stream, cb) => {
    const chunks: Buffer[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('end', () => cb(null, Buffer.concat(chunks)));
  });
  return { status: res.status, headers: res.headers, body: (res.body as Buffer).toString('utf8') };
};

/** A minimal RFC 4180 reader (quoted cells, doubled quotes, CRLF or LF). */
function parseCsv(text: string, delimiter = ','): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === delimiter) {
      row.push(cell);
      cell = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
    } else cell += c;
  }
  if (cell !== '' || row.length > 0) rows.push([...row, cell]);
  return rows;
}
/** The rows of a CSV as objects by header. */
const records = (text: string, delimiter = ',') => {
  const [header, ...rows] = parseCsv(text.startsWith(BOM) ? text.slice(1) : text, delimiter);
  return { header: header!, rows: rows.map((r) => Object.fromEntries(header!.map((h, i) => [h, r[i]!]))) };
};

/** kg of units × per_unit × grams / 1000, by hand: exact integer arithmetic on milligrams, as decimal text without trailing zeros. */
function kgOf(units: number, perUnit: number, grams: string): string {
  const [whole, fraction = ''] = grams.split('.');
  const milligrams = BigInt(units) * BigInt(perUnit) * BigInt(whole! + fraction.padEnd(3, '0'));
  const text = milligrams.toString().padStart(7, '0');
  return `${text.slice(0, -6)}.${text.slice(-6)}`.replace(/\.?0+$/, '') || '0';
}

const WINE = {
  reference: 'BTL-75-ROUGE',
  name: 'Vin rouge 75 cl',
  stream: 'EMB',
  gtin: '3017620422003',
  valid_from: '2026-S1',
  elements: [
    { material: 'glass', weight_g: 410.123, per_unit: 1 },
    { material: 'paper_cardboard', weight_g: 2.5, per_unit: 2 },
  ],
};
/** From S2 the bottle is lighter: the export shows the version in force in each half-year. */
const WINE_S2 = { ...WINE, valid_from: '2026-S2', elements: [{ material: 'glass', weight_g: 380.5, per_unit: 1 }] };
/** No GTIN, and a name a spreadsheet would run as a formula. */
const JAR = {
  reference: 'POT-250',
  name: '=Bocal 250 g',
  stream: 'EMB',
  valid_from: '2026-S1',
  elements: [
    { material: 'glass', weight_g: 200, per_unit: 1 },
    { material: 'aluminium', weight_g: 3.125, per_unit: 1 },
  ],
};
const DRUM = {
  reference: 'FUT-200',
  name: 'Fût 200 l',
  stream: 'EPRO',
  valid_from: '2026-S1',
  elements: [{ material: 'steel', weight_g: 18500.25, per_unit: 1, packaging_category: 'sales', reuse_status: 'reusable_new' }],
};
const SALES = {
  '2026-S1': [
    { reference: 'BTL-75-ROUGE', units: 3000 },
    { reference: 'POT-250', units: 7 },
  ],
  '2026-S2': [
    { reference: 'BTL-75-ROUGE', units: 5 },
    { reference: 'FUT-200', units: 2 },
  ],
};

/** What each half-year's products must show, computed here from what was posted. */
const expectedProducts = {
  '2026-S1': [
    {
      reference: 'BTL-75-ROUGE',
      name: 'Vin rouge 75 cl',
      gtin: '3017620422003',
      valid_from: '2026-S1',
      stream: 'EMB',
      units: '3000',
      elements: [
        {
          material_category: 'glass',
          material_name: { fr: 'Verre', en: 'Glass' },
          weight_g: '410.123',
          per_unit: 1,
          kg: kgOf(3000, 1, '410.123'),
          packaging_category: null,
          reuse_status: null,
        },
        {
          material_category: 'paper_cardboard',
          material_name: expect.objectContaining({ fr: expect.any(String), en: expect.any(String) }),
          weight_g: '2.5',
          per_unit: 2,
          kg: kgOf(3000, 2, '2.5'),
          packaging_category: null,
          reuse_status: null,
        },
      ],
    },
    {
      reference: 'POT-250',
      name: '=Bocal 250 g',
      gtin: null,
      valid_from: '2026-S1',
      stream: 'EMB',
      units: '7',
      elements: [
        expect.objectContaining({ material_category: 'glass', weight_g: '200', per_unit: 1, kg: kgOf(7, 1, '200') }),
        expect.objectContaining({ material_category: 'aluminium', weight_g: '3.125', per_unit: 1, kg: kgOf(7, 1, '3.125') }),
      ],
    },
  ],
  '2026-S2': [
    expect.objectContaining({
      reference: 'BTL-75-ROUGE',
      valid_from: '2026-S2',
      units: '5',
      elements: [expect.objectContaining({ material_category: 'glass', weight_g: '380.5', per_unit: 1, kg: kgOf(5, 1, '380.5') })],
    }),
    {
      reference: 'FUT-200',
      name: 'Fût 200 l',
      gtin: null,
      valid_from: '2026-S1',
      stream: 'EPRO',
      units: '2',
      elements: [
        {
          material_category: 'steel',
          material_name: expect.objectContaining({ fr: expect.any(String), en: expect.any(String) }),
          weight_g: '18500.25',
          per_unit: 1,
          kg: kgOf(2, 1, '18500.25'),
          packaging_category: 'sales',
          reuse_status: 'reusable_new',
        },
      ],
    },
  ],
};

let derived: { clientId: string; token: string };
let direct: { clientId: string; token: string };
const filed: Record<string, { id: string; receipt: string }> = {};
const directFiled: Record<string, { id: string; receipt: string }> = {};

beforeAll(async () => {
  t = await startTestApp();
  derived = await createClientWithToken(t, { client_id: 'detail-derived', company: 'Catalogue SAS', streams: ['EMB', 'EPRO'] });
  direct = await createClientWithToken(t, { client_id: 'detail-direct', company: 'Saisie SARL', streams: ['EMB'] });
  for (const [clientId, stream, eco_organism, liable_from] of [
    [derived.clientId, 'EMB', 'Citeo', '2026-S1'],
    [derived.clientId, 'EPRO', 'Citeo Pro', '2026-S2'],
    [direct.clientId, 'EMB', 'Citeo', '2026-S1'],
  ] as const) {
    const res = await request(t.url)
      .put(`/api/v1/admin/clients/${clientId}/streams/${stream}`)
      .set(admin)
      .send({ eco_organism, liable_from });
    expect([res.status, res.body]).toEqual([200, expect.anything()]);
  }
  const auth = (req: request.Test) => req.set('authorization', `Bearer ${derived.token}`);
  expect((await auth(request(t.url).post('/api/v1/products')).send({ products: [WINE, WINE_S2, JAR, DRUM] })).status).toBe(201);
  for (const [period, sales] of Object.entries(SALES)) {
    expect((await auth(request(t.url).post(`/api/v1/sales?period=${period}`)).send({ sales })).status).toBe(200);
    const res = await auth(request(t.url).post(`/api/v1/periods/${period}/derived-declaration`)).send();
    expect([res.status, res.body.errors]).toEqual([201, undefined]);
    filed[period] = res.body;
    const lines = [
      { stream: 'EMB', material: 'Verre', unit: 'kg', quantity: 12.5 },
      { stream: 'EMB', material: 'Verre', unit: 'uvc', quantity: 100 },
    ];
    const own = await request(t.url).post('/api/v1/declarations').set('authorization', `Bearer ${direct.token}`).send({ period, lines });
    expect(own.status).toBe(201);
    directFiled[period] = own.body;
  }
}, 180_000);
afterAll(async () => {
  await t?.close();
});

interface ExportDeclaration {
  client_id: string;
  declaration_id: string;
  lines: unknown[];
  units_sold: unknown[];
  products?: unknown;
}

describe('the period export with detail=products', () => {
  it('JSON: a derived declaration carries its products with each element and the kg it gave; one entered directly carries null', async () => {
    for (const period of ['2026-S1', '2026-S2'] as const) {
      const res = await get(`/api/v1/admin/periods/${period}/export?detail=products`);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
      const body = JSON.parse(res.body) as { declarations: ExportDeclaration[] };
      const byClient = Object.fromEntries(body.declarations.map((d) => [d.client_id, d]));
      expect(byClient[derived.clientId]).toMatchObject({ declaration_id: filed[period]!.id, products: expectedProducts[period] });
      expect(byClient[derived.clientId]!.lines.length).toBeGreaterThan(0);
      expect(byClient[direct.clientId]).toMatchObject({ declaration_id: directFiled[period]!.id, products: null });
      expect(byClient[direct.clientId]!.lines).toHaveLength(2);
    }
  });

  it('without detail the export is what it always was: the same declarations and lines, byte for byte, no products', async () => {
    for (const period of ['2026-S1', '2026-S2']) {
      const plain = await get(`/api/v1/admin/periods/${period}/export`);
      const detailed = JSON.parse((await get(`/api/v1/admin/periods/${period}/export?detail=products`)).body) as {
        declarations: ExportDeclaration[];
      };
      const without = detailed.declarations.map(({ products: _products, ...rest }) => `\n${JSON.stringify(rest)}`);
      expect(plain.body).toBe(`{"period":"${period}","declarations":[${without.join(',')}\n]}\n`);
      expect(plain.body).not.toContain('"products"');
      const csv = records((await get(`/api/v1/admin/periods/${period}/export.csv`)).body);
      expect(csv.header).toHaveLength(15);
      expect(csv.header.at(-1)).toBe('eco_organism');
      // A row per line, and one per stream whose units sold are stated (the derived declaration states them).
      expect(csv.rows).toHaveLength(detailed.declarations.reduce((n, d) => n + d.lines.length + d.units_sold.length, 0));
    }
  });

  it('CSV: one row per product element of a derived declaration, the lines of one entered directly with the product columns empty', async () => {
    const byPath = await get('/api/v1/admin/periods/2026-S1/export.csv?detail=products');
    const byAccept = await get('/api/v1/admin/periods/2026-S1/export?detail=products', 'text/csv');
    expect(byPath.status).toBe(200);
    expect(byPath.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(byAccept.body).toBe(byPath.body);
    const { header, rows } = records(byPath.body);
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
      'product_reference',
      'product_name',
      'gtin',
      'product_valid_from',
      'units',
      'weight_g',
      'per_unit',
      'packaging_category',
      'reuse_status',
    ]);
    const mine = rows.filter((r) => r.client_id === derived.clientId);
    expect(mine.map((r) => [r.product_reference, r.material_category, r.unit, r.quantity, r.weight_g, r.per_unit, r.units])).toEqual([
      ['BTL-75-ROUGE', 'glass', 'kg', kgOf(3000, 1, '410.123'), '410.123', '1', '3000'],
      ['BTL-75-ROUGE', 'paper_cardboard', 'kg', kgOf(3000, 2, '2.5'), '2.5', '2', '3000'],
      ['POT-250', 'glass', 'kg', kgOf(7, 1, '200'), '200', '1', '7'],
      ['POT-250', 'aluminium', 'kg', kgOf(7, 1, '3.125'), '3.125', '1', '7'],
      // Its units sold, each product once: 3,000 wines and 7 jars (the uvc lines would add up to 9,007).
      ['', '', 'uvc', '3007', '', '', ''],
    ]);
    expect(mine[0]).toMatchObject({
      period: '2026-S1',
      company: 'Catalogue SAS',
      declaration_id: filed['2026-S1']!.id,
      receipt: filed['2026-S1']!.receipt,
      product_name: 'Vin rouge 75 cl',
      gtin: '3017620422003',
      product_valid_from: '2026-S1',
      eco_organism: 'Citeo',
    });
    // A product name a spreadsheet would run is written as text; no GTIN is an empty cell.
    expect(mine[2]).toMatchObject({ product_name: `'=Bocal 250 g`, gtin: '' });
    const own = rows.filter((r) => r.client_id === direct.clientId);
    expect(own.map((r) => [r.material, r.unit, r.quantity])).toEqual([
      ['Verre', 'kg', '12.5'],
      ['Verre', 'uvc', '100'],
    ]);
    for (const row of own) expect(header.slice(15).map((h) => row[h])).toEqual(Array(9).fill(''));

    // Professional packaging in S2: its EPRO category and reuse status.
    const s2 = records((await get('/api/v1/admin/periods/2026-S2/export.csv?detail=products')).body).rows;
    expect(s2.find((r) => r.product_reference === 'FUT-200')).toMatchObject({
      stream: 'EPRO',
      material_category: 'steel',
      quantity: kgOf(2, 1, '18500.25'),
      packaging_category: 'sales',
      reuse_status: 'reusable_new',
      eco_organism: 'Citeo Pro',
    });
  });

  it('CSV with dialect=fr: French headers, `;` and decimal commas, the same rows', async () => {
    const fr = await get('/api/v1/admin/periods/2026-S1/export.csv?detail=products&dialect=fr');
    const byAccept = await get('/api/v1/admin/periods/2026-S1/export?dialect=fr&detail=products', 'text/csv');
    expect(fr.status).toBe(200);
    expect(byAccept.body).toBe(fr.body);
    const text = fr.body;
    expect(text.startsWith(BOM)).toBe(true);
    const french = records(text, ';');
    expect(french.header.slice(13)).toEqual([
      'quantité',
      'éco-organisme',
      'référence produit',
      'désignation du produit',
      'GTIN',
      'emballage applicable depuis',
      'UVC vendues',
      'grammes par élément',
      'éléments par UVC',
      'catégorie d’emballage',
      'statut de réemploi',
    ]);
    const english = records((await get('/api/v1/admin/periods/2026-S1/export.csv?detail=products')).body);
    expect(french.rows).toHaveLength(english.rows.length);
    const aluminium = french.rows.find((r) => r['référence produit'] === 'POT-250' && r['catégorie de matériau'] === 'aluminium');
    expect(aluminium).toMatchObject({ quantité: kgOf(7, 1, '3.125').replace('.', ','), 'grammes par élément': '3,125' });
    expect(french.rows.map((r) => Object.values(r).map((v) => v.replace(',', '.')))).toEqual(english.rows.map((r) => Object.values(r)));
  });
});

describe('the annual export with detail=products', () => {
  interface AnnualDeclaration {
    client_id: string;
    period: string;
    declaration_id: string;
    receipt: string;
    products: unknown;
  }

  it('JSON: `declarations` lists the revisions of both halves summed, with the products of the derived ones; the rows are unchanged', async () => {
    const res = await get('/api/v1/admin/years/2026/export?detail=products');
    expect(res.status).toBe(200);
    const body = JSON.parse(res.body) as { rows: unknown[]; declarations: AnnualDeclaration[]; missing_clients: unknown[] };
    const mine = body.declarations.filter((d) => [derived.clientId, direct.clientId].includes(d.client_id));
    expect(mine).toEqual([
      {
        client_id: derived.clientId,
        period: '2026-S1',
        declaration_id: filed['2026-S1']!.id,
        receipt: filed['2026-S1']!.receipt,
        products: expectedProducts['2026-S1'],
      },
      {
        client_id: derived.clientId,
        period: '2026-S2',
        declaration_id: filed['2026-S2']!.id,
        receipt: filed['2026-S2']!.receipt,
        products: expectedProducts['2026-S2'],
      },
      {
        client_id: direct.clientId,
        period: '2026-S1',
        declaration_id: directFiled['2026-S1']!.id,
        receipt: directFiled['2026-S1']!.receipt,
        products: null,
      },
      {
        client_id: direct.clientId,
        period: '2026-S2',
        declaration_id: directFiled['2026-S2']!.id,
        receipt: directFiled['2026-S2']!.receipt,
        products: null,
      },
    ]);

    // Without detail: byte for byte the filing as it was, with the same rows and missing clients.
    const plain = await get('/api/v1/admin/years/2026/export');
    const rows = body.rows.map((r) => `\n${JSON.stringify(r)}`).join(',');
    expect(plain.body).toBe(
      `{"year":2026,"eco_organism":null,"rows":[${rows}\n],"missing_clients":${JSON.stringify(body.missing_clients)}}\n`,
    );

    // One eco-organism: the products of the streams set to it (the drum is Citeo Pro's).
    const citeo = JSON.parse((await get('/api/v1/admin/years/2026/export?eco_organism=Citeo&detail=products')).body) as {
      declarations: AnnualDeclaration[];
    };
    expect(citeo.declarations.map((d) => [d.client_id, d.period])).toEqual([
      [derived.clientId, '2026-S1'],
      [derived.clientId, '2026-S2'],
      [direct.clientId, '2026-S1'],
      [direct.clientId, '2026-S2'],
    ]);
    expect((citeo.declarations[1]!.products as { reference: string }[]).map((p) => p.reference)).toEqual(['BTL-75-ROUGE']);
    // A year without declarations: an empty list.
    expect(JSON.parse((await get('/api/v1/admin/years/2023/export?detail=products')).body)).toEqual({
      year: 2023,
      eco_organism: null,
      rows: [],
      declarations: [],
      missing_clients: [],
    });
  });

  it('CSV in both dialects: a `product` row per element between the totals and the missing clients, in its half-year', async () => {
    const en = await get('/api/v1/admin/years/2026/export.csv?detail=products');
    expect(en.status).toBe(200);
    expect(await get('/api/v1/admin/years/2026/export?detail=products', 'text/csv').then((r) => r.body)).toBe(en.body);
    const { header, rows } = records(en.body);
    expect(header.slice(14)).toEqual([
      'missing_periods',
      'period',
      'product_reference',
      'product_name',
      'gtin',
      'product_valid_from',
      'units',
      'weight_g',
      'per_unit',
      'packaging_category',
      'reuse_status',
    ]);
    const kinds = rows.map((r) => r.kind);
    expect(kinds.lastIndexOf('total')).toBeLessThan(kinds.indexOf('product'));
    const products = rows.filter((r) => r.kind === 'product');
    expect(products.every((r) => r.client_id === derived.clientId)).toBe(true);
    expect(products.map((r) => [r.period, r.product_reference, r.material_category, r.quantity, r.s1_receipt, r.s2_receipt])).toEqual([
      ['2026-S1', 'BTL-75-ROUGE', 'glass', kgOf(3000, 1, '410.123'), filed['2026-S1']!.receipt, ''],
      ['2026-S1', 'BTL-75-ROUGE', 'paper_cardboard', kgOf(3000, 2, '2.5'), filed['2026-S1']!.receipt, ''],
      ['2026-S1', 'POT-250', 'glass', kgOf(7, 1, '200'), filed['2026-S1']!.receipt, ''],
      ['2026-S1', 'POT-250', 'aluminium', kgOf(7, 1, '3.125'), filed['2026-S1']!.receipt, ''],
      ['2026-S2', 'BTL-75-ROUGE', 'glass', kgOf(5, 1, '380.5'), '', filed['2026-S2']!.receipt],
      ['2026-S2', 'FUT-200', 'steel', kgOf(2, 1, '18500.25'), '', filed['2026-S2']!.receipt],
    ]);
    expect(products[5]).toMatchObject({
      stream: 'EPRO',
      eco_organism: 'Citeo Pro',
      unit: 'kg',
      units: '2',
      weight_g: '18500.25',
      packaging_category: 'sales',
      reuse_status: 'reusable_new',
    });
    // A total row has the product columns empty.
    const total = rows.find((r) => r.kind === 'total' && r.client_id === direct.clientId)!;
    expect(header.slice(15).map((h) => total[h])).toEqual(Array(10).fill(''));

    const fr = await get('/api/v1/admin/years/2026/export.csv?detail=products&dialect=fr&eco_organism=Citeo');
    const french = records(fr.body, ';');
    expect(french.header.slice(14, 17)).toEqual(['semestres manquants', 'semestre', 'référence produit']);
    const frenchProducts = french.rows.filter((r) => r.type === 'product');
    expect(frenchProducts.map((r) => [r['référence produit'], r.quantité])).toEqual([
      ['BTL-75-ROUGE', kgOf(3000, 1, '410.123').replace('.', ',')],
      ['BTL-75-ROUGE', kgOf(3000, 2, '2.5').replace('.', ',')],
      ['POT-250', kgOf(7, 1, '200').replace('.', ',')],
      ['POT-250', kgOf(7, 1, '3.125').replace('.', ',')],
      ['BTL-75-ROUGE', kgOf(5, 1, '380.5').replace('.', ',')],
    ]);
    expect(frenchProducts[3]).toMatchObject({ 'désignation du produit': `'=Bocal 250 g`, 'grammes par élément': '3,125' });

    // Without detail: the columns and rows as they were.
    const plain = records((await get('/api/v1/admin/years/2026/export.csv')).body);
    expect(plain.header).toEqual(header.slice(0, 15));
    expect(plain.rows).toEqual(
      rows.filter((r) => r.kind !== 'product').map((r) => Object.fromEntries(header.slice(0, 15).map((h) => [h, r[h]]))),
    );
  });
});

describe('detail: anything but products', () => {
  it('is a 422 problem pointing at /query/detail on all four operations, with the other problems of the query', async () => {
    for (const path of [
      '/api/v1/admin/periods/2026-S1/export?detail=bogus',
      '/api/v1/admin/periods/2026-S1/export.csv?detail=bogus',
      '/api/v1/admin/years/2026/export?detail=bogus',
      '/api/v1/admin/years/2026/export.csv?detail=bogus',
      '/api/v1/admin/periods/2026-S1/export?detail=products&detail=products',
      '/api/v1/admin/years/2026/export.csv?detail=',
    ]) {
      const res = await request(t.url).get(path).set(admin);
      expect([path, res.status, res.headers['content-type']]).toEqual([path, 422, 'application/problem+json; charset=utf-8']);
      expect(res.body.errors).toEqual([expect.objectContaining({ pointer: '/query/detail', code: 'invalid_export_detail' })]);
    }
    const both = await request(t.url).get('/api/v1/admin/periods/2026-S1/export.csv?dialect=de&detail=bogus').set(admin);
    expect(both.status).toBe(422);
    expect(both.body.errors.map((e: { pointer: string }) => e.pointer)).toEqual(['/query/dialect', '/query/detail']);
  });
});
