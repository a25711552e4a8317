import { jest } from '@jest/globals';
import pg from 'pg';
import request from 'supertest';
import { canonicalJson, sha256Hex } from '../src/declarations/canonical-json.js';
import { Clock } from '../src/calendar/clock.js';
import { filtersHash } from '../src/declarations/declaration-cursor.js';
import { PRESENCE_APPLICATION_NAME, ProcessPresence } from '../src/database/process-presence.js';
import { createClient, createClientWithToken, issueToken } from './support/factories.js';
import { SERVER_DATABASE_URL, startTestApp, type TestApp } from './support/test-app.js';

let t: TestApp;
let token: string;
let clientId: string;
/** "Now" for the validation rules: 15 March 2026, so 2026-S1 is open and 2026-S2 is not. */
const NOW = new Date('2026-03-15T10:00:00Z');
let now = NOW;

beforeAll(async () => {
  t = await startTestApp();
  jest.spyOn(t.app.get(Clock), 'now').mockImplementation(() => now);
  // Registered for both published streams (plan `business` covers EMB and EPRO).
  ({ clientId, token } = await createClientWithToken(t, { streams: ['EMB', 'EPRO'] }));
});
afterEach(() => {
  now = NOW;
});
afterAll(async () => {
  await t?.close();
});

const PROBLEM = /^application\/problem\+json; charset=utf-8$/;
const PATH = '/api/v1/declarations';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

type Line = { stream: string; material: string; unit: string; quantity: unknown };
const line = (overrides: Partial<Line> & Record<string, unknown> = {}): Line => ({
  stream: 'EMB',
  material: 'Verre',
  unit: 'uvc',
  quantity: 1200,
  ...overrides,
});
// Periods open on NOW that no fixed-period test of this file uses; when they run out, the
// default client is replaced by a new one, so each call gives an undeclared (client, period).
const FREE_PERIODS = ['2022-S1', '2022-S2', '2023-S1', '2023-S2', '2024-S1', '2024-S2', '2025-S2'];
let freeIndex = 0;
async function freshPeriod(): Promise<string> {
  if (freeIndex === FREE_PERIODS.length) {
    ({ clientId, token } = await createClientWithToken(t, { streams: ['EMB', 'EPRO'] }));
    freeIndex = 0;
  }
  return FREE_PERIODS[freeIndex++]!;
}

const post = (body: unknown, options: { token?: string; key?: string } = {}) => {
  const req = request(t.url)
    .post(PATH)
    .set('authorization', `Bearer ${options.token ?? token}`)
    .set('content-type', 'application/json');
  if (options.key !== undefined) req.set('idempotency-key', options.key);
  return req.send(typeof body === 'string' ? body : JSON.stringify(body));
};
const get = (path: string, as = token) => request(t.url).get(path).set('authorization', `Bearer ${as}`);

async function counts(): Promise<{ declarations: number; lines: number; keys: number }> {
  const { rows } = await t.pool.query(
    `SELECT (SELECT count(*) FROM declarations)::int AS declarations,
            (SELECT count(*) FROM declaration_lines)::int AS lines,
            (SELECT count(*) FROM idempotency_keys)::int AS keys`,
  );
  return rows[0];
}

function expectProblem(res: request.Response, status: number, code: string) {
  expect(res.status).toBe(status);
  expect(res.headers['content-type']).toMatch(PROBLEM);
  expect(res.headers['cache-control']).toBe('no-store');
  expect(res.body.code).toBe(code);
}

function expectErrors(res: request.Response, expected: { pointer: string; code: string }[]) {
  expectProblem(res, 422, 'validation_failed');
  expect(res.body.errors.map(({ pointer, code }: { pointer: string; code: string }) => ({ pointer, code }))).toEqual(expected);
  for (const error of res.body.errors) expect(error.detail).toEqual(expect.any(String));
}

describe('POST /api/v1/declarations: success', () => {
  it('201 with Location, no-store and the stored record', async () => {
    const before = await counts();
    // Household packaging: a material in kg carries its count of sales units (uvc) too.
    const res = await post({
      period: '2025-S1',
      lines: [
        line({ material: ' glass ', unit: 'kg', quantity: 1200.5 }),
        line({ material: 'Verre' }),
        line({ material: 'Film étirable', quantity: 12 }),
      ],
    });
    expect(res.status).toBe(201);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers.location).toBe(`${PATH}/${res.body.id}`);
    expect(res.headers['idempotent-replayed']).toBeUndefined();
    expect(res.body).toEqual({
      id: expect.stringMatching(UUID),
      client_id: clientId,
      period: '2025-S1',
      revision: 1,
      status: 'current',
      supersedes: null,
      submitted_at: expect.stringMatching(TIMESTAMP),
      receipt: expect.stringMatching(/^EPR-2025S1-R1-[0-9A-HJKMNP-TV-Z]{8}$/),
      catalogue_version: 3,
      mode: 'live',
      submitted_by: { type: 'token', token_id: expect.stringMatching(UUID), token_prefix: expect.stringMatching(/^eprc_/) },
      lines: [
        {
          stream: 'EMB',
          material: 'glass',
          material_category: { code: 'glass', name: { fr: 'Verre', en: 'Glass' } },
          unit: 'kg',
          quantity: 1200.5,
        },
        {
          stream: 'EMB',
          material: 'Verre',
          material_category: { code: 'glass', name: { fr: 'Verre', en: 'Glass' } },
          unit: 'uvc',
          quantity: 1200,
        },
        { stream: 'EMB', material: 'Film étirable', material_category: null, unit: 'uvc', quantity: 12 },
      ],
      units_sold: [],
      // kg only: the uvc lines (1200 and 12) count units per material, which do not add up.
      totals: [{ stream: 'EMB', unit: 'kg', quantity: '1200.5' }],
      // Not a category of the grid: stored as written, and said.
      warnings: [
        {
          pointer: '/lines/2/material',
          code: 'material_uncategorised',
          detail: expect.stringContaining('"Film étirable" is not a material category of EMB'),
        },
      ],
    });
    expect(Math.abs(Date.parse(res.body.submitted_at) - Date.now())).toBeLessThan(60_000);
    expect(await counts()).toEqual({ ...before, declarations: before.declarations + 1, lines: before.lines + 3 });

    const read = await get(res.headers.location);
    expect(read.status).toBe(200);
    expect(read.headers['cache-control']).toBe('no-store');
    // The record is the answer without its warnings, which are no part of the declaration.
    const { warnings: _warnings, ...record } = res.body;
    expect(read.body).toEqual(record);
  });

  it('keeps quantities exact: 0.1 + 0.2 totals "0.3", and 10^12 - 0.001 round-trips', async () => {
    // Each kg line of household packaging comes with its count of sales units (uvc).
    const kg = [
      ['a', 0.1],
      ['b', 0.2],
      ['c', 999999999999.999],
      ['d', 999999999999.999],
      ['e', 1e12],
      ['f', 0],
    ] as const;
    const ok = await post({
      period: '2026-S1',
      lines: [
        ...kg.map(([material, quantity]) => line({ material, unit: 'kg', quantity })),
        ...kg.map(([material]) => line({ material, quantity: 1 })),
      ],
    });
    expect(ok.status).toBe(201);
    expect(ok.body.lines.slice(0, 6).map((l: Line) => l.quantity)).toEqual([0.1, 0.2, 999999999999.999, 999999999999.999, 1e12, 0]);
    // The raw JSON text too: no drift such as 999999999999.9991.
    expect(ok.text).toContain('"quantity":999999999999.999}');
    expect(ok.body.totals).toEqual([
      // 0.1 + 0.2 exactly, and more than a double holds exactly: hence a string.
      { stream: 'EMB', unit: 'kg', quantity: '3000000000000.298' },
    ]);
    const { rows } = await t.pool.query(
      `SELECT quantity::text FROM declaration_lines WHERE declaration_id = $1 AND unit = 'kg' ORDER BY position`,
      [ok.body.id],
    );
    expect(rows.map((r) => r.quantity)).toEqual(['0.100', '0.200', '999999999999.999', '999999999999.999', '1000000000000.000', '0.000']);
  });

  it('accepts exactly 1000 lines', async () => {
    const lines = Array.from({ length: 1000 }, (_, i) => line({ material: `material ${i}`, quantity: i }));
    const res = await post({ period: await freshPeriod(), lines });
    expect(res.status).toBe(201);
    expect(res.body.lines).toHaveLength(1000);
    expect(res.body.lines[999]).toEqual({ stream: 'EMB', material: 'material 999', material_category: null, unit: 'uvc', quantity: 999 });
    // Counts per material are never added up across materials.
    expect(res.body.totals).toEqual([]);
  });

  it('opens a half-year at midnight in France (the injected clock)', async () => {
    const body = { period: '2026-S2', lines: [line()] };
    now = new Date('2026-06-30T21:59:59Z'); // 23:59:59 in Paris
    const early = await post(body);
    expectErrors(early, [{ pointer: '/period', code: 'period_not_started' }]);
    expect(early.body.errors[0].detail).toContain('2026-07-01');
    now = new Date('2026-06-30T22:00:00Z'); // 00:00 on 1 July in Paris
    expect((await post(body)).status).toBe(201);
  });
});

