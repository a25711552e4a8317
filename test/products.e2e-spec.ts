import { jest } from '@jest/globals';
import request from 'supertest';
import { Clock } from '../src/calendar/clock.js';
import { createClientWithToken } from './support/factories.js';
import { ADMIN_TOKEN, startTestApp, type TestApp } from './support/test-app.js';

let t: TestApp;
let token: string;
let clientId: string;
/** "Now": 15 September 2026, so 2026-S1 and 2026-S2 have started and 2027-S1 has not. */
const NOW = new Date('2026-09-15T10:00:00Z');

beforeAll(async () => {
  t = await startTestApp();
  jest.spyOn(t.app.get(Clock), 'now').mockImplementation(() => NOW);
  ({ clientId, token } = await createClientWithToken(t, { streams: ['EMB', 'EPRO'] }));
  // The embedded database takes a while to start and migrate on a loaded machine.
}, 180_000);
afterAll(async () => {
  await t?.close();
});

const PROBLEM = /^application\/problem\+json; charset=utf-8$/;
const BOM = '\ufeff';

const auth = (req: request.Test, as = token) => req.set('authorization', `Bearer ${as}`);
const postProducts = (body: unknown, as = token) =>
  auth(request(t.url).post('/api/v1/products'), as).set('content-type', 'application/json').send(JSON.stringify(body));
const postProductsCsv = (csv: string | Buffer, as = token) =>
  auth(request(t.url).post('/api/v1/products'), as)
    .set('content-type', 'text/csv')
    .send(Buffer.isBuffer(csv) ? csv : Buffer.from(csv, 'utf8'));
const postSales = (period: string, body: unknown, as = token) =>
  auth(request(t.url).post(`/api/v1/sales?period=${period}`), as)
    .set('content-type', 'application/json')
    .send(JSON.stringify(body));
const postSalesCsv = (period: string, csv: string, as = token) =>
  auth(request(t.url).post(`/api/v1/sales?period=${period}`), as)
    .set('content-type', 'text/csv')
    .send(Buffer.from(csv, 'utf8'));
const preview = (period: string, as = token) => auth(request(t.url).get(`/api/v1/periods/${period}/derived-declaration`), as);
const file = (period: string, key?: string, as = token) => {
  const req = auth(request(t.url).post(`/api/v1/periods/${period}/derived-declaration`), as);
  if (key) req.set('idempotency-key', key);
  return req.send();
};

async function counts(): Promise<{ products: number; versions: number; elements: number; sales: number }> {
  const { rows } = await t.pool.query(
    `SELECT (SELECT count(*) FROM products)::int AS products, (SELECT count(*) FROM product_versions)::int AS versions,
            (SELECT count(*) FROM product_elements)::int AS elements, (SELECT count(*) FROM product_sales)::int AS sales`,
  );
  return rows[0];
}

function expectErrors(res: request.Response, expected: { pointer: string; code: string }[]) {
  expect(res.status).toBe(422);
  expect(res.headers['content-type']).toMatch(PROBLEM);
  expect(res.body.errors.map(({ pointer, code }: { pointer: string; code: string }) => ({ pointer, code }))).toEqual(expected);
}

/**
 * kg of units × per_unit × grams / 1000, computed apart from the service: exact integer arithmetic
 * on milligrams (grams have at most 3 decimals), as decimal text without trailing zeros.
 */
function kgOf(parts: { units: number; perUnit: number; grams: string }[]): string {
  const milligrams = parts.reduce((sum, p) => {
    const [whole, fraction = ''] = p.grams.split('.');
    return sum + BigInt(p.units) * BigInt(p.perUnit) * BigInt(whole! + fraction.padEnd(3, '0'));
  }, 0n);
  // kg = mg / 10^6.
  const text = milligrams.toString().padStart(7, '0');
  const result = `${text.slice(0, -6)}.${text.slice(-6)}`.replace(/\.?0+$/, '');
  return result === '' ? '0' : result;
}
/** Rounded to the gram, half away from zero (what a declaration line holds). */
const gramsRounded = (kg: string) => {
  const [whole, fraction = ''] = kg.split('.');
  const thousandths = BigInt(whole! + fraction.padEnd(6, '0').slice(0, 3)) + (Number(fraction.padEnd(6, '0')[3]) >= 5 ? 1n : 0n);
  return Number(thousandths) / 1000;
};

