import net from 'node:net';
import request from 'supertest';
import { createClient, createClientWithToken, issueToken } from './support/factories.js';
import { ADMIN_TOKEN, startTestApp, type TestApp } from './support/test-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t?.close();
});

const PROBLEM = /^application\/problem\+json; charset=utf-8$/;
const admin = () => ({ authorization: `Bearer ${ADMIN_TOKEN}` });
const clients = '/api/v1/admin/clients';
const EMPTY = { email: null, company: null, country: null, plan: null, streams: [], idus: [] };
const PROFILE = {
  email: 'compliance@exemple.fr',
  company: 'Exemple SAS',
  country: 'FR',
  plan: 'business',
  streams: ['EMB', 'EPRO'],
  idus: ['FR123456_01ABCD', 'FR123456_02EFGH'],
};

function expectValidation(res: request.Response, expected: Array<{ pointer: string; code: string }>) {
  expect(res.status).toBe(422);
  expect(res.headers['content-type']).toMatch(PROBLEM);
  expect(res.body.code).toBe('validation_failed');
  const got = (res.body.errors as Array<{ pointer: string; code: string; detail: string }>).map(({ pointer, code }) => ({ pointer, code }));
  expect(got).toEqual(expect.arrayContaining(expected));
  expect(got).toHaveLength(expected.length);
  for (const error of res.body.errors) expect(error.detail).toEqual(expect.any(String));
}

/** POST …/confirm; the JSON body is ignored (see the body-less test below). */
const confirm = (clientId: string) => request(t.url).post(`${clients}/${clientId}/confirm`).set(admin()).send({});
const me = (token: string) => request(t.url).get('/api/v1/me').set('authorization', `Bearer ${token}`);

describe('onboarding flow', () => {
  it('create → token → /me empty → confirm → /me profile → edit → /me unchanged until confirmed again', async () => {
    const created = await request(t.url).post(clients).set(admin()).send({ client_id: 'exemple-sas' });
    expect(created.status).toBe(201);
    expect(created.headers.location).toBe('/api/v1/admin/clients/exemple-sas');
    expect(created.headers['cache-control']).toBe('no-store');
    expect(created.body).toEqual({
      client_id: 'exemple-sas',
      pending: EMPTY,
      confirmed: EMPTY,
      confirmed_at: null,
      // The language the service writes to the client in: French unless the operator sets English.
      language: 'fr',
      unconfirmed_changes: true,
      status: 'active',
      status_changed_at: null,
      created_at: expect.any(String),
      updated_at: expect.any(String),
      // No stream yet, so liable for none; nothing sent.
      streams: [],
      liability: expect.stringContaining('PUT /api/v1/admin/clients/exemple-sas/streams/{stream}'),
      invitation: null,
    });

    const { token } = await issueToken(t, 'exemple-sas');

    const empty = await me(token);
    expect(empty.status).toBe(200);
    expect(empty.headers['cache-control']).toBe('no-store');
    expect(empty.body).toEqual({ client_id: 'exemple-sas', ...EMPTY });

    const patched = await request(t.url).patch(`${clients}/exemple-sas`).set(admin()).send(PROFILE);
    expect(patched.status).toBe(200);
    expect(patched.body.pending).toEqual(PROFILE);
    expect(patched.body.confirmed).toEqual(EMPTY);
    // Pending only: the client still sees nothing.
    expect((await me(token)).body).toEqual({ client_id: 'exemple-sas', ...EMPTY });

    const confirmed = await confirm(`exemple-sas`);
    expect(confirmed.status).toBe(200);
    expect(confirmed.body.confirmed).toEqual(PROFILE);
    expect(confirmed.body.unconfirmed_changes).toBe(false);
    expect(Date.parse(confirmed.body.confirmed_at)).toBeGreaterThan(Date.parse(created.body.created_at) - 1);

    const shown = await me(token);
    expect(shown.body).toEqual({ client_id: 'exemple-sas', ...PROFILE });
    expect(Object.keys(shown.body).sort()).toEqual(['client_id', 'company', 'country', 'email', 'idus', 'plan', 'streams']);

    const edited = await request(t.url).patch(`${clients}/exemple-sas`).set(admin()).send({ company: 'Exemple Group SAS', idus: null });
    expect(edited.status).toBe(200);
    expect(edited.body.pending).toEqual({ ...PROFILE, company: 'Exemple Group SAS', idus: [] });
    expect(edited.body.confirmed).toEqual(PROFILE);
    expect(edited.body.unconfirmed_changes).toBe(true);
    expect((await me(token)).body).toEqual({ client_id: 'exemple-sas', ...PROFILE });

    const got = await request(t.url).get(`${clients}/exemple-sas`).set(admin());
    expect(got.status).toBe(200);
    expect(got.body).toEqual(edited.body);

    expect((await confirm(`exemple-sas`)).status).toBe(200);
    expect((await me(token)).body).toEqual({ client_id: 'exemple-sas', ...PROFILE, company: 'Exemple Group SAS', idus: [] });
  });
});

