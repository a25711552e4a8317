import { Validator } from '@seriousme/openapi-schema-validator';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import request from 'supertest';
import { REPO_ROOT } from '../src/common/repo-root.js';
import { REALM } from '../src/common/openapi.js';
import { PROBLEM_EXAMPLES } from '../src/common/openapi.js';
import { PROBLEM_TYPES, type ProblemCode } from '../src/common/problem/problem.js';
import { MAX_LINES, MAX_MATERIAL_LENGTH, MAX_QUANTITY, MIN_LINES } from '../src/declarations/declaration-validator.js';
import { PERIOD_PATTERN_TEXT } from '../src/calendar/half-year.js';
import { createClient, createClientWithToken } from './support/factories.js';
import { ADMIN_TOKEN, startTestApp, type TestApp } from './support/test-app.js';

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

function operations(): { path: string; method: string; op: Json }[] {
  return Object.entries(doc.paths as Json).flatMap(([path, item]) =>
    Object.entries(item as Json)
      .filter(([method]) => METHODS.includes(method))
      .map(([method, op]) => ({ path, method, op: op as Json })),
  );
}

/** Every schema node of the document, depth first. */
function* schemaNodes(node: unknown): Generator<Json> {
  if (Array.isArray(node)) for (const item of node) yield* schemaNodes(item);
  else if (node && typeof node === 'object') {
    yield node as Json;
    for (const value of Object.values(node)) yield* schemaNodes(value);
  }
}