const WINE = {
  reference: 'BTL-75-ROUGE',
  name: 'Vin rouge 75 cl',
  stream: 'EMB',
  gtin: '3017620422003',
  valid_from: '2026-S1',
  elements: [
    { material: 'glass', weight_g: 410.123, per_unit: 1 },
    { material: 'Papier-carton', weight_g: 2.5, per_unit: 2 },
    { material: 'Aluminium', weight_g: 0.001, per_unit: 1 },
  ],
};
const DRUM = {
  reference: 'FUT-200',
  name: 'Fût 200 l',
  stream: 'EPRO',
  valid_from: '2026-S1',
  elements: [{ material: 'steel', weight_g: 18500.25, per_unit: 1, packaging_category: 'sales', reuse_status: 'reusable_new' }],
};

describe('POST /api/v1/products (JSON)', () => {
  it('stores products with their packaging; GET lists them and shows one; the same again changes nothing', async () => {
    const res = await postProducts({ products: [WINE, DRUM] });
    expect(res.status).toBe(201);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toEqual({
      created: 2,
      replaced: 0,
      unchanged: 0,
      versions: [
        { reference: 'BTL-75-ROUGE', valid_from: '2026-S1', outcome: 'created' },
        { reference: 'FUT-200', valid_from: '2026-S1', outcome: 'created' },
      ],
    });
    const one = await auth(request(t.url).get('/api/v1/products/BTL-75-ROUGE'));
    expect(one.status).toBe(200);
    expect(one.body.reference).toBe('BTL-75-ROUGE');
    expect(one.body.versions).toHaveLength(1);
    expect(one.body.versions[0]).toMatchObject({
      valid_from: '2026-S1',
      name: 'Vin rouge 75 cl',
      stream: 'EMB',
      gtin: '3017620422003',
      filed: false,
    });
    expect(one.body.versions[0].elements).toEqual([
      {
        material: 'glass',
        material_name: { fr: 'Verre', en: 'Glass' },
        weight_g: 410.123,
        per_unit: 1,
        packaging_category: null,
        reuse_status: null,
      },
      {
        material: 'paper_cardboard',
        material_name: { fr: 'Papier-carton', en: 'Paper and cardboard' },
        weight_g: 2.5,
        per_unit: 2,
        packaging_category: null,
        reuse_status: null,
      },
      {
        material: 'aluminium',
        material_name: { fr: 'Aluminium', en: 'Aluminium' },
        weight_g: 0.001,
        per_unit: 1,
        packaging_category: null,
        reuse_status: null,
      },
    ]);
    // numeric in SQL, exactly as sent.
    const { rows } = await t.pool.query(`SELECT weight_g::text AS w FROM product_elements ORDER BY weight_g`);
    expect(rows.map((r: { w: string }) => r.w)).toEqual(['0.001', '2.500', '410.123', '18500.250']);

    const list = await auth(request(t.url).get('/api/v1/products?limit=1'));
    expect(list.status).toBe(200);
    expect(list.body.data.map((p: { reference: string }) => p.reference)).toEqual(['BTL-75-ROUGE']);
    expect(list.body.has_more).toBe(true);
    const next = await auth(request(t.url).get(`/api/v1/products?limit=1&cursor=${list.body.next_cursor}`));
    expect(next.body.data.map((p: { reference: string }) => p.reference)).toEqual(['FUT-200']);
    expect(next.body.data[0].versions[0].elements[0]).toMatchObject({ packaging_category: 'sales', reuse_status: 'reusable_new' });
    expect(next.body.has_more).toBe(false);

    const again = await postProducts({ products: [WINE] });
    expect(again.status).toBe(201);
    expect(again.body).toMatchObject({ created: 0, replaced: 0, unchanged: 1 });

    const { rows: audit } = await t.pool.query(
      `SELECT action, actor_type, changes FROM audit_events WHERE client_id = $1 AND action = 'products.imported' ORDER BY occurred_at`,
      [clientId],
    );
    expect(audit[0]).toMatchObject({ actor_type: 'client', changes: { created: 2, replaced: 0, unchanged: 0, via: 'api' } });
  });

  it('refuses, with where and why, and stores nothing: unknown material, too many decimals, duplicate reference, wrong GTIN, EPRO without category', async () => {
    const before = await counts();
    const res = await postProducts({
      products: [
        { ...WINE, reference: 'A-1', elements: [{ material: 'Verre teinté', weight_g: 10 }] },
        { ...WINE, reference: 'A-2', elements: [{ material: 'glass', weight_g: 1.0005 }] },
        { ...WINE, reference: 'A-3', gtin: '3017620422004' },
        { ...WINE, reference: 'A-3' },
        { ...DRUM, reference: 'A-4', elements: [{ material: 'steel', weight_g: 10, reuse_status: 'single_use' }] },
        { ...WINE, reference: 'A-5', elements: [{ material: 'glass', weight_g: 10, packaging_category: 'sales', per_unit: 0 }] },
        { ...WINE, reference: '', weight: 1, valid_from: '2026-S3' },
      ],
    });
    expectErrors(res, [
      { pointer: '/products/0/elements/0/material', code: 'unknown_material' },
      { pointer: '/products/1/elements/0/weight_g', code: 'weight_too_precise' },
      { pointer: '/products/2/gtin', code: 'invalid_gtin' },
      { pointer: '/products/4/elements/0/packaging_category', code: 'required' },
      { pointer: '/products/5/elements/0/per_unit', code: 'invalid_count' },
      { pointer: '/products/5/elements/0/packaging_category', code: 'not_applicable' },
      { pointer: '/products/6/weight', code: 'unknown_field' },
      { pointer: '/products/6/reference', code: 'invalid_text' },
      { pointer: '/products/6/valid_from', code: 'invalid_period_format' },
    ]);
    // The valid A-3 twice: only once the rest is right is the duplicate reported.
    const duplicate = await postProducts({
      products: [
        { ...WINE, reference: 'A-3' },
        { ...WINE, reference: 'A-3' },
      ],
    });
    expectErrors(duplicate, [{ pointer: '/products/1/reference', code: 'duplicate_reference' }]);
    expect(await counts()).toEqual(before);
  });
});