describe('POST /api/v1/declarations: warnings, never errors', () => {
  it('an empty array when there is nothing to say', async () => {
    const res = await post({ period: await freshPeriod(), lines: [line({ unit: 'kg', quantity: 300 }), line({ quantity: 1000 })] });
    expect(res.status).toBe(201);
    expect(res.body.warnings).toEqual([]);
  });

  it('an uncategorised material and a mass per unit that looks like tonnes: stored as sent, said at their line, in line order', async () => {
    const before = await counts();
    const lines = [
      line({ material: 'Plastique', unit: 'kg', quantity: 40 }),
      line({ material: 'Plastique', quantity: 1000 }),
      // 0.05 kg for 1,000 units = 0.05 g of glass a unit: tonnes typed as kilograms.
      line({ material: 'glass', unit: 'kg', quantity: 0.05 }),
      line({ material: 'glass', quantity: 1000 }),
      // 0.1 g a unit exactly: the threshold, not a warning.
      line({ material: 'aluminium', unit: 'kg', quantity: 0.1 }),
      line({ material: 'aluminium', quantity: 1000 }),
    ];
    const res = await post({ period: await freshPeriod(), lines });
    expect(res.status).toBe(201);
    expect(res.body.warnings).toEqual([
      {
        pointer: '/lines/0/material',
        code: 'material_uncategorised',
        detail: expect.stringContaining('"Plastique" is not a material category of EMB'),
      },
      { pointer: '/lines/1/material', code: 'material_uncategorised', detail: expect.any(String) },
      {
        pointer: '/lines/2/quantity',
        code: 'quantity_maybe_tonnes',
        detail:
          '0.05 kg for 1000 consumer sales units is 0.05 g of glass per unit: is this figure in tonnes? Write kilograms (1.2 t = 1200 kg); keep it if it is right.',
      },
    ]);
    // Stored exactly as sent: a warning changes nothing.
    expect(
      res.body.lines.map((l: Line & { material_category: unknown }) => [l.material, l.material_category === null, l.quantity]),
    ).toEqual([
      ['Plastique', true, 40],
      ['Plastique', true, 1000],
      ['glass', false, 0.05],
      ['glass', false, 1000],
      ['aluminium', false, 0.1],
      ['aluminium', false, 1000],
    ]);
    expect(await counts()).toEqual({ ...before, declarations: before.declarations + 1, lines: before.lines + 6 });
    // Not part of the record either.
    expect((await get(res.headers.location)).body).not.toHaveProperty('warnings');
  });

  it('an identical resubmission (200) says the same; a replay with the same Idempotency-Key gives the same answer', async () => {
    const period = await freshPeriod();
    const body = {
      period,
      lines: [line({ material: 'Plastique', unit: 'kg', quantity: 40 }), line({ material: 'Plastique', quantity: 1000 })],
    };
    const first = await post(body, { key: `warn-${period}` });
    expect(first.status).toBe(201);
    expect(first.body.warnings).toHaveLength(2);
    const replay = await post(body, { key: `warn-${period}` });
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.text).toBe(first.text);
    // The content hash ignores warnings: the same lines again are the identical 200, with the same warnings.
    const again = await post(body);
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(first.body.id);
    expect(again.body.warnings).toEqual(first.body.warnings);
  });

  it('a CSV file: the warnings point at its cells', async () => {
    const period = await freshPeriod();
    const csv = 'stream,material,unit,quantity\r\nEMB,Plastique,kg,40\r\nEMB,Plastique,uvc,1000\r\n';
    const res = await request(t.url)
      .post(`${PATH}?period=${period}`)
      .set('authorization', `Bearer ${token}`)
      .set('content-type', 'text/csv')
      .send(csv);
    expect(res.status).toBe(201);
    expect(res.body.warnings.map((w: { pointer: string; code: string }) => [w.pointer, w.code])).toEqual([
      ['/rows/2/material', 'material_uncategorised'],
      ['/rows/3/material', 'material_uncategorised'],
    ]);
  });
});

