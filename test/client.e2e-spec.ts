/**
 * A client system's view: every call goes through `openapi-fetch`, typed by `openapi-typescript`
 * from the app's OpenAPI document (`npm run openapi:types` → test/client/openapi.d.ts). A breaking
 * change to the document breaks this file's compile (`npm run lint`); every response is also
 * checked against the document at run time.
 */
import { randomUUID } from 'node:crypto';
import createClient, { type Middleware } from 'openapi-fetch';
import type { paths } from './client/openapi.js';
import { contractError } from './support/contract.js';
import { ADMIN_TOKEN, startTestApp, type TestApp } from './support/test-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t?.close();
});

const contract: Middleware = {
  async onResponse({ request, response }) {
    const text = await response.clone().text();
    const error = await contractError(request.method, request.url, {
      status: response.status,
      headers: Object.fromEntries(response.headers),
      text,
    });
    if (error) throw error;
  },
};

function api(token: string) {
  const client = createClient<paths>({ baseUrl: t.url, headers: { authorization: `Bearer ${token}` } });
  client.use(contract);
  return client;
}

/** The data of a success with the expected status (else the test fails with the problem). */
function expectData<T>(result: { data?: T; error?: unknown; response: Response }, status: number): T {
  if (result.response.status !== status || result.data === undefined) {
    throw new Error(`expected ${status}, got ${result.response.status}: ${JSON.stringify(result.error)}`);
  }
  return result.data;
}

it('onboards a client, which then submits, amends, lists page by page and reads its declarations', async () => {
  // The operator: create the client, confirm its profile, issue a token.
  const admin = api(ADMIN_TOKEN);
  const created = expectData(
    await admin.POST('/api/v1/admin/clients', {
      body: {
        company: 'Client System SAS',
        email: 'erp@client-system.fr',
        country: 'FR',
        plan: 'business',
        streams: ['EMB'],
        idus: ['FR000000_01CLNT'],
      },
    }),
    201,
  );
  expect(created.confirmed_at).toBeNull();
  const path = { client_id: created.client_id };
  const confirmed = expectData(await admin.POST('/api/v1/admin/clients/{client_id}/confirm', { params: { path } }), 200);
  expect(confirmed.confirmed.plan).toBe('business');
  const issued = expectData(
    await admin.POST('/api/v1/admin/clients/{client_id}/tokens', { params: { path }, body: { name: 'ERP production' } }),
    201,
  );
  expect(issued.token.startsWith(issued.prefix)).toBe(true);

  // The client system, with its token.
  const client = api(issued.token);
  const me = expectData(await client.GET('/api/v1/me'), 200);
  expect(me).toEqual(
    expect.objectContaining({ client_id: created.client_id, company: 'Client System SAS', plan: 'business', streams: ['EMB'] }),
  );

  // Submit, retry safely with the same Idempotency-Key, then amend the same period.
  const key = randomUUID();
  const body = {
    period: '2025-S1',
    lines: [
      { stream: 'EMB', material: 'Verre', unit: 'kg', quantity: 1200.5 },
      { stream: 'EMB', material: 'Verre', unit: 'uvc', quantity: 4000 },
    ],
  };
  const first = await client.POST('/api/v1/declarations', { params: { header: { 'Idempotency-Key': key } }, body });
  const v1 = expectData(first, 201);
  expect(first.response.headers.get('location')).toBe(`/api/v1/declarations/${v1.id}`);
  expect(v1).toEqual(expect.objectContaining({ period: '2025-S1', revision: 1, status: 'current', supersedes: null }));
  const retried = await client.POST('/api/v1/declarations', { params: { header: { 'Idempotency-Key': key } }, body });
  expect(expectData(retried, 201)).toEqual(v1);
  expect(retried.response.headers.get('idempotent-replayed')).toBe('true');

  const amended = {
    period: '2025-S1',
    lines: [
      ...body.lines,
      { stream: 'EMB', material: 'Carton', unit: 'kg', quantity: 300 },
      { stream: 'EMB', material: 'Carton', unit: 'uvc', quantity: 900 },
    ],
  };
  const v2 = expectData(await client.POST('/api/v1/declarations', { body: amended }), 201);
  expect(v2).toEqual(expect.objectContaining({ revision: 2, supersedes: v1.id, status: 'current' }));
  const other = expectData(await client.POST('/api/v1/declarations', { body: { ...body, period: '2025-S2' } }), 201);

  // List one per page, following next_cursor: every revision, newest first.
  const seen: string[] = [];
  let cursor: string | undefined;
  for (;;) {
    const page = expectData(await client.GET('/api/v1/declarations', { params: { query: { limit: 1, cursor } } }), 200);
    expect(page.data).toHaveLength(1);
    seen.push(page.data[0]!.id);
    if (page.next_cursor === null) break;
    expect(page.has_more).toBe(true);
    cursor = page.next_cursor;
  }
  expect(seen).toEqual([other.id, v2.id, v1.id]);

  // The superseded revision stays readable.
  const read = expectData(await client.GET('/api/v1/declarations/{id}', { params: { path: { id: v1.id } } }), 200);
  expect(read).toEqual(expect.objectContaining({ id: v1.id, status: 'superseded', lines: v1.lines }));

  // Errors are typed problems: 422 lists every field, 404 for an unknown id.
  const refused = await client.POST('/api/v1/declarations', {
    body: { period: '2025-S3', lines: [{ stream: 'EMB', material: 'Verre', unit: 'uvc', quantity: -1 }] },
  });
  expect(refused.response.status).toBe(422);
  expect(refused.response.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
  const problem = refused.error;
  if (!problem || !('errors' in problem)) throw new Error(`expected a validation problem: ${JSON.stringify(problem)}`);
  expect(problem).toEqual(expect.objectContaining({ status: 422, code: 'validation_failed' }));
  expect(problem.errors.map((e) => e.pointer)).toEqual(['/period', '/lines/0/quantity']);
  const missing = await client.GET('/api/v1/declarations/{id}', { params: { path: { id: randomUUID() } } });
  expect(missing.response.status).toBe(404);
  expect(missing.error?.code).toBe('not_found');
});