describe('POST /api/v1/products and /api/v1/sales with text/csv: both dialects', () => {
  it('reads a comma file with English headers and a semicolon file with French headers and decimal commas as the same catalogue', async () => {
    const en =
      'reference,name,stream,gtin,valid_from,material,weight_g,per_unit\r\n' +
      'CSV-EN,"Jus 1 l, brique",EMB,,2026-S1,liquid_carton,28.4,1\r\n' +
      'CSV-EN,"Jus 1 l, brique",EMB,,2026-S1,plastic_pe_pp_rigid,2.125,1\r\n';
    const fr =
      `${BOM}Référence;Désignation;Flux;GTIN;À partir de;Matériau;Poids (g);Nombre par UVC\r\n` +
      'CSV-FR;Jus 1 l, brique;EMB;;2026-S1;Briques (emballages pour liquides alimentaires);28,4;1\r\n' +
      '\r\n' +
      'CSV-FR;Jus 1 l, brique;EMB;;2026-S1;plastic_pe_pp_rigid;2,125;1\r\n';
    const a = await postProductsCsv(en);
    expect(a.status).toBe(201);
    expect(a.body).toMatchObject({ created: 1 });
    const b = await postProductsCsv(fr);
    expect(b.status).toBe(201);
    expect(b.body).toMatchObject({ created: 1 });
    const [x, y] = await Promise.all(['CSV-EN', 'CSV-FR'].map((ref) => auth(request(t.url).get(`/api/v1/products/${ref}`))));
    expect(y.body.versions[0].elements).toEqual(x.body.versions[0].elements);
    expect(x.body.versions[0].elements.map((e: { material: string; weight_g: number }) => [e.material, e.weight_g])).toEqual([
      ['liquid_carton', 28.4],
      ['plastic_pe_pp_rigid', 2.125],
    ]);

    const sales = await postSalesCsv('2026-S1', `${BOM}référence;unités vendues\r\nCSV-EN;100\r\nCSV-FR;300\r\n`);
    expect(sales.status).toBe(200);
    expect(sales.body).toMatchObject({ period: '2026-S1', recorded: 2 });
  });

  it('reads units sold as the declaration upload reads numbers: « 60 000 » and « 1 200 », whole numbers only', async () => {
    const other = await createClientWithToken(t, { streams: ['EMB'] });
    const products = [WINE, { ...WINE, reference: 'BTL-50' }];
    await postProducts({ products }, other.token).expect(201);
    const sales = await postSalesCsv(
      '2026-S1',
      `${BOM}référence;unités vendues\r\nBTL-75-ROUGE;60 000\r\nBTL-50;1\u00a0200\r\n`,
      other.token,
    );
    expect(sales.status).toBe(200);
    expect(sales.body).toMatchObject({ period: '2026-S1', recorded: 2 });
    const { rows } = await t.pool.query(
      `SELECT s.units::text FROM product_sales s JOIN products p ON p.id = s.product_id WHERE p.client_id = $1 ORDER BY s.units`,
      [other.clientId],
    );
    expect(rows.map((row: { units: string }) => row.units)).toEqual(['1200', '60000']);
    const before = await counts();
    const half = await postSalesCsv('2026-S1', 'référence;unités vendues\r\nBTL-75-ROUGE;60 000\r\nBTL-50;12,5\r\n', other.token);
    expectErrors(half, [{ pointer: '/rows/3/units', code: 'invalid_count' }]);
    expect(await counts()).toEqual(before);
  });

  it('points at the cells of a wrong file, all or nothing', async () => {
    const before = await counts();
    const res = await postProductsCsv(
      'reference;name;stream;valid_from;material;weight_g\r\n' +
        'CSV-BAD;Pot;EMB;2026-S1;glass;12,5\r\n' +
        'CSV-BAD;Pot 2;EMB;2026-S1;bois;1,2345\r\n' +
        'CSV-OK;Pot;EMB;2026-S1;glass;abc\r\n',
    );
    expectErrors(res, [
      { pointer: '/rows/3/name', code: 'inconsistent_product' },
      { pointer: '/rows/3/material', code: 'unknown_material' },
      { pointer: '/rows/3/weight_g', code: 'weight_too_precise' },
      { pointer: '/rows/4/weight_g', code: 'invalid_weight' },
    ]);
    expect(res.body.errors[0].row).toBe(3);
    const sales = await postSalesCsv('2026-S1', 'reference,units\r\nCSV-EN,12.5\r\nNOPE,3\r\n');
    expectErrors(sales, [{ pointer: '/rows/2/units', code: 'invalid_count' }]);
    const unknown = await postSalesCsv('2026-S1', 'reference,units\r\nCSV-EN,12\r\nNOPE,3\r\n');
    expectErrors(unknown, [{ pointer: '/rows/3/reference', code: 'unknown_product' }]);
    expect(await counts()).toEqual(before);
  });
});