describe('POST /admin/clients', () => {
  it('generates a URL-safe client id when none is given', async () => {
    const res = await request(t.url).post(clients).set(admin()).send({ email: 'a@example.fr' });
    expect(res.status).toBe(201);
    expect(res.body.client_id).toMatch(/^[a-z0-9][a-z0-9_-]{2,62}$/);
    expect(res.headers.location).toBe(`/api/v1/admin/clients/${res.body.client_id}`);
    expect(res.body.pending).toEqual({ ...EMPTY, email: 'a@example.fr' });
    const again = await request(t.url).post(clients).set(admin()).send({});
    expect(again.body.client_id).not.toBe(res.body.client_id);
  });

  it('refuses a duplicate client id with 409', async () => {
    await createClient(t, { client_id: 'dup-client' });
    const res = await request(t.url).post(clients).set(admin()).send({ client_id: 'dup-client' });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('conflict');
    expect(res.body.detail).toContain('dup-client');
  });

  it('refuses bad formats all at once, with pointers', async () => {
    const res = await request(t.url)
      .post(clients)
      .set(admin())
      .send({
        client_id: 'Bad Id',
        email: 'not-an-email',
        country: 'fr',
        company: 'x'.repeat(201),
        streams: 'EMB',
        idus: [1],
        extra: true,
      });
    expectValidation(res, [
      { pointer: '/client_id', code: 'matches' },
      { pointer: '/email', code: 'invalid_email' },
      { pointer: '/country', code: 'invalid_country_code' },
      { pointer: '/company', code: 'max_length' },
      { pointer: '/streams', code: 'invalid_array' },
      { pointer: '/streams', code: 'array_max_size' },
      { pointer: '/idus', code: 'invalid_string' },
      { pointer: '/extra', code: 'unknown_field' },
    ]);
  });

  it.each([
    ['an unassigned code', 'XX'],
    ['lower case', 'fr'],
    ['three letters', 'FRA'],
  ])('refuses a country that is %s', async (_label, country) => {
    const res = await request(t.url).post(clients).set(admin()).send({ country });
    expectValidation(res, [{ pointer: '/country', code: 'invalid_country_code' }]);
  });

  it('refuses a blank company and trims one with surrounding spaces', async () => {
    expectValidation(await request(t.url).post(clients).set(admin()).send({ company: '   ' }), [
      { pointer: '/company', code: 'not_blank' },
    ]);
    const res = await request(t.url).post(clients).set(admin()).send({ company: '  Exemple SAS ' });
    expect(res.body.pending.company).toBe('Exemple SAS');
  });

  it('checks plan, streams and IDUs against the reference data and item by item', async () => {
    const res = await request(t.url)
      .post(clients)
      .set(admin())
      .send({
        plan: 'platinum',
        streams: ['EMB', 'XYZ', 'EMB'],
        idus: ['FR1', '', ' FR2', 'FR1', 'x'.repeat(65)],
      });
    expectValidation(res, [
      { pointer: '/plan', code: 'unknown_plan' },
      { pointer: '/streams/1', code: 'unknown_stream' },
      { pointer: '/streams/2', code: 'duplicate' },
      { pointer: '/idus/1', code: 'not_blank' },
      { pointer: '/idus/2', code: 'not_trimmed' },
      { pointer: '/idus/3', code: 'duplicate' },
      { pointer: '/idus/4', code: 'max_length' },
    ]);
    expect(res.body.errors[0].detail).toMatch(/business/);
  });

  it('accepts at most 50 IDUs', async () => {
    const idus = Array.from({ length: 51 }, (_, i) => `IDU${i}`);
    expectValidation(await request(t.url).post(clients).set(admin()).send({ idus }), [{ pointer: '/idus', code: 'array_max_size' }]);
    expect(
      (
        await request(t.url)
          .post(clients)
          .set(admin())
          .send({ idus: idus.slice(0, 50) })
      ).status,
    ).toBe(201);
  });

  it('refuses a body that is not JSON or not an object', async () => {
    const text = await request(t.url).post(clients).set(admin()).set('content-type', 'text/plain').send('x');
    expect(text.status).toBe(415);
    const array = await request(t.url).post(clients).set(admin()).send([1]);
    expect(array.status).toBe(400);
  });
});