describe('POST /api/v1/declarations: every rule refused, nothing stored', () => {
  const tooMany = Array.from({ length: 1001 }, (_, i) => line({ material: `m${i}` }));
  const cases: [string, unknown, { pointer: string; code: string }[]][] = [
    ['period format', { period: '2025-s1', lines: [line()] }, [{ pointer: '/period', code: 'invalid_period_format' }]],
    ['period not started', { period: '2026-S2', lines: [line()] }, [{ pointer: '/period', code: 'period_not_started' }]],
    [
      'period too early',
      { period: '2021-S2', lines: [line()] },
      [
        { pointer: '/period', code: 'period_too_early' },
        { pointer: '/lines/0/stream', code: 'stream_not_declarable_for_period' },
      ],
    ],
    ['no lines', { period: '2025-S1', lines: [] }, [{ pointer: '/lines', code: 'too_few_lines' }]],
    ['1001 lines', { period: '2025-S1', lines: tooMany }, [{ pointer: '/lines', code: 'too_many_lines' }]],
    ['unknown stream', { period: '2025-S1', lines: [line({ stream: 'PAP' })] }, [{ pointer: '/lines/0/stream', code: 'unknown_stream' }]],
    [
      'stream not declarable for the period',
      { period: '2025-S2', lines: [line({ stream: 'EPRO', unit: 'kg' })] },
      [{ pointer: '/lines/0/stream', code: 'stream_not_declarable_for_period' }],
    ],
    [
      'empty material',
      { period: '2025-S1', lines: [line({ material: '   ' })] },
      [{ pointer: '/lines/0/material', code: 'invalid_material' }],
    ],
    [
      'material over 120 characters',
      { period: '2025-S1', lines: [line({ material: 'x'.repeat(121) })] },
      [{ pointer: '/lines/0/material', code: 'invalid_material' }],
    ],
    [
      'control character in material',
      { period: '2025-S1', lines: [line({ material: 'Ver\u0007re' })] },
      [{ pointer: '/lines/0/material', code: 'invalid_material' }],
    ],
    ['unit not allowed', { period: '2025-S1', lines: [line({ unit: 't' })] }, [{ pointer: '/lines/0/unit', code: 'unit_not_allowed' }]],
    [
      'quantity as a numeric string',
      { period: '2025-S1', lines: [line({ quantity: '1200' })] },
      [{ pointer: '/lines/0/quantity', code: 'quantity_not_a_number' }],
    ],
    [
      'negative quantity',
      { period: '2025-S1', lines: [line({ quantity: -1 })] },
      [{ pointer: '/lines/0/quantity', code: 'quantity_negative' }],
    ],
    [
      'quantity over 10^12',
      { period: '2025-S1', lines: [line({ quantity: 1000000000000.001 })] },
      [{ pointer: '/lines/0/quantity', code: 'quantity_too_large' }],
    ],
    [
      '4 decimals in kg',
      { period: '2025-S1', lines: [line({ unit: 'kg', quantity: 1.0001 }), line()] },
      [{ pointer: '/lines/0/quantity', code: 'quantity_too_precise' }],
    ],
    [
      'a decimal count of sales units',
      { period: '2025-S1', lines: [line({ quantity: 2.5 })] },
      [{ pointer: '/lines/0/quantity', code: 'quantity_too_precise' }],
    ],
    [
      'a kg line without its uvc line',
      { period: '2025-S1', lines: [line({ unit: 'kg' })] },
      [{ pointer: '/lines/0/unit', code: 'companion_line_missing' }],
    ],
    [
      'duplicate lines (trimmed, case-insensitive)',
      { period: '2025-S1', lines: [line({ material: 'Verre' }), line({ material: 'Bois' }), line({ material: ' VERRE ', quantity: 3 })] },
      [{ pointer: '/lines/0', code: 'duplicate_line' }],
    ],
    [
      'lines that display alike (zero-width space, right-to-left override, NFKC)',
      {
        period: '2025-S1',
        lines: [
          line({ material: 'Ve\u200brre' }),
          line({ material: '\u202eerreV' }),
          line({ material: 'Ｖｅｒｒｅ' }),
          line({ material: 'Verre' }),
        ],
      },
      [
        { pointer: '/lines/0/material', code: 'invalid_material' },
        { pointer: '/lines/1/material', code: 'invalid_material' },
        { pointer: '/lines/2', code: 'duplicate_line' },
      ],
    ],
    [
      'unknown fields anywhere',
      { period: '2025-S1', lines: [{ ...line(), colour: 'green' }], comment: 'x' },
      [
        { pointer: '/comment', code: 'unknown_field' },
        { pointer: '/lines/0/colour', code: 'unknown_field' },
      ],
    ],
    [
      'missing fields',
      { lines: [{ stream: 'EMB' }] },
      [
        { pointer: '/period', code: 'required' },
        { pointer: '/lines/0/material', code: 'required' },
        { pointer: '/lines/0/unit', code: 'required' },
        { pointer: '/lines/0/quantity', code: 'required' },
      ],
    ],
    ['a body that is not an object', [line()], [{ pointer: '', code: 'invalid_type' }]],
    [
      'every problem at once',
      { period: '2025-S3', lines: [line({ stream: 'XX', quantity: '5' }), line({ material: '', unit: 'g', quantity: -2 })] },
      [
        { pointer: '/period', code: 'invalid_period_format' },
        { pointer: '/lines/0/stream', code: 'unknown_stream' },
        { pointer: '/lines/0/quantity', code: 'quantity_not_a_number' },
        { pointer: '/lines/1/material', code: 'invalid_material' },
        { pointer: '/lines/1/unit', code: 'unit_not_allowed' },
        { pointer: '/lines/1/quantity', code: 'quantity_negative' },
      ],
    ],
  ];

  it.each(cases)('%s', async (name, body, expected) => {
    const before = await counts();
    // With an Idempotency-Key too: a refused request must not be remembered either.
    const res = await post(body, { key: `refused-${name.replace(/[^a-z0-9]+/gi, '-')}` });
    expectErrors(res, expected);
    expect(await counts()).toEqual(before);
  });

  it('thousands of problems: 100 listed, then one entry saying how many more; the answer stays small', async () => {
    const res = await post({ period: '2025-S1', lines: Array.from({ length: 1000 }, () => ({ a: 1, b: 2 })) });
    expectProblem(res, 422, 'validation_failed');
    expect(res.body.errors).toHaveLength(101);
    expect(res.body.errors[100]).toEqual({ pointer: '', code: 'more_errors', detail: '5900 more problems not listed' });
    expect(res.text.length).toBeLessThan(32 * 1024);
  });

  it('1000 identical lines: one duplicate_line problem of bounded size', async () => {
    const res = await post({ period: '2025-S1', lines: Array.from({ length: 1000 }, () => line()) });
    expectErrors(res, [{ pointer: '/lines/0', code: 'duplicate_line' }]);
    expect(res.text.length).toBeLessThan(2048);
  });

  it('stream not registered for the account', async () => {
    const other = await createClientWithToken(t, { streams: ['EMB'] });
    const before = await counts();
    const res = await post({ period: '2025-S1', lines: [line({ stream: 'CHR', unit: 'kg' })] }, { token: other.token });
    expectErrors(res, [{ pointer: '/lines/0/stream', code: 'stream_not_registered' }]);
    expect(res.body.errors[0].detail).toContain('EMB');
    expect(await counts()).toEqual(before);
  });

  it('a unit is accepted only on the streams that publish it (uvc: household packaging, not food-service)', async () => {
    const c = await createClientWithToken(t, { plan: 'business', streams: ['EMB', 'CHR'] });
    const before = await counts();
    const chr = await post(
      { period: '2025-S1', lines: [{ stream: 'CHR', material: 'glass', unit: 'uvc', quantity: 3 }] },
      { token: c.token },
    );
    expectErrors(chr, [{ pointer: '/lines/0/unit', code: 'unit_not_allowed' }]);
    expect(await counts()).toEqual(before);
    const emb = await post(
      { period: '2025-S1', lines: [{ stream: 'EMB', material: 'glass', unit: 'uvc', quantity: 3 }] },
      { token: c.token },
    );
    expect(emb.status).toBe(201);
  });

  it('an account whose profile was never confirmed cannot declare', async () => {
    const { clientId: pending } = await createClient(t, {}, { confirm: false });
    const { token: pendingToken } = await issueToken(t, pending);
    const before = await counts();
    const refused = await post({ period: '2025-S1', lines: [line()] }, { token: pendingToken });
    expectErrors(refused, [{ pointer: '', code: 'account_not_confirmed' }]);
    // Said as a sentence (no "/:" for the whole body), pointing at where the state can be read.
    expect(refused.body.detail).toMatch(/^Your account has not been confirmed yet: .*GET \/api\/v1\/me\/obligations/);
    expect(await counts()).toEqual(before);
  });

  it('413 over 1 MiB, 400 for malformed JSON, 415 for another media type', async () => {
    const before = await counts();
    expectProblem(await post({ period: '2025-S1', lines: [line({ material: 'x'.repeat(1024 * 1024) })] }), 413, 'payload_too_large');
    expectProblem(await post('{"period": "2025-S1", "lines": ['), 400, 'malformed_json');
    const text = await request(t.url)
      .post(PATH)
      .set('authorization', `Bearer ${token}`)
      .set('content-type', 'text/plain')
      .send('period=2025-S1');
    expectProblem(text, 415, 'unsupported_media_type');
    expect(await counts()).toEqual(before);
  });

  it('judges quantities as written in the JSON text, not as rounded to a double', async () => {
    const before = await counts();
    // With the count of sales units a household-packaging weight goes with.
    const raw = (quantity: string) =>
      `{"period": "2025-S1", "lines": [{"stream": "EMB", "material": "Verre", "unit": "kg", "quantity": ${quantity}}, {"stream": "EMB", "material": "Verre", "unit": "uvc", "quantity": 1}]}`;
    // Before: stored as 0.001 and 1e12, both 201.
    expectErrors(await post(raw('0.0009999999999999999999')), [{ pointer: '/lines/0/quantity', code: 'quantity_too_precise' }]);
    expectErrors(await post(raw('999999999999.99999')), [{ pointer: '/lines/0/quantity', code: 'quantity_too_precise' }]);
    expectErrors(await post(raw('1000000000000.0000000000000001')), [{ pointer: '/lines/0/quantity', code: 'quantity_too_large' }]);
    expectErrors(await post(raw('1e400')), [{ pointer: '/lines/0/quantity', code: 'quantity_too_large' }]);
    expect(await counts()).toEqual(before);
    const period = await freshPeriod();
    const exact = await post(raw('999999999999.999').replace('2025-S1', period));
    expect(exact.status).toBe(201);
    const { rows } = await t.pool.query(
      'SELECT quantity::text AS quantity FROM declaration_lines WHERE declaration_id = $1 ORDER BY position',
      [exact.body.id],
    );
    expect(rows).toEqual([{ quantity: '999999999999.999' }, { quantity: '1.000' }]);
  });

  it('400 for duplicate keys: which one counts would be a guess', async () => {
    expectProblem(await post('{"period": "2025-S1", "period": "2025-S2", "lines": []}'), 400, 'malformed_json');
  });

  it('a body nested 10,000 levels deep is a 422, never a 500, with or without a key; 100,000 levels a 413', async () => {
    const before = await counts();
    const nested = (levels: number) =>
      `{"period": "2025-S1", "lines": [${JSON.stringify(line())}], "x": ${'['.repeat(levels)}${']'.repeat(levels)}}`;
    // Far deeper than the canonical JSON of an Idempotency-Key's request hash goes (64 levels).
    expectErrors(await post(nested(10_000)), [{ pointer: '/x', code: 'unknown_field' }]);
    expectErrors(await post(nested(10_000), { key: 'deep' }), [{ pointer: '/x', code: 'unknown_field' }]);
    // Past 20,000 objects and arrays the body is refused before it is parsed.
    expectProblem(await post(nested(100_000)), 413, 'payload_too_large');
    expect(await counts()).toEqual(before);
  });

  it('401 without a token', async () => {
    expectProblem(
      await request(t.url)
        .post(PATH)
        .send({ period: '2025-S1', lines: [line()] }),
      401,
      'missing_token',
    );
  });
});