describe('POST /api/v1/sales', () => {
  it('refuses a sale for an unknown product, a product twice, a product without packaging in force, a period not started', async () => {
    await postProducts({ products: [{ ...WINE, reference: 'LATER', valid_from: '2026-S2' }] }).expect(201);
    const res = await postSales('2026-S1', {
      sales: [
        { reference: 'NOPE', units: 1 },
        { reference: 'LATER', units: 1 },
        { reference: 'BTL-75-ROUGE', units: 1 },
        { reference: 'BTL-75-ROUGE', units: 2 },
      ],
    });
    expectErrors(res, [{ pointer: '/sales/3/reference', code: 'duplicate_reference' }]);
    const res2 = await postSales('2026-S1', {
      sales: [
        { reference: 'NOPE', units: 1 },
        { reference: 'LATER', units: 1 },
      ],
    });
    expectErrors(res2, [
      { pointer: '/sales/0/reference', code: 'unknown_product' },
      { pointer: '/sales/1/reference', code: 'no_version_for_period' },
    ]);
    expectErrors(await postSales('2027-S1', { sales: [{ reference: 'BTL-75-ROUGE', units: 1 }] }), [
      { pointer: '/query/period', code: 'period_not_started' },
    ]);
    expectErrors(await postSales('2026-S1', { sales: [{ reference: 'BTL-75-ROUGE', units: -1 }] }), [
      { pointer: '/sales/0/units', code: 'invalid_count' },
    ]);
  });
});