describe('the OpenAPI document', () => {
  it('is the one the build wrote to dist/openapi.json, which the contract check of every e2e file reads', async () => {
    const built = JSON.parse(await readFile(path.join(REPO_ROOT, 'dist', 'openapi.json'), 'utf8')) as Json;
    expect(doc).toEqual(built);
    expect(Object.keys(doc.paths as Json).length).toBeGreaterThan(20);
  });

  it('is valid for a strict validator from outside the project (the official OpenAPI 3.0 schema)', async () => {
    const result = await new Validator().validate(structuredClone(doc));
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
  });

  it('names a relative server, so that "Try it out" calls the address the page was opened at', () => {
    expect(doc.servers).toEqual([expect.objectContaining({ url: '/' })]);
  });

  it('does not call opaque tokens JWTs', () => {
    for (const scheme of Object.values(doc.components.securitySchemes as Json)) expect(scheme.bearerFormat).not.toMatch(/jwt/i);
  });

  it('describes every response', () => {
    const missing = operations().flatMap(({ path, method, op }) =>
      Object.entries(op.responses as Json)
        .filter(([, response]) => !(response as Json).description?.trim())
        .map(([status]) => `${method.toUpperCase()} ${path} ${status}`),
    );
    expect(missing).toEqual([]);
  });

  it('pre-fills no optional query parameter (Swagger UI would send it)', () => {
    const prefilled = operations().flatMap(({ path, op }) =>
      ((op.parameters ?? []) as Json[])
        .filter((p) => p.in === 'query' && !p.required && (p.example !== undefined || p.schema?.example !== undefined || p.examples))
        .map((p) => `${path}?${p.name}`),
    );
    expect(prefilled).toEqual([]);
  });

  it('gives no date example that will expire (a request example must stay valid)', () => {
    const dated = [...schemaNodes(doc.components.schemas)].filter(
      (node) => node.format === 'date-time' && typeof node.example === 'string' && node.readOnly !== true,
    );
    const inRequests = dated.filter((node) => Date.parse(node.example as string) > Date.now());
    expect(inRequests).toEqual([]);
  });

  it('lets null through where a response may carry null beside a schema reference', () => {
    for (const node of schemaNodes(doc.components.schemas)) {
      if (node.nullable === true) expect(node.allOf ?? node.$ref).toBeUndefined();
    }
  });

  it("states the declaration rules' limits from the constants the validator applies", () => {
    const { CreateDeclarationDto: declaration, CreateDeclarationLineDto: line } = doc.components.schemas as Json;
    expect({ min: declaration.properties.lines.minItems, max: declaration.properties.lines.maxItems }).toEqual({
      min: MIN_LINES,
      max: MAX_LINES,
    });
    expect(declaration.properties.period.pattern).toBe(PERIOD_PATTERN_TEXT);
    expect(line.properties.material.maxLength).toBe(MAX_MATERIAL_LENGTH);
    expect(line.properties.quantity.maximum).toBe(MAX_QUANTITY);
    const periodFilter = (doc.paths['/api/v1/declarations'].get.parameters as Json[]).find((p) => p.name === 'period');
    expect(periodFilter?.schema.pattern).toBe(PERIOD_PATTERN_TEXT);
  });

  it('documents GET /api/v1, and the problem status as an integer', () => {
    expect(doc.paths['/api/v1']?.get).toBeDefined();
    expect(doc.components.schemas.ProblemDto.properties.status.type).toBe('integer');
  });

  it('lists every client route, and only those, in the index document and llms.txt', async () => {
    const clientRoutes = operations()
      .filter(({ op }) => (op.security as Json[] | undefined)?.some((scheme) => 'client' in scheme))
      .map(({ path, method }) => `${method.toUpperCase()} ${path.replace(/^\/api\/v1/, '')}`);
    const index = (await request(t.url).get('/api/v1/index.json')).body as Json;
    expect([...(index.client_api.endpoints as string[])].sort()).toEqual(clientRoutes.sort());
    const llms = (await request(t.url).get('/llms.txt')).text;
    for (const route of clientRoutes) expect(llms).toContain(`\`${route}\``);
    expect(llms).toMatch(/\]\(http[^)]*\/docs\/openapi\.json\)/);
  });

  it('has one true example per problem code under each documented problem status', () => {
    expect(Object.keys(PROBLEM_EXAMPLES).sort()).toEqual(Object.keys(PROBLEM_TYPES).sort());
    for (const { op } of operations()) {
      for (const [status, response] of Object.entries(op.responses as Json)) {
        const examples = (response as Json).content?.['application/problem+json']?.examples as Json | undefined;
        if (!examples) continue;
        for (const [code, example] of Object.entries(examples)) {
          expect(PROBLEM_TYPES[code as ProblemCode].status).toBe(Number(status));
          expect(example.value).toEqual(
            expect.objectContaining({ code, status: Number(status), title: PROBLEM_TYPES[code as ProblemCode].title }),
          );
        }
      }
    }
  });
});

/** The shape of a header value without a documented pattern: numbers and quoted values (but the realm and error codes) left out. */
function shape(value: string): string {
  return value
    .replace(/"[^"]*"/g, (quoted) => (quoted === `"${REALM}"` || /^"(invalid_token|insufficient_scope)"$/.test(quoted) ? quoted : '"…"'))
    .replace(/\d+/g, 'N');
}

/** The documented example of this problem, under this operation and status, matches the real response. */
function expectDocumented(path: string, method: string, res: request.Response, code: ProblemCode): void {
  expect({ status: res.status, code: res.body.code }).toEqual({ status: PROBLEM_TYPES[code].status, code });
  const response = doc.paths[path][method].responses[String(res.status)] as Json;
  expect(response).toBeDefined();
  const example = response.content['application/problem+json'].examples[code].value as Json;
  expect(Object.keys(example).sort()).toEqual(Object.keys(res.body as Json).sort());
  expect(example.title).toBe(res.body.title);
  expect(new URL(example.type as string).pathname).toBe(new URL(res.body.type as string).pathname);
  for (const [name, header] of Object.entries((response.headers ?? {}) as Json)) {
    const real = res.headers[name.toLowerCase()] as string | undefined;
    if (header.required) expect(real).toBeDefined();
    if (real === undefined) continue;
    if (typeof header.schema?.pattern === 'string') expect(real).toMatch(new RegExp(header.schema.pattern as string));
    else if (typeof header.schema?.example === 'string')
      expect(`${name}: ${shape(real)}`).toBe(`${name}: ${shape(header.schema.example as string)}`);
  }
}