describe('PATCH /admin/clients/{client_id}', () => {
  it('is a JSON merge patch: present replaces, null clears, absent is unchanged', async () => {
    const { clientId } = await createClient(t, { client_id: 'merge-me', ...PROFILE }, { confirm: false });
    const res = await request(t.url)
      .patch(`${clients}/${clientId}`)
      .set(admin())
      .set('content-type', 'application/merge-patch+json')
      .send(JSON.stringify({ email: null, streams: ['EMB'], country: 'BE' }));
    expect(res.status).toBe(200);
    expect(res.body.pending).toEqual({ ...PROFILE, email: null, streams: ['EMB'], country: 'BE' });
    const noop = await request(t.url).patch(`${clients}/${clientId}`).set(admin()).send({});
    expect(noop.body.pending).toEqual(res.body.pending);
  });

  it('validates like POST and refuses client_id', async () => {
    const { clientId } = await createClient(t);
    const res = await request(t.url).patch(`${clients}/${clientId}`).set(admin()).send({ client_id: 'other', email: 'nope' });
    expectValidation(res, [
      { pointer: '/client_id', code: 'unknown_field' },
      { pointer: '/email', code: 'invalid_email' },
    ]);
    const catalogue = await request(t.url).patch(`${clients}/${clientId}`).set(admin()).send({ plan: 'gold' });
    expectValidation(catalogue, [{ pointer: '/plan', code: 'unknown_plan' }]);
  });

  it('__proto__, constructor and prototype are unknown fields like any other (422, nothing changed)', async () => {
    const { clientId } = await createClient(t, { client_id: 'proto-keys', ...PROFILE }, { confirm: false });
    const body = '{"__proto__":{"company":"x"},"constructor":{"prototype":{"company":"y"}},"company":"Changed","extra":1}';
    const res = await request(t.url).patch(`${clients}/${clientId}`).set(admin()).set('content-type', 'application/json').send(body);
    expectValidation(res, [
      { pointer: '/__proto__', code: 'unknown_field' },
      { pointer: '/constructor', code: 'unknown_field' },
      { pointer: '/extra', code: 'unknown_field' },
    ]);
    const alone = await request(t.url)
      .patch(`${clients}/${clientId}`)
      .set(admin())
      .set('content-type', 'application/json')
      .send('{"__proto__":{}}');
    expectValidation(alone, [{ pointer: '/__proto__', code: 'unknown_field' }]);
    const after = await request(t.url).get(`${clients}/${clientId}`).set(admin());
    expect(after.body.pending.company).toBe(PROFILE.company);
  });

  it('refuses invisible format characters and line separators in profile text (422 invalid_characters)', async () => {
    const { clientId } = await createClient(t, { client_id: 'invisible-text', ...PROFILE }, { confirm: false });
    const res = await request(t.url)
      .patch(`${clients}/${clientId}`)
      .set(admin())
      .send({ company: 'Exemple\u200b SAS', idus: ['FR\u202e123', 'ok'], email: 'a\u2028b@exemple.fr' });
    expect(res.status).toBe(422);
    expect(res.body.errors.map((e: { pointer: string; code: string }) => [e.pointer, e.code]).sort()).toEqual([
      ['/company', 'invalid_characters'],
      ['/email', 'invalid_characters'],
      ['/idus/0', 'invalid_characters'],
    ]);
  });

  it('answers 404 for an unknown client', async () => {
    const res = await request(t.url).patch(`${clients}/no-such-client`).set(admin()).send({ email: 'a@example.fr' });
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('not_found');
  });
});