describe('the derived declaration', () => {
  it('previews exact kg per stream and material with each product’s contribution, using the version in force', async () => {
    // A second client with its own catalogue: the computation never mixes clients.
    const other = await createClientWithToken(t, { streams: ['EMB'] });
    await postProducts({ products: [{ ...WINE }] }, other.token).expect(201);
    await postSales('2026-S1', { sales: [{ reference: 'BTL-75-ROUGE', units: 999 }] }, other.token).expect(200);

    // A second version of the wine from 2026-S2: a lighter bottle.
    await postProducts({
      products: [{ ...WINE, valid_from: '2026-S2', elements: [{ material: 'glass', weight_g: 380.5, per_unit: 1 }] }],
    }).expect(201);
    await postSales('2026-S1', {
      sales: [
        { reference: 'BTL-75-ROUGE', units: 3 },
        { reference: 'FUT-200', units: 7 },
      ],
    }).expect(200);
    await postSales('2026-S2', { sales: [{ reference: 'BTL-75-ROUGE', units: 5 }] }).expect(200);

    const res = await preview('2026-S1');
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    // Sold in 2026-S1: the wine (v2026-S1) ×3, the drum ×7, and from the CSV test, CSV-EN ×100 and CSV-FR ×300.
    const glass = kgOf([{ units: 3, perUnit: 1, grams: '410.123' }]);
    const paper = kgOf([{ units: 3, perUnit: 2, grams: '2.5' }]);
    const aluminium = kgOf([{ units: 3, perUnit: 1, grams: '0.001' }]);
    const steel = kgOf([{ units: 7, perUnit: 1, grams: '18500.25' }]);
    const carton = kgOf([
      { units: 100, perUnit: 1, grams: '28.4' },
      { units: 300, perUnit: 1, grams: '28.4' },
    ]);
    const rigid = kgOf([
      { units: 100, perUnit: 1, grams: '2.125' },
      { units: 300, perUnit: 1, grams: '2.125' },
    ]);
    expect(aluminium).toBe('0.000003');
    const byKey = Object.fromEntries(res.body.lines.map((l: { stream: string; material: string }) => [`${l.stream}/${l.material}`, l]));
    expect(Object.keys(byKey).sort()).toEqual([
      'EMB/aluminium',
      'EMB/glass',
      'EMB/liquid_carton',
      'EMB/paper_cardboard',
      'EMB/plastic_pe_pp_rigid',
      'EPRO/steel',
    ]);
    expect(byKey['EMB/glass']).toMatchObject({
      kg_exact: glass,
      kg: gramsRounded(glass),
      uvc: 3,
      material_name: { fr: 'Verre', en: 'Glass' },
    });
    expect(byKey['EMB/paper_cardboard']).toMatchObject({ kg_exact: paper, kg: gramsRounded(paper), uvc: 3 });
    expect(byKey['EMB/aluminium']).toMatchObject({ kg_exact: '0.000003', kg: 0, uvc: 3 });
    expect(byKey['EMB/liquid_carton']).toMatchObject({ kg_exact: carton, kg: gramsRounded(carton), uvc: 400 });
    expect(byKey['EMB/plastic_pe_pp_rigid']).toMatchObject({ kg_exact: rigid, kg: gramsRounded(rigid), uvc: 400 });
    expect(byKey['EPRO/steel']).toMatchObject({ kg_exact: steel, kg: gramsRounded(steel), uvc: null });
    expect(byKey['EMB/paper_cardboard'].contributions).toEqual([
      { reference: 'BTL-75-ROUGE', name: 'Vin rouge 75 cl', valid_from: '2026-S1', units: '3', elements: '6', kg: paper },
    ]);
    expect(byKey['EMB/liquid_carton'].contributions.map((c: { reference: string; kg: string }) => [c.reference, c.kg])).toEqual([
      ['CSV-EN', kgOf([{ units: 100, perUnit: 1, grams: '28.4' }])],
      ['CSV-FR', kgOf([{ units: 300, perUnit: 1, grams: '28.4' }])],
    ]);
    expect(res.body.products).toBe(4);
    expect(res.body.last_filed).toBeNull();
    // EMB: a kg line and its uvc line per material; EPRO: kg only.
    expect(res.body.declaration_lines).toContainEqual({ stream: 'EMB', material: 'glass', unit: 'kg', quantity: gramsRounded(glass) });
    expect(res.body.declaration_lines).toContainEqual({ stream: 'EMB', material: 'glass', unit: 'uvc', quantity: 3 });
    expect(res.body.declaration_lines).toContainEqual({ stream: 'EPRO', material: 'steel', unit: 'kg', quantity: gramsRounded(steel) });
    expect(res.body.declaration_lines.filter((l: { stream: string }) => l.stream === 'EPRO')).toHaveLength(1);
    // The units sold of household packaging: 3 wines + 100 + 300 cartons, each product once (its uvc lines add up to 809);
    // professional packaging (kg only) states none.
    expect(res.body.units_sold).toEqual([{ stream: 'EMB', quantity: 403 }]);

    // 2026-S2 uses the version in force then: the lighter bottle only.
    const s2 = await preview('2026-S2');
    expect(s2.body.lines).toEqual([
      {
        stream: 'EMB',
        material: 'glass',
        material_name: { fr: 'Verre', en: 'Glass' },
        kg_exact: kgOf([{ units: 5, perUnit: 1, grams: '380.5' }]),
        kg: gramsRounded(kgOf([{ units: 5, perUnit: 1, grams: '380.5' }])),
        uvc: 5,
        contributions: [
          {
            reference: 'BTL-75-ROUGE',
            name: 'Vin rouge 75 cl',
            valid_from: '2026-S2',
            units: '5',
            elements: '5',
            kg: kgOf([{ units: 5, perUnit: 1, grams: '380.5' }]),
          },
        ],
      },
    ]);
  });

  it('files it as an ordinary revision, recorded as derived and audited; replays with the same Idempotency-Key; protects what was filed', async () => {
    // Professional packaging (EPRO) is declarable from 1 July 2026 only: refused as by POST /api/v1/declarations, at its line.
    const withDrum = (await preview('2026-S1')).body;
    const drumLine = withDrum.declaration_lines.findIndex((l: { stream: string }) => l.stream === 'EPRO');
    expectErrors(await file('2026-S1', 'derive-2026-S1'), [
      { pointer: `/lines/${drumLine}/stream`, code: 'stream_not_declarable_for_period' },
    ]);
    expect(Number((await t.pool.query('SELECT count(*) FROM declarations')).rows[0].count)).toBe(0);
    await postSales('2026-S1', { sales: [{ reference: 'FUT-200', units: 0 }] }).expect(200);

    const expected = (await preview('2026-S1')).body;
    expect(expected.lines.map((l: { stream: string }) => l.stream)).not.toContain('EPRO');
    const res = await file('2026-S1', 'derive-2026-S1');
    expect(res.status).toBe(201);
    expect(res.headers.location).toBe(`/api/v1/declarations/${res.body.id}`);
    expect(res.body).toMatchObject({ period: '2026-S1', revision: 1, status: 'current' });
    expect(
      res.body.lines.map((l: { stream: string; material: string; unit: string; quantity: number }) => ({
        stream: l.stream,
        material: l.material,
        unit: l.unit,
        quantity: l.quantity,
      })),
    ).toEqual(expected.declaration_lines);
    expect(res.body.units_sold).toEqual(expected.units_sold);
    // The same declaration as any other.
    const stored = await auth(request(t.url).get(`/api/v1/declarations/${res.body.id}`));
    expect(stored.status).toBe(200);
    expect(stored.body.lines).toEqual(res.body.lines);

    const { rows: derivation } = await t.pool.query(
      `SELECT client_id, period, products FROM declaration_derivations WHERE declaration_id = $1`,
      [res.body.id],
    );
    expect(derivation).toEqual([{ client_id: clientId, period: '2026-S1', products: 3 }]);
    const { rows: contributions } = await t.pool.query(
      `SELECT c.stream, c.material_code, trim_scale(sum(c.kg))::text AS kg FROM declaration_derivation_contributions c WHERE c.declaration_id = $1 GROUP BY 1, 2 ORDER BY 1, 2`,
      [res.body.id],
    );
    expect(contributions).toEqual(
      expected.lines.map((l: { stream: string; material: string; kg_exact: string }) => ({
        stream: l.stream,
        material_code: l.material,
        kg: l.kg_exact,
      })),
    );
    const { rows: audit } = await t.pool.query(`SELECT changes FROM audit_events WHERE client_id = $1 AND action = 'declaration.derived'`, [
      clientId,
    ]);
    expect(audit).toHaveLength(1);
    expect(audit[0].changes).toMatchObject({ period: '2026-S1', revision: 1, declaration_id: res.body.id, via: 'api' });

    // The operator sees the products behind it: what a filing per consumer sales unit needs.
    const detail = await request(t.url)
      .get(`/api/v1/admin/declarations/${res.body.id}/derivation`)
      .set('authorization', `Bearer ${ADMIN_TOKEN}`);
    expect(detail.status).toBe(200);
    expect(detail.body).toMatchObject({
      declaration_id: res.body.id,
      client_id: clientId,
      period: '2026-S1',
      revision: 1,
      receipt: res.body.receipt,
    });
    expect(
      detail.body.products.map((p: { reference: string; units: string; valid_from: string }) => [p.reference, p.units, p.valid_from]),
    ).toEqual([
      ['BTL-75-ROUGE', '3', '2026-S1'],
      ['CSV-EN', '100', '2026-S1'],
      ['CSV-FR', '300', '2026-S1'],
    ]);
    expect(
      detail.body.products[0].elements.map((e: { material: string; weight_g: number; per_unit: number }) => [
        e.material,
        e.weight_g,
        e.per_unit,
      ]),
    ).toEqual([
      ['glass', 410.123, 1],
      ['paper_cardboard', 2.5, 2],
      ['aluminium', 0.001, 1],
    ]);
    // A client token is not the operator; a declaration entered directly has no derivation.
    expect((await auth(request(t.url).get(`/api/v1/admin/declarations/${res.body.id}/derivation`))).status).toBe(403);
    const direct = await auth(request(t.url).post('/api/v1/declarations'))
      .set('content-type', 'application/json')
      .send(JSON.stringify({ period: '2025-S2', lines: [{ stream: 'EMB', material: 'Verre', unit: 'uvc', quantity: 1 }] }));
    expect(direct.status).toBe(201);
    expect(
      (await request(t.url).get(`/api/v1/admin/declarations/${direct.body.id}/derivation`).set('authorization', `Bearer ${ADMIN_TOKEN}`))
        .status,
    ).toBe(404);

    const replay = await file('2026-S1', 'derive-2026-S1');
    expect(replay.status).toBe(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toEqual(res.body);
    // Without a key, the same lines again: the current revision, nothing new stored.
    const same = await file('2026-S1');
    expect(same.status).toBe(200);
    expect(same.body.id).toBe(res.body.id);
    expect(Number((await t.pool.query('SELECT count(*) FROM declaration_derivations')).rows[0].count)).toBe(1);

    const after = await preview('2026-S1');
    expect(after.body.last_filed).toMatchObject({ declaration_id: res.body.id, revision: 1, status: 'current' });
    const product = await auth(request(t.url).get('/api/v1/products/BTL-75-ROUGE'));
    expect(product.body.versions.map((v: { valid_from: string; filed: boolean }) => [v.valid_from, v.filed])).toEqual([
      ['2026-S2', false],
      ['2026-S1', true],
    ]);

    // What was filed never changes: replacing the version used is refused; the version not used may be replaced.
    const before = await counts();
    const replace = await postProducts({ products: [{ ...WINE, elements: [{ material: 'glass', weight_g: 400, per_unit: 1 }] }] });
    expectErrors(replace, [{ pointer: '/products/0/valid_from', code: 'product_version_filed' }]);
    expect(await counts()).toEqual(before);
    const replaced = await postProducts({
      products: [{ ...WINE, valid_from: '2026-S2', elements: [{ material: 'glass', weight_g: 379, per_unit: 1 }] }],
    });
    expect(replaced.status).toBe(201);
    expect(replaced.body).toMatchObject({ replaced: 1 });

    // New sales: a second revision, derived too.
    await postSales('2026-S1', { sales: [{ reference: 'BTL-75-ROUGE', units: 4 }] }).expect(200);
    const second = await file('2026-S1');
    expect(second.status).toBe(201);
    expect(second.body).toMatchObject({ revision: 2, supersedes: res.body.id });
    expect(Number((await t.pool.query('SELECT count(*) FROM declaration_derivations')).rows[0].count)).toBe(2);
  });

  it('refuses a period without sales, a malformed period; another client’s product is not found', async () => {
    expectErrors(await file('2025-S2'), [{ pointer: '/path/period', code: 'nothing_to_derive' }]);
    expectErrors(await preview('2026-S3'), [{ pointer: '/path/period', code: 'invalid_period_format' }]);
    const empty = await preview('2025-S2');
    expect(empty.status).toBe(200);
    expect(empty.body).toMatchObject({ period: '2025-S2', products: 0, lines: [], declaration_lines: [] });

    const other = await createClientWithToken(t, { streams: ['EMB'] });
    const res = await auth(request(t.url).get('/api/v1/products/FUT-200'), other.token);
    expect(res.status).toBe(404);
    expect(res.headers['content-type']).toMatch(PROBLEM);
    expect((await auth(request(t.url).get('/api/v1/products'), other.token)).body.data).toEqual([]);
    // A reference no product can have (a NUL, which PostgreSQL's text refuses; too long) is not found, never a 500 (found by the fuzzer).
    for (const reference of ['FUT-200%00', 'x'.repeat(65)])
      expect((await auth(request(t.url).get(`/api/v1/products/${reference}`), other.token)).status).toBe(404);
    const nulCursor = Buffer.from('p:FUT\u0000', 'utf8').toString('base64url');
    expect((await auth(request(t.url).get(`/api/v1/products?cursor=${nulCursor}`), other.token)).status).toBe(400);
    // Nor may it record sales for it.
    expectErrors(await postSales('2026-S1', { sales: [{ reference: 'FUT-200', units: 1 }] }, other.token), [
      { pointer: '/sales/0/reference', code: 'unknown_product' },
    ]);
    const unauthenticated = await request(t.url).get('/api/v1/products');
    expect(unauthenticated.status).toBe(401);
  });
});

describe('schema', () => {
  it('the migration goes down and up again', async () => {
    const { DataSource } = await import('typeorm');
    const { Products1797200000000 } = await import('../migrations/1797200000000-products.js');
    const runner = t.app.get(DataSource).createQueryRunner();
    try {
      await runner.startTransaction();
      const migration = new Products1797200000000();
      // Filed derivations reference declarations: down drops only this migration's tables.
      await migration.down(runner);
      for (const table of [
        'products',
        'product_versions',
        'product_elements',
        'product_sales',
        'declaration_derivations',
        'declaration_derivation_contributions',
      ]) {
        expect(await runner.hasTable(table)).toBe(false);
      }
      expect(await runner.hasTable('declarations')).toBe(true);
      await migration.up(runner);
      expect(await runner.hasTable('declaration_derivation_contributions')).toBe(true);
    } finally {
      await runner.rollbackTransaction();
      await runner.release();
    }
  });
});