describe('the documented error examples are true', () => {
  const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
  let client: { authorization: string };
  beforeAll(async () => {
    client = { authorization: `Bearer ${(await createClientWithToken(t)).token}` };
  });

  it('400 malformed_json, invalid_cursor, bad_request', async () => {
    const malformed = await request(t.url)
      .post('/api/v1/declarations')
      .set(client)
      .set('content-type', 'application/json')
      .send('{"period":');
    expectDocumented('/api/v1/declarations', 'post', malformed, 'malformed_json');
    expectDocumented(
      '/api/v1/declarations',
      'get',
      await request(t.url).get('/api/v1/declarations?cursor=not-a-cursor').set(client),
      'invalid_cursor',
    );
    expectDocumented(
      '/api/v1/declarations/{id}',
      'get',
      await request(t.url).get('/api/v1/declarations/%E0%A4%A').set(client),
      'bad_request',
    );
  });

  it('401 missing_token and invalid_token, with their challenges', async () => {
    expectDocumented('/api/v1/me', 'get', await request(t.url).get('/api/v1/me'), 'missing_token');
    const unknown = 'eprc_0000000000000000000000000000000A_000000';
    const res = await request(t.url).get('/api/v1/me').set('authorization', `Bearer ${unknown}`);
    expectDocumented('/api/v1/me', 'get', res, 'invalid_token');
  });

  it('403 insufficient_scope', async () => {
    expectDocumented(
      '/api/v1/admin/clients/{client_id}',
      'get',
      await request(t.url).get('/api/v1/admin/clients/x').set(client),
      'insufficient_scope',
    );
  });

  it('404 not_found', async () => {
    const res = await request(t.url).get('/api/v1/declarations/0b6f1c2e-6a55-4c1e-9a7e-3f3f1d2a9b10').set(client);
    expectDocumented('/api/v1/declarations/{id}', 'get', res, 'not_found');
  });

  it('409 conflict', async () => {
    const { clientId } = await createClient(t, {}, { confirm: false });
    const res = await request(t.url).post('/api/v1/admin/clients').set(admin).send({ client_id: clientId, email: 'x@example.fr' });
    expectDocumented('/api/v1/admin/clients', 'post', res, 'conflict');
  });

  it('413 payload_too_large and 415 unsupported_media_type', async () => {
    const big = await request(t.url)
      .post('/api/v1/declarations')
      .set(client)
      .set('content-type', 'application/json')
      .send(`{"x":"${'a'.repeat(1_100_000)}"}`);
    expectDocumented('/api/v1/declarations', 'post', big, 'payload_too_large');
    const text = await request(t.url).post('/api/v1/declarations').set(client).set('content-type', 'text/plain').send('hello');
    expectDocumented('/api/v1/declarations', 'post', text, 'unsupported_media_type');
  });

  it('422 validation_failed and idempotency_key_reused', async () => {
    const invalid = await request(t.url).post('/api/v1/declarations').set(client).send({ period: 'soon', lines: [] });
    expectDocumented('/api/v1/declarations', 'post', invalid, 'validation_failed');
    const key = { 'idempotency-key': `reuse-${Date.now()}` };
    const line = { stream: 'EMB', material: 'glass', unit: 'uvc', quantity: 1 };
    expect(
      (
        await request(t.url)
          .post('/api/v1/declarations')
          .set(client)
          .set(key)
          .send({ period: '2026-S1', lines: [line] })
      ).status,
    ).toBe(201);
    const reused = await request(t.url)
      .post('/api/v1/declarations')
      .set(client)
      .set(key)
      .send({ period: '2026-S1', lines: [{ ...line, quantity: 2 }] });
    expectDocumented('/api/v1/declarations', 'post', reused, 'idempotency_key_reused');
  });
});