describe('receipt collisions', () => {
  it('a receipt that collides (twice) is drawn again: 201, one declaration, no trace of the failed attempts', async () => {
    const { clientId: collider, token: colliderToken } = await createClientWithToken(t);
    // The first two inserts of this client's declarations fail as a duplicate receipt would.
    // (A sequence, not a table: its count survives the rolled-back attempts.)
    await t.pool.query(`CREATE SEQUENCE test_receipt_collisions`);
    await t.pool.query(`
      CREATE FUNCTION test_collide() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.client_id = '${collider}' AND nextval('test_receipt_collisions') <= 2 THEN
          RAISE EXCEPTION 'duplicate key value violates unique constraint "uq_declarations_receipt"'
            USING ERRCODE = 'unique_violation', CONSTRAINT = 'uq_declarations_receipt';
        END IF;
        RETURN NEW;
      END $$`);
    await t.pool.query(`CREATE TRIGGER test_collide BEFORE INSERT ON declarations FOR EACH ROW EXECUTE FUNCTION test_collide()`);
    try {
      const res = await post({ period: '2025-S1', lines: [line()] }, { token: colliderToken });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ client_id: collider, revision: 1, status: 'current' });
      const { rows } = await t.pool.query(`SELECT nextval('test_receipt_collisions')::int AS n`);
      expect(rows[0].n).toBe(4); // two failed attempts, one that went through, and this read
      const stored = await t.pool.query(`SELECT receipt FROM declarations WHERE client_id = $1`, [collider]);
      expect(stored.rows).toEqual([{ receipt: res.body.receipt }]);
    } finally {
      await t.pool.query(`DROP TRIGGER test_collide ON declarations`);
      await t.pool.query(`DROP FUNCTION test_collide()`);
      await t.pool.query(`DROP SEQUENCE test_receipt_collisions`);
    }
  });
});

