import request from 'supertest';
import { contractProblems } from './support/contract.js';
import { createClientWithToken } from './support/factories.js';
import { ADMIN_TOKEN, startTestApp, type TestApp } from './support/test-app.js';

// Nothing left unsaid. What the service sends or reads is in the document where it
// occurs (test/support/contract.ts also fails any request whose RateLimit, X-Request-Id or
// Accept-Post header is undocumented), and the answers say what they mean.

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

let t: TestApp;
let doc: Json;
beforeAll(async () => {
  t = await startTestApp();
  doc = (await request(t.url).get('/docs/openapi.json')).body as Json;
});
afterAll(async () => {
  await t?.close();
});

const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };

function operations(): { name: string; op: Json }[] {
  return Object.entries(doc.paths as Json).flatMap(([path, item]) =>
    METHODS.filter((m) => (item as Json)[m]).map((m) => ({ name: `${m.toUpperCase()} ${path}`, op: (item as Json)[m] as Json })),
  );
}

describe('the document says', () => {
  it('X-Request-Id as a parameter of every operation and a header of every response', () => {
    const missing = operations().flatMap(({ name, op }) => [
      ...(op.parameters.some((p: Json) => p.in === 'header' && p.name === 'X-Request-Id') ? [] : [`${name}: parameter`]),
      ...Object.entries(op.responses as Json)
        .filter(([, r]) => !(r as Json).headers?.['X-Request-Id'])
        .map(([status]) => `${name} ${status}`),
    ]);
    expect(missing).toEqual([]);
  });

  it('RateLimit and RateLimit-Policy on every response of an authenticated operation; Retry-After on 429 and 503; Accept-Post on 415', () => {
    const missing: string[] = [];
    for (const { name, op } of operations()) {
      for (const [status, response] of Object.entries(op.responses as Json) as [string, Json][]) {
        const headers = Object.keys(response.headers ?? {});
        const want = [
          ...(op.security?.length ? ['RateLimit', 'RateLimit-Policy'] : []),
          ...(status === '429' || status === '503' ? ['Retry-After'] : []),
          ...(status === '415' ? ['Accept-Post'] : []),
        ];
        for (const header of want) if (!headers.includes(header)) missing.push(`${name} ${status}: ${header}`);
      }
    }
    expect(missing).toEqual([]);
    expect(doc.paths['/api/v1/declarations'].post.responses['415'].headers['Accept-Post'].required).toBe(true);
  });

  it('additionalProperties: false on the request bodies that refuse unknown fields, and on the objects they hold', () => {
    const schemas = doc.components.schemas as Json;
    for (const name of ['CreateDeclarationDto', 'IssueTokenDto', 'CreateOperatorTokenDto', 'CreateClientDto']) {
      expect({ name, additionalProperties: schemas[name].additionalProperties }).toEqual({ name, additionalProperties: false });
    }
    const line = schemas.CreateDeclarationDto.properties.lines.items.$ref.split('/').pop();
    expect(schemas[line].additionalProperties).toBe(false);
    // Response schemas stay open: a client must accept fields added later.
    expect(schemas.DeclarationDto.additionalProperties).toBeUndefined();
  });

  it('an optional body as optional (issueToken)', () => {
    expect(doc.paths['/api/v1/admin/clients/{client_id}/tokens'].post.requestBody.required).toBe(false);
  });

  it('every CSV download as an operation of its own (text/csv only), beside a JSON operation that documents JSON only and names it', () => {
    const pairs = [
      ['/api/v1/declarations/{id}', 'getDeclaration', 'getDeclarationCsv'],
      ['/api/v1/admin/periods/{period}/export', 'exportPeriod', 'exportPeriodCsv'],
      ['/api/v1/admin/years/{year}/export', 'exportYear', 'exportYearCsv'],
    ];
    for (const [path, json, csv] of pairs) {
      const jsonOperation = doc.paths[path!].get;
      const csvOperation = doc.paths[`${path}.csv`].get;
      expect({
        path,
        operationId: jsonOperation.operationId,
        csv: jsonOperation['x-csv-operation'],
        media: Object.keys(jsonOperation.responses['200'].content),
      }).toEqual({
        path,
        operationId: json,
        csv,
        media: ['application/json'],
      });
      expect({ path, operationId: csvOperation.operationId, media: Object.keys(csvOperation.responses['200'].content) }).toEqual({
        path,
        operationId: csv,
        media: ['text/csv'],
      });
      expect(csvOperation.responses['200'].headers['Content-Disposition']).toBeDefined();
    }
    // No other operation answers both: a generated client types every answer as one thing.
    const mixed = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item as Json).flatMap(([method, op]) =>
        Object.entries(((op as Json).responses ?? {}) as Json)
          .filter(
            ([status, r]) =>
              status.startsWith('2') && Object.keys(((r as Json).content ?? {}) as Json).filter((m) => !m.endsWith('/*')).length > 1,
          )
          .map(([status]) => `${method.toUpperCase()} ${path} ${status}`),
      ),
    );
    expect(mixed).toEqual([]);
  });
});