describe('POST /admin/clients/{client_id}/confirm', () => {
  it('lists every missing field', async () => {
    const { clientId } = await createClient(t, { email: null, company: null, country: null, plan: null, streams: [] }, { confirm: false });
    const res = await confirm(`${clientId}`);
    expectValidation(res, [
      { pointer: '/pending/email', code: 'required' },
      { pointer: '/pending/company', code: 'required' },
      { pointer: '/pending/country', code: 'required' },
      { pointer: '/pending/plan', code: 'required' },
      { pointer: '/pending/streams', code: 'required' },
    ]);
    const after = await request(t.url).get(`${clients}/${clientId}`).set(admin());
    expect(after.body.confirmed_at).toBeNull();
  });

  it('refuses streams the plan does not cover, with pointers', async () => {
    const { clientId } = await createClient(t, { plan: 'starter', streams: ['EMB', 'EPRO'] }, { confirm: false });
    const res = await confirm(`${clientId}`);
    expectValidation(res, [{ pointer: '/pending/streams/1', code: 'not_in_plan' }]);
    expect(res.body.errors[0].detail).toMatch(/starter/);
  });

  it('keeps the confirmed profile when a new confirmation is refused', async () => {
    const { clientId, token } = await createClientWithToken(t);
    const before = (await me(token)).body;
    await request(t.url).patch(`${clients}/${clientId}`).set(admin()).send({ email: null });
    expect((await confirm(`${clientId}`)).status).toBe(422);
    expect((await me(token)).body).toEqual(before);
  });

  it('needs no body (a POST without one, as `curl -X POST` sends it)', async () => {
    const { clientId } = await createClient(t, {}, { confirm: false });
    const { port } = new URL(t.url);
    const head = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(Number(port), '127.0.0.1', () => {
        socket.write(
          `POST ${clients}/${clientId}/confirm HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${ADMIN_TOKEN}\r\nConnection: close\r\n\r\n`,
        );
      });
      let data = '';
      socket.on('data', (chunk) => (data += chunk.toString()));
      socket.on('end', () => resolve(data));
      socket.on('error', reject);
    });
    expect(head).toMatch(/^HTTP\/1\.1 200 /);
  });

  it('answers 404 for an unknown client', async () => {
    expect((await confirm(`nobody-here`)).status).toBe(404);
    expect((await request(t.url).get(`${clients}/nobody-here`).set(admin())).status).toBe(404);
  });
});

describe('GET /me', () => {
  it('shows each client its own account only', async () => {
    const a = await createClientWithToken(t, { client_id: 'client-a', company: 'A SAS', idus: ['IDU-A'] });
    const b = await createClientWithToken(t, { client_id: 'client-b', company: 'B SAS', idus: ['IDU-B'] });
    const ma = await me(a.token);
    const mb = await me(b.token);
    expect(ma.body).toEqual(expect.objectContaining({ client_id: 'client-a', company: 'A SAS', idus: ['IDU-A'] }));
    expect(mb.body).toEqual(expect.objectContaining({ client_id: 'client-b', company: 'B SAS', idus: ['IDU-B'] }));
    expect(JSON.stringify(ma.body)).not.toContain('B SAS');
  });
});

describe('OpenAPI', () => {
  it('documents the account with its nullable fields, and every route with an operationId and summary', async () => {
    const doc = (await request(t.url).get('/docs/openapi.json')).body;
    const account = doc.components.schemas.AccountDto;
    for (const field of ['email', 'company', 'country', 'plan']) expect(account.properties[field].nullable).toBe(true);
    for (const field of ['client_id', 'streams', 'idus']) expect(account.properties[field].nullable).toBeUndefined();
    expect(account.required).toEqual(expect.arrayContaining(['client_id', 'email', 'company', 'country', 'plan', 'streams', 'idus']));
    const expected: Array<[string, string, string]> = [
      ['/api/v1/me', 'get', 'getMe'],
      ['/api/v1/admin/clients', 'post', 'createClient'],
      ['/api/v1/admin/clients/{client_id}', 'get', 'getClient'],
      ['/api/v1/admin/clients/{client_id}', 'patch', 'updateClient'],
      ['/api/v1/admin/clients/{client_id}/confirm', 'post', 'confirmClient'],
    ];
    for (const [path, method, operationId] of expected) {
      const operation = doc.paths[path][method];
      expect(operation.operationId).toBe(operationId);
      expect(operation.summary).toEqual(expect.any(String));
      expect(operation.security).toEqual([{ [path === '/api/v1/me' ? 'client' : 'admin']: [] }]);
      expect(operation.responses['401']).toBeDefined();
    }
  });
});