describe('revisions', () => {
  it('a second submission is revision 2; revision 1 is superseded and still readable; identical content → 200', async () => {
    const period = await freshPeriod();
    const first = await post({ period, lines: [line(), line({ material: 'Bois', quantity: 3 })] });
    expect(first.status).toBe(201);

    const second = await post({ period, lines: [line({ quantity: 1300 }), line({ material: 'Bois', quantity: 3 })] });
    expect(second.status).toBe(201);
    expect(second.body).toMatchObject({ period, revision: 2, status: 'current', supersedes: first.body.id });
    expect(second.body.receipt).toMatch(new RegExp(`^EPR-${period.replace('-', '')}-R2-`));
    expect(second.body.receipt).not.toBe(first.body.receipt);

    const old = await get(`${PATH}/${first.body.id}`);
    expect(old.status).toBe(200);
    const { warnings: _firstWarnings, ...firstRecord } = first.body;
    expect(old.body).toEqual({ ...firstRecord, status: 'superseded' });

    // Same lines, other order, other spacing of the JSON: the same content.
    const before = await counts();
    const again = await post(
      `{ "lines": [ {"quantity": 3, "unit": "uvc", "material": "Bois", "stream": "EMB"}, ${JSON.stringify(line({ quantity: 1300 }))} ], "period": "${period}" }`,
    );
    expect(again.status).toBe(200);
    expect(again.headers.location).toBe(`${PATH}/${second.body.id}`);
    expect(again.headers['cache-control']).toBe('no-store');
    // The current revision; the warnings are about what was sent, so they point at the lines as sent this time ("Bois" is now line 0).
    expect(again.body).toEqual({ ...second.body, warnings: [{ ...second.body.warnings[0], pointer: '/lines/0/material' }] });
    expect(await counts()).toEqual(before);

    // Back to the content of revision 1: that is new content again, revision 3.
    const third = await post({ period, lines: [line(), line({ material: 'Bois', quantity: 3 })] });
    expect(third.status).toBe(201);
    expect(third.body).toMatchObject({ revision: 3, supersedes: second.body.id });

    const { rows } = await t.pool.query(
      `SELECT revision, status FROM declarations WHERE client_id = $1 AND period = $2 ORDER BY revision`,
      [clientId, period],
    );
    expect(rows).toEqual([
      { revision: 1, status: 'superseded' },
      { revision: 2, status: 'superseded' },
      { revision: 3, status: 'current' },
    ]);
  });

  it('the database itself refuses a second current revision', async () => {
    const period = await freshPeriod();
    const first = await post({ period, lines: [line()] });
    await expect(
      t.pool.query(
        `INSERT INTO declarations (client_id, period, revision, status, supersedes, submitted_at, receipt, content_hash)
         VALUES ($1, $2, 2, 'current', $3, now(), 'EPR-TEST', 'x')`,
        [clientId, period, first.body.id],
      ),
    ).rejects.toMatchObject({ constraint: 'uq_declarations_client_period_current' });
  });
});

/** Every number of a JSON value, numbers written as strings included (as the totals' quantities are). */
function numbersIn(value: unknown): number[] {
  if (typeof value === 'number') return [value];
  if (typeof value === 'string') return /^-?\d+(\.\d+)?$/.test(value) ? [Number(value)] : [];
  if (Array.isArray(value)) return value.flatMap(numbersIn);
  if (value !== null && typeof value === 'object') return Object.values(value).flatMap(numbersIn);
  return [];
}

describe('units sold, stated once per stream', () => {
  // 95,000 units hold glass and 85,000 cardboard; a unit with both is on both lines: 180,000 is no count of anything.
  const counted = [
    line({ material: 'glass', unit: 'kg', quantity: 19950 }),
    line({ material: 'glass', quantity: 95000 }),
    line({ material: 'paper_cardboard', unit: 'kg', quantity: 3867.5 }),
    line({ material: 'paper_cardboard', quantity: 85000 }),
  ];

  it('round-trips through POST and GET (JSON and CSV), and the same units sold again are "unchanged"', async () => {
    const period = await freshPeriod();
    const first = await post({ period, lines: counted, units_sold: [{ stream: 'EMB', quantity: 120000 }] });
    expect(first.status).toBe(201);
    expect(first.body.units_sold).toEqual([{ stream: 'EMB', quantity: 120000 }]);
    // Never the sum of the uvc lines (180,000), nor any uvc total. (Its values, not its text: a time of day
    // such as 18:37:35.180000 holds the digits.)
    expect(first.body.totals).toEqual([{ stream: 'EMB', unit: 'kg', quantity: '23817.5' }]);
    expect(numbersIn(first.body)).not.toContain(180000);

    const read = await get(`${PATH}/${first.body.id}`);
    expect(read.body.units_sold).toEqual([{ stream: 'EMB', quantity: 120000 }]);
    const listed = await get(`${PATH}?period=${period}`);
    expect(listed.body.data[0].units_sold).toEqual([{ stream: 'EMB', quantity: 120000 }]);
    const { rows } = await t.pool.query(`SELECT units_sold FROM declarations WHERE id = $1`, [first.body.id]);
    expect(rows[0].units_sold).toEqual([{ stream: 'EMB', quantity: '120000' }]);

    // The same content in another order: identical, nothing new.
    const again = await post({ units_sold: [{ stream: 'EMB', quantity: 120000 }], period, lines: [...counted].reverse() });
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(first.body.id);
    // Other units sold, or none: new content.
    const other = await post({ period, lines: counted, units_sold: [{ stream: 'EMB', quantity: 120001 }] });
    expect(other.status).toBe(201);
    const none = await post({ period, lines: counted });
    expect(none.status).toBe(201);
    expect(none.body.units_sold).toEqual([]);

    // As a file: a row in uvc without a material; the file uploads again as the same declaration.
    const csv = await get(`${PATH}/${other.body.id}.csv`);
    expect(csv.text).toContain('\r\nEMB,,uvc,120001\r\n');
    const upload = await request(t.url)
      .post(`${PATH}?period=${period}`)
      .set('authorization', `Bearer ${token}`)
      .set('content-type', 'text/csv')
      .send(csv.text);
    expect(upload.status).toBe(201);
    expect(upload.body.units_sold).toEqual([{ stream: 'EMB', quantity: 120001 }]);
    expect(upload.body.lines).toHaveLength(4);
    const same = await request(t.url)
      .post(`${PATH}?period=${period}`)
      .set('authorization', `Bearer ${token}`)
      .set('content-type', 'text/csv')
      .send(csv.text);
    expect(same.status).toBe(200);
  });

  it('refuses units sold below a material count, twice for a stream, or as a string; in a file at its cell; nothing stored', async () => {
    const c = await createClientWithToken(t, { streams: ['EMB', 'EPRO'] });
    const before = await counts();
    const res = await post(
      {
        period: '2026-S1',
        lines: counted,
        units_sold: [
          { stream: 'EMB', quantity: 90000 },
          { stream: 'EMB', quantity: 100000 },
          { stream: 'EMB', quantity: '90000' },
        ],
      },
      { token: c.token },
    );
    expectErrors(res, [
      { pointer: '/units_sold/0/quantity', code: 'units_sold_below_material_count' },
      { pointer: '/units_sold/1/stream', code: 'duplicate_units_sold' },
      { pointer: '/units_sold/2/quantity', code: 'quantity_not_a_number' },
    ]);
    const file = await request(t.url)
      .post(`${PATH}?period=2026-S1`)
      .set('authorization', `Bearer ${c.token}`)
      .set('content-type', 'text/csv')
      .send('stream,material,unit,quantity\r\nEMB,glass,uvc,95000\r\nEMB,,uvc,90000\r\n');
    expectErrors(file, [{ pointer: '/rows/3/quantity', code: 'units_sold_below_material_count' }]);
    expect(await counts()).toEqual(before);
  });
});