describe('the service', () => {
  it('answers a missing required field with one `required` problem (POST /admin/operator-tokens with {})', async () => {
    const res = await request(t.url).post('/api/v1/admin/operator-tokens').set(admin).send({});
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([{ pointer: '/name', code: 'required', detail: 'is required' }]);
    // A field that is there but wrong keeps its own codes.
    const long = await request(t.url)
      .post('/api/v1/admin/operator-tokens')
      .set(admin)
      .send({ name: 'x'.repeat(101) });
    expect(long.body.errors.map((e: Json) => e.code)).toEqual(['max_length']);
  });

  it('sends no Content-Type on a 304', async () => {
    const first = await request(t.url).get('/api/v1/streams.json');
    expect(first.status).toBe(200);
    const again = await request(t.url)
      .get('/api/v1/streams.json')
      .set('if-none-match', first.headers.etag as string);
    expect(again.status).toBe(304);
    expect(again.headers['content-type']).toBeUndefined();
    expect(again.headers.etag).toBe(first.headers.etag);
  });

  it('GET /api/v1/declarations/{id}.csv: the lines as CSV; Accept: text/csv on /{id} still works; another client gets 404', async () => {
    const { token } = await createClientWithToken(t);
    const other = await createClientWithToken(t);
    const created = await request(t.url)
      .post('/api/v1/declarations')
      .set('authorization', `Bearer ${token}`)
      .send({
        period: '2025-S1',
        lines: [
          { stream: 'EMB', material: 'glass', unit: 'kg', quantity: 12.5 },
          { stream: 'EMB', material: 'glass', unit: 'uvc', quantity: 50 },
        ],
      });
    expect(created.status).toBe(201);
    const csv = await request(t.url)
      .get(`/api/v1/declarations/${created.body.id}.csv`)
      .set('authorization', `Bearer ${token}`)
      .buffer(true);
    expect(csv.status).toBe(200);
    expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(csv.headers['content-disposition']).toBe('attachment; filename="declaration-2025-S1-r1.csv"');
    expect(csv.text).toBe('\ufeffstream,material,unit,quantity\r\nEMB,glass,kg,12.5\r\nEMB,glass,uvc,50\r\n');
    const negotiated = await request(t.url)
      .get(`/api/v1/declarations/${created.body.id}`)
      .set('authorization', `Bearer ${token}`)
      .set('accept', 'text/csv')
      .buffer(true);
    expect(negotiated.text).toBe(csv.text);
    expect(
      (await request(t.url).get(`/api/v1/declarations/${created.body.id}.csv`).set('authorization', `Bearer ${other.token}`)).status,
    ).toBe(404);
    expect((await request(t.url).get('/api/v1/declarations/not-a-uuid.csv').set('authorization', `Bearer ${token}`)).status).toBe(404);
    // The negotiated CSV passes the contract check as the file of getDeclarationCsv (x-csv-operation names it:
    // getDeclaration documents JSON only); an operation that names none refuses a CSV.
    const url = `${t.url}/api/v1/declarations/${created.body.id}`;
    const headers = { ...negotiated.headers } as Record<string, string>;
    expect(await contractProblems('GET', url, { status: 200, headers, text: negotiated.text })).toBeUndefined();
    expect(await contractProblems('GET', `${t.url}/api/v1/me`, { status: 200, headers, text: negotiated.text })).toEqual([
      expect.stringContaining('content-type text/csv is not documented'),
    ]);
  });

  it('echoes X-Request-Id and announces the quota on a client answer (both documented: the contract check would fail otherwise)', async () => {
    const { token } = await createClientWithToken(t);
    const res = await request(t.url)
      .get('/api/v1/me/obligations')
      .set('authorization', `Bearer ${token}`)
      .set('x-request-id', 'erp-run-42');
    expect(res.status).toBe(200);
    expect(res.headers['x-request-id']).toBe('erp-run-42');
    expect(res.headers.ratelimit).toMatch(/^"client";r=\d+;t=\d+$/);
    expect(res.headers['ratelimit-policy']).toMatch(/^"client";q=\d+;w=60/);
  });

  it('answers 415 with Accept-Post', async () => {
    const { token } = await createClientWithToken(t);
    const res = await request(t.url)
      .post('/api/v1/declarations')
      .set('authorization', `Bearer ${token}`)
      .set('content-type', 'text/plain')
      .send('hello');
    expect(res.status).toBe(415);
    expect(res.headers['accept-post']).toBe('application/json, text/csv');
  });
});