describe('Idempotency-Key', () => {
  it('replays a 200 (identical content) as a 200, not as a 201', async () => {
    const period = await freshPeriod();
    expect((await post({ period, lines: [line()] })).status).toBe(201);
    const key = `identical-${Date.now()}`;
    const identical = await post({ period, lines: [line()] }, { key });
    expect(identical.status).toBe(200);
    const replay = await post({ period, lines: [line()] }, { key });
    expect(replay.status).toBe(200);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.text).toBe(identical.text);
  });

  it('same key and body → the first response replayed, byte for byte; another body → 422', async () => {
    const period = await freshPeriod();
    const key = 'b8b8a6a4-1a4f-4d1e-9a55-3b9bbd0f1c7e';
    const first = await post({ period, lines: [line()] }, { key });
    expect(first.status).toBe(201);
    const before = await counts();

    // Same body with its keys in another order.
    const replay = await post({ lines: [{ quantity: 1200, unit: 'uvc', material: 'Verre', stream: 'EMB' }], period }, { key });
    expect(replay.status).toBe(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.headers.location).toBe(first.headers.location);
    expect(replay.headers['cache-control']).toBe('no-store');
    expect(replay.text).toBe(first.text);
    expect(await counts()).toEqual(before);

    const reused = await post({ period, lines: [line({ quantity: 1 })] }, { key });
    expectProblem(reused, 422, 'idempotency_key_reused');
    expect(reused.body.errors).toEqual([
      { pointer: '/headers/idempotency-key', code: 'idempotency_key_reused', detail: expect.any(String) },
    ]);
    expect(await counts()).toEqual(before);
  });

  it('replays the first response even after the declaration was superseded', async () => {
    const period = await freshPeriod();
    const first = await post({ period, lines: [line()] }, { key: 'replay-after-supersede' });
    expect((await post({ period, lines: [line({ quantity: 2 })] })).status).toBe(201);
    const replay = await post({ period, lines: [line()] }, { key: 'replay-after-supersede' });
    expect(replay.status).toBe(201);
    expect(replay.body).toEqual(first.body);
    expect(replay.body.status).toBe('current');
  });

  it('the bare and the quoted (IETF structured field) forms are the same key', async () => {
    const period = await freshPeriod();
    const first = await post({ period, lines: [line()] }, { key: 'quoted-key-1' });
    const replay = await post({ period, lines: [line()] }, { key: '"quoted-key-1"' });
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body.id).toBe(first.body.id);
  });

  it('a request that failed validation is not remembered', async () => {
    const period = await freshPeriod();
    const failed = await post({ period, lines: [line({ quantity: '5' })] }, { key: 'fix-and-retry' });
    expect(failed.status).toBe(422);
    const fixed = await post({ period, lines: [line({ quantity: 5 })] }, { key: 'fix-and-retry' });
    expect(fixed.status).toBe(201);
    expect(fixed.headers['idempotent-replayed']).toBeUndefined();
  });

  it('keys are per client', async () => {
    const other = await createClientWithToken(t);
    const period = await freshPeriod();
    const mine = await post({ period, lines: [line()] }, { key: 'shared-key' });
    const theirs = await post({ period, lines: [line()] }, { key: 'shared-key', token: other.token });
    expect(theirs.status).toBe(201);
    expect(theirs.headers['idempotent-replayed']).toBeUndefined();
    expect(theirs.body.id).not.toBe(mine.body.id);
    expect(theirs.body.client_id).toBe(other.clientId);
  });

  it('409 with Retry-After while the first request is in flight; a claim older than 60 s is taken over', async () => {
    const period = await freshPeriod();
    const body = { period, lines: [line()] };
    await t.pool.query(
      `INSERT INTO idempotency_keys (client_id, key, request_hash, state, created_at, expires_at)
       VALUES ($1, 'busy', $2, 'in_flight', now(), now() + interval '24 hours')`,
      [clientId, sha256Hex(canonicalJson(body))],
    );
    const before = await counts();
    const busy = await post(body, { key: 'busy' });
    expectProblem(busy, 409, 'idempotency_key_in_flight');
    expect(busy.headers['retry-after']).toBe('1');
    expect(await counts()).toEqual(before);

    await t.pool.query(`UPDATE idempotency_keys SET created_at = now() - interval '61 seconds' WHERE client_id = $1 AND key = 'busy'`, [
      clientId,
    ]);
    const takenOver = await post(body, { key: 'busy' });
    expect(takenOver.status).toBe(201);
    const { rows } = await t.pool.query(`SELECT state, response_status FROM idempotency_keys WHERE client_id = $1 AND key = 'busy'`, [
      clientId,
    ]);
    expect(rows).toEqual([{ state: 'completed', response_status: 201 }]);
  });

  /** Whether a session holds the advisory lock `key` (a ProcessPresence's). */
  const held = async (key: string | undefined) =>
    (
      await t.pool.query(
        `SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted AND objsubid = 1
            AND classid = ($1::bigint >> 32)::oid AND objid = ($1::bigint & 4294967295)::oid`,
        [key],
      )
    ).rowCount === 1;

  it("records the service's process as a claim's owner: a lock it holds", async () => {
    const key = t.app.get(ProcessPresence).key;
    expect(key).toMatch(/^\d+$/);
    expect(await held(key)).toBe(true);
    expect((await post({ period: await freshPeriod(), lines: [line()] }, { key: 'owned' })).status).toBe(201);
    const { rows } = await t.pool.query(`SELECT owner::text FROM idempotency_keys WHERE client_id = $1 AND key = 'owned'`, [clientId]);
    expect(rows).toEqual([{ owner: key }]);
  });

  it('takes over at once a claim whose lock no session holds (on the embedded database: a process before a restart)', async () => {
    const body = { period: await freshPeriod(), lines: [line()] };
    await t.pool.query(
      `INSERT INTO idempotency_keys (client_id, key, request_hash, state, created_at, expires_at, owner)
       VALUES ($1, 'before-restart', $2, 'in_flight', now(), now() + interval '24 hours', 4611686018427387906)`,
      [clientId, sha256Hex(canonicalJson(body))],
    );
    expect((await post(body, { key: 'before-restart' })).status).toBe(201);
  });

  // On the embedded database every connection is one session: a connection that closes frees no lock.
  (SERVER_DATABASE_URL ? it : it.skip)(
    "takes over at once a claim whose process is gone (its lock's connection closed), never a live process's",
    async () => {
      const period = await freshPeriod();
      const body = { period, lines: [line()] };
      const owner = new pg.Client({ connectionString: t.config.databaseUrl });
      await owner.connect();
      const ownerKey = '4611686018427387905';
      await owner.query('SELECT pg_advisory_lock($1)', [ownerKey]);
      await t.pool.query(
        `INSERT INTO idempotency_keys (client_id, key, request_hash, state, created_at, expires_at, owner)
         VALUES ($1, 'orphan', $2, 'in_flight', now(), now() + interval '24 hours', $3)`,
        [clientId, sha256Hex(canonicalJson(body)), ownerKey],
      );
      const before = await counts();
      expectProblem(await post(body, { key: 'orphan' }), 409, 'idempotency_key_in_flight');
      expect(await counts()).toEqual(before);

      await owner.end();
      // The server ends the session, and frees its lock, once it reads the connection's end.
      for (let i = 0; i < 50 && (await held(ownerKey)); i++) await new Promise((r) => setTimeout(r, 20));
      const takenOver = await post(body, { key: 'orphan' });
      expect(takenOver.status).toBe(201);
      const { rows } = await t.pool.query(`SELECT state, owner::text FROM idempotency_keys WHERE client_id = $1 AND key = 'orphan'`, [
        clientId,
      ]);
      expect(rows).toEqual([{ state: 'completed', owner: t.app.get(ProcessPresence).key }]);
    },
  );

  (SERVER_DATABASE_URL ? it : it.skip)('a lost presence connection is replaced, under a new key', async () => {
    const presence = t.app.get(ProcessPresence);
    const before = presence.key;
    const { rowCount } = await t.pool.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1 AND datname = current_database()`,
      [PRESENCE_APPLICATION_NAME],
    );
    expect(rowCount).toBe(1);
    for (let i = 0; i < 100 && (presence.key === before || presence.key === undefined); i++) await new Promise((r) => setTimeout(r, 50));
    expect(presence.key).toMatch(/^\d+$/);
    expect(presence.key).not.toBe(before);
    expect([await held(before), await held(presence.key)]).toEqual([false, true]);
  });

  it('is kept 24 hours: an expired key is a new request, and expired keys are swept', async () => {
    const period = await freshPeriod();
    const first = await post({ period, lines: [line()] }, { key: 'old-key' });
    const { rows } = await t.pool.query(
      `SELECT extract(epoch FROM expires_at - created_at)::int AS ttl FROM idempotency_keys WHERE client_id = $1 AND key = 'old-key'`,
      [clientId],
    );
    expect(rows[0].ttl).toBe(24 * 3600);
    await t.pool.query(`UPDATE idempotency_keys SET expires_at = now() - interval '1 second' WHERE client_id = $1 AND key = 'old-key'`, [
      clientId,
    ]);
    // Another body under the same key: no longer "reused", since the key has expired.
    const again = await post({ period, lines: [line({ quantity: 7 })] }, { key: 'old-key' });
    expect(again.status).toBe(201);
    expect(again.body.supersedes).toBe(first.body.id);

    await t.pool.query(
      `INSERT INTO idempotency_keys (client_id, key, request_hash, state, response_status, response_body, created_at, expires_at)
       VALUES ($1, 'expired-elsewhere', 'x', 'completed', 201, '{}', now() - interval '2 days', now() - interval '1 day')`,
      [clientId],
    );
    await post({ period: await freshPeriod(), lines: [line()] }, { key: 'sweeper' });
    const left = await t.pool.query(`SELECT 1 FROM idempotency_keys WHERE key = 'expired-elsewhere'`);
    expect(left.rowCount).toBe(0);
  });

  it.each([
    ['empty', ''],
    ['256 characters', 'k'.repeat(256)],
    ['a space', 'my key'],
    ['non-ASCII', 'clé'],
  ])('refuses a key that is %s, with the body problems, storing nothing', async (_name, key) => {
    const before = await counts();
    const res = await post({ period: '2025-S1', lines: [line({ quantity: -1 })] }, { key });
    expectErrors(res, [
      { pointer: '/headers/idempotency-key', code: 'invalid_idempotency_key' },
      { pointer: '/lines/0/quantity', code: 'quantity_negative' },
    ]);
    expect(await counts()).toEqual(before);
  });
});

describe('GET /api/v1/declarations/{id} and isolation between clients', () => {
  it("client B gets 404 for client A's declaration, the same as for an unknown id, and never sees it in a list", async () => {
    const a = await post({ period: await freshPeriod(), lines: [line()] });
    expect(a.status).toBe(201);
    const b = await createClientWithToken(t);

    const theirs = await get(`${PATH}/${a.body.id}`, b.token);
    const unknown = await get(`${PATH}/00000000-0000-4000-8000-000000000000`, b.token);
    const malformed = await get(`${PATH}/not-a-uuid`, b.token);
    for (const res of [theirs, unknown, malformed]) expectProblem(res, 404, 'not_found');
    const comparable = (res: request.Response) => ({ ...res.body, instance: undefined });
    expect(comparable(theirs)).toEqual(comparable(unknown));
    expect(comparable(malformed)).toEqual(comparable(unknown));

    const list = await get(`${PATH}?limit=100`, b.token);
    expect(list.status).toBe(200);
    expect(list.body).toEqual({ data: [], has_more: false, next_cursor: null });
    expect((await get(`${PATH}?period=${a.body.period}`, b.token)).body.data).toEqual([]);

    // A's list does show it (upper-case id in the path works too).
    expect((await get(`${PATH}/${a.body.id.toUpperCase()}`)).body.id).toBe(a.body.id);
  });
});

describe('GET /api/v1/declarations', () => {
  it('summaries with line_count and totals, filters by period and status, every response no-store', async () => {
    const c = await createClientWithToken(t);
    const p1 = '2024-S1';
    const p2 = '2024-S2';
    const r1 = await post(
      { period: p1, lines: [line(), line({ material: 'Bois', unit: 'kg', quantity: 0.5 }), line({ material: 'Bois', quantity: 1 })] },
      { token: c.token },
    );
    const r2 = await post({ period: p1, lines: [line({ quantity: 1 })] }, { token: c.token });
    const r3 = await post({ period: p2, lines: [line()] }, { token: c.token });

    const all = await get(PATH, c.token);
    expect(all.status).toBe(200);
    expect(all.headers['cache-control']).toBe('no-store');
    expect(all.body.has_more).toBe(false);
    expect(all.body.next_cursor).toBeNull();
    expect(all.body.data.map((d: { id: string }) => d.id)).toEqual([r3.body.id, r2.body.id, r1.body.id]);
    const { lines, warnings: _warnings, ...summary } = r1.body;
    expect(lines).toHaveLength(3);
    expect(all.body.data[2]).toEqual({ ...summary, status: 'superseded', line_count: 3 });
    expect(all.body.data[2].totals).toEqual([{ stream: 'EMB', unit: 'kg', quantity: '0.5' }]);

    const byPeriod = await get(`${PATH}?period=${p1}`, c.token);
    expect(byPeriod.body.data.map((d: { id: string }) => d.id)).toEqual([r2.body.id, r1.body.id]);
    const current = await get(`${PATH}?status=current`, c.token);
    expect(current.body.data.map((d: { id: string }) => d.id)).toEqual([r3.body.id, r2.body.id]);
    const superseded = await get(`${PATH}?status=superseded&period=${p1}`, c.token);
    expect(superseded.body.data.map((d: { id: string }) => d.id)).toEqual([r1.body.id]);
  });

  it('pages with limit and next_cursor; a cursor with other filters or altered → 400 invalid_cursor', async () => {
    const c = await createClientWithToken(t);
    for (const period of ['2023-S1', '2023-S2', '2024-S1']) await post({ period, lines: [line()] }, { token: c.token });
    const page1 = await get(`${PATH}?limit=2`, c.token);
    expect(page1.body.data).toHaveLength(2);
    expect(page1.body.has_more).toBe(true);
    const page2 = await get(`${PATH}?limit=2&cursor=${page1.body.next_cursor}`, c.token);
    expect(page2.body.data.map((d: { period: string }) => d.period)).toEqual(['2023-S1']);
    expect(page2.body).toMatchObject({ has_more: false, next_cursor: null });

    expectProblem(await get(`${PATH}?limit=2&status=current&cursor=${page1.body.next_cursor}`, c.token), 400, 'invalid_cursor');
    expectProblem(await get(`${PATH}?cursor=garbage`, c.token), 400, 'invalid_cursor');
    expectProblem(await get(`${PATH}?cursor=${page1.body.next_cursor.slice(0, -2)}`, c.token), 400, 'invalid_cursor');
  });

  it('a cursor whose timestamp does not exist (30 February) → 400 invalid_cursor, not 500', async () => {
    const c = await createClientWithToken(t);
    const payload = { v: 1, t: '2026-02-30T08:00:00.123456Z', i: '0b6f1c2e-6a55-4c1e-9a7e-3f3f1d2a9b10', f: filtersHash({}) };
    const cursor = Buffer.from(JSON.stringify(payload)).toString('base64url');
    expectProblem(await get(`${PATH}?cursor=${cursor}`, c.token), 400, 'invalid_cursor');
  });

  it.each([
    ['limit=0', '/query/limit', 'limit_out_of_range'],
    ['limit=101', '/query/limit', 'limit_out_of_range'],
    ['limit=abc', '/query/limit', 'limit_out_of_range'],
    ['limit=1.5', '/query/limit', 'limit_out_of_range'],
    ['period=2025-S3', '/query/period', 'invalid_period_format'],
    ['status=deleted', '/query/status', 'invalid_status'],
    ['offset=20', '/query/offset', 'unknown_field'],
  ])('422 for %s', async (query, pointer, code) => {
    expectErrors(await get(`${PATH}?${query}`), [{ pointer, code }]);
  });

  it('a page holds 20 declarations when no limit is given', async () => {
    const c = await createClientWithToken(t);
    // 21 revisions of one period (each new content), newest first.
    for (let i = 1; i <= 21; i++)
      expect((await post({ period: '2022-S1', lines: [line({ quantity: i })] }, { token: c.token })).status).toBe(201);
    const page = await get(PATH, c.token);
    expect(page.body.data).toHaveLength(20);
    expect(page.body.has_more).toBe(true);
    expect(page.body.data[0].revision).toBe(21);
  });

  it('limit 1 and 100 are accepted', async () => {
    expect((await get(`${PATH}?limit=1`)).body.data).toHaveLength(1);
    expect((await get(`${PATH}?limit=100`)).status).toBe(200);
  });
});

describe('schema and documentation', () => {
  it('every entity matches its table: a generated migration would change nothing', async () => {
    const { DataSource } = await import('typeorm');
    const dataSource = t.app.get(DataSource);
    // TypeORM 1.1 reads the schema with queries in parallel on one connection (loadTables ->
    // getUserDefinedTypeName), which pg deprecates with a warning; the service never does so. The
    // runner of this one read sends its queries one after the other.
    const createQueryRunner = dataSource.createQueryRunner.bind(dataSource);
    dataSource.createQueryRunner = (mode) => {
      const runner = createQueryRunner(mode);
      const query = runner.query.bind(runner);
      let last: Promise<unknown> = Promise.resolve();
      runner.query = ((...args: Parameters<typeof query>) => {
        const next = last.then(() => query(...args));
        last = next.catch(() => undefined);
        return next;
      }) as typeof runner.query;
      return runner;
    };
    try {
      const pending = await dataSource.driver.createSchemaBuilder().log();
      expect(pending.upQueries.map((q) => q.query)).toEqual([]);
    } finally {
      dataSource.createQueryRunner = createQueryRunner;
    }
    // Every table of the migrations has an entity (the diff above covers only tables with one), but
    // the tables written only by raw SQL (the rate-limit counters' upserts, the dashboard's sign-in
    // links and sessions, the service's secrets, the mail outbox), which TypeORM's migration generator leaves alone
    // for having no entity.
    const rawSqlTables = new Set([
      'rate_limit_counters',
      'sign_in_links',
      'dashboard_sessions',
      'service_secrets',
      'client_streams',
      'reminders',
      'mail_outbox',
      'product_file_columns',
      'operator_sign_in_links',
      'operator_sessions',
    ]);
    const { rows } = await t.pool.query<{ table_name: string }>(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_name <> 'migrations' ORDER BY 1`,
    );
    const mapped = new Set(dataSource.entityMetadatas.map((m) => m.tableName));
    expect(rows.map((r) => r.table_name).filter((name) => !mapped.has(name) && !rawSqlTables.has(name))).toEqual([]);
  });

  it('the migration goes down and up again', async () => {
    const { DataSource } = await import('typeorm');
    const { Declarations1795500000000 } = await import('../migrations/1795500000000-declarations.js');
    // A later migration's tables refer to declarations: reverted first, as migration:revert would.
    const { Products1797200000000 } = await import('../migrations/1797200000000-products.js');
    const runner = t.app.get(DataSource).createQueryRunner();
    try {
      await runner.startTransaction();
      await new Products1797200000000().down(runner);
      const migration = new Declarations1795500000000();
      await migration.down(runner);
      expect(await runner.hasTable('declarations')).toBe(false);
      await migration.up(runner);
      expect(await runner.hasTable('declarations')).toBe(true);
    } finally {
      await runner.rollbackTransaction();
      await runner.release();
    }
  });

  it('documents the three operations in OpenAPI', async () => {
    const doc = (await request(t.url).get('/docs/openapi.json')).body;
    const post = doc.paths['/api/v1/declarations'].post;
    expect(post.operationId).toBe('submitDeclaration');
    expect(post.summary).toEqual(expect.any(String));
    expect(post.parameters).toEqual(
      expect.arrayContaining([expect.objectContaining({ name: 'Idempotency-Key', in: 'header', required: false })]),
    );
    expect(Object.keys(post.responses)).toEqual(expect.arrayContaining(['200', '201', '400', '401', '409', '413', '415', '422']));
    expect(Object.keys(post.responses['201'].headers)).toEqual(
      expect.arrayContaining(['Location', 'Idempotent-Replayed', 'Cache-Control']),
    );
    expect(post.requestBody.content['application/json'].schema.$ref).toMatch(/CreateDeclarationDto$/);

    const list = doc.paths['/api/v1/declarations'].get;
    expect(list.operationId).toBe('listDeclarations');
    expect(list.parameters.map((p: { name: string }) => p.name).sort()).toEqual(['X-Request-Id', 'cursor', 'limit', 'period', 'status']);
    expect(Object.keys(list.responses)).toEqual(expect.arrayContaining(['200', '400', '401', '422']));
    expect(list.description).toContain('GET /api/v1/declarations/{id}');

    const one = doc.paths['/api/v1/declarations/{id}'].get;
    expect(one.operationId).toBe('getDeclaration');
    expect(Object.keys(one.responses)).toEqual(expect.arrayContaining(['200', '401', '404']));
    expect(doc.components.schemas.DeclarationTotalDto.properties.quantity.type).toBe('string');
    expect(doc.components.schemas.DeclarationSummaryDto.properties.line_count).toBeDefined();
    expect(doc.components.schemas.DeclarationSummaryDto.properties.lines).toBeUndefined();
  });
});
