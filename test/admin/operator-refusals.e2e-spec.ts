/**
 * The operator's writes hold to their preconditions and to the client's status, and what is refused
 * is recorded: status changes honour If-Match like PATCH; PATCH honours If-None-Match and an empty
 * If-Match (RFC 9110: 412); an offboarded client is not changed, confirmed or given tokens (409); a
 * confirmation that changes nothing records nothing; refused writes and failed admin
 * authentications leave `admin.refused` entries. And a few edges: control characters in a company
 * name, a statement timeout (503 with Retry-After), a token in `access_token[]` or a form body
 * (400), a weight below a milligram.
 */
import { request as httpRequest } from 'node:http';
import request from 'supertest';
import { createClient, createClientWithToken } from '../support/factories.js';
import { ADMIN_TOKEN, startTestApp, type TestApp } from '../support/test-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
}, 60_000);
afterAll(async () => {
  await t?.close();
});

const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
const path = (id: string) => `/api/v1/admin/clients/${id}`;
const etagOf = async (id: string) => (await request(t.url).get(path(id)).set(admin)).headers.etag as string;
const statusOf = async (id: string) => (await request(t.url).get(path(id)).set(admin)).body.status as string;
const auditOf = async (clientId: string, action: string) =>
  (
    await t.pool.query(
      `SELECT actor_type, actor_name, target_type, target_id, changes FROM audit_events WHERE client_id = $1 AND action = $2 ORDER BY occurred_at`,
      [clientId, action],
    )
  ).rows;

/** A request with headers exactly as given (an empty If-Match is sent, not dropped). */
function raw(method: string, target: string, headers: Record<string, string>, body = ''): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const url = new URL(target, t.url);
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname + url.search,
        method,
        headers: { ...headers, 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('preconditions', () => {
  it.each(['suspend', 'reactivate', 'offboard'] as const)(
    '%s honours If-Match: 412 when stale, nothing changes; 200 with the current ETag',
    async (what) => {
      const { clientId } = await createClient(t);
      if (what === 'reactivate')
        await request(t.url)
          .post(`${path(clientId)}/suspend`)
          .set(admin)
          .send({})
          .expect(200);
      const read = await etagOf(clientId);
      await request(t.url).patch(path(clientId)).set(admin).send({ company: 'Changée entre-temps SAS' }).expect(200);
      const before = await statusOf(clientId);
      const stale = await request(t.url)
        .post(`${path(clientId)}/${what}`)
        .set(admin)
        .set('if-match', read)
        .send({});
      expect([stale.status, stale.body.code]).toEqual([412, 'precondition_failed']);
      expect(await statusOf(clientId)).toBe(before);
      const current = await request(t.url)
        .post(`${path(clientId)}/${what}`)
        .set(admin)
        .set('if-match', await etagOf(clientId))
        .send({});
      expect(current.status).toBe(200);
      expect(current.body.status).toBe({ suspend: 'suspended', reactivate: 'active', offboard: 'offboarded' }[what]);
    },
  );

  it('PATCH with If-None-Match: * (the client exists) or with an empty If-Match is 412, and changes nothing', async () => {
    const { clientId } = await createClient(t, { company: 'Avant SAS' });
    const star = await request(t.url).patch(path(clientId)).set(admin).set('if-none-match', '*').send({ company: 'Après SAS' });
    expect([star.status, star.body.code]).toEqual([412, 'precondition_failed']);
    const current = await request(t.url)
      .patch(path(clientId))
      .set(admin)
      .set('if-none-match', await etagOf(clientId))
      .send({ company: 'Après SAS' });
    expect(current.status).toBe(412);
    const empty = await raw(
      'PATCH',
      path(clientId),
      { ...admin, 'content-type': 'application/json', 'if-match': '' },
      JSON.stringify({ company: 'Après SAS' }),
    );
    expect([empty.status, JSON.parse(empty.body).code]).toEqual([412, 'precondition_failed']);
    expect((await request(t.url).get(path(clientId)).set(admin)).body.pending.company).toBe('Avant SAS');
    // Another tag in If-None-Match lets it through.
    expect(
      (await request(t.url).patch(path(clientId)).set(admin).set('if-none-match', '"autre"').send({ company: 'Après SAS' })).status,
    ).toBe(200);
  });
});

describe('an offboarded client', () => {
  it('is not changed, confirmed or given a token: 409 problem, and nothing is written', async () => {
    const { clientId } = await createClient(t);
    await request(t.url)
      .post(`${path(clientId)}/offboard`)
      .set(admin)
      .send({})
      .expect(200);
    const before = (
      await t.pool.query('SELECT count(*)::int AS n FROM audit_events WHERE client_id = $1 AND action <> $2', [clientId, 'admin.refused'])
    ).rows[0].n;
    const patched = await request(t.url).patch(path(clientId)).set(admin).send({ company: 'Revenue SAS' });
    const confirmed = await request(t.url)
      .post(`${path(clientId)}/confirm`)
      .set(admin)
      .send({});
    const token = await request(t.url)
      .post(`${path(clientId)}/tokens`)
      .set(admin)
      .send({ name: 'ERP' });
    for (const res of [patched, confirmed, token]) {
      expect([res.status, res.body.code, res.headers['content-type']]).toEqual([
        409,
        'conflict',
        expect.stringMatching(/^application\/problem\+json/),
      ]);
      expect(res.body.detail).toContain('offboarded');
    }
    expect((await t.pool.query('SELECT count(*)::int AS n FROM client_tokens WHERE client_id = $1', [clientId])).rows[0].n).toBe(0);
    expect(
      (await t.pool.query('SELECT count(*)::int AS n FROM audit_events WHERE client_id = $1 AND action <> $2', [clientId, 'admin.refused']))
        .rows[0].n,
    ).toBe(before);
  });
});

describe('a confirmation that changes nothing', () => {
  it('records no client.confirmed entry and keeps the confirmation time', async () => {
    const { clientId } = await createClient(t);
    const first = (await request(t.url).get(path(clientId)).set(admin)).body.confirmed_at;
    const again = await request(t.url)
      .post(`${path(clientId)}/confirm`)
      .set(admin)
      .send({});
    expect(again.status).toBe(200);
    expect(again.body.confirmed_at).toBe(first);
    expect((await auditOf(clientId, 'client.confirmed')).map((e) => Object.keys(e.changes).length > 0)).toEqual([true]);
  });
});

describe('refused operator actions are recorded (admin.refused)', () => {
  it('412, 409 and 422: status, code and pointers, never a value sent', async () => {
    const { clientId } = await createClient(t);
    await request(t.url).patch(path(clientId)).set(admin).set('if-match', '"périmé"').send({ company: 'X SAS' }).expect(412);
    await request(t.url).patch(path(clientId)).set(admin).send({ email: 'secret-valeur@exеmple.fr', plan: 'nope' }).expect(422);
    await request(t.url)
      .post(`${path(clientId)}/offboard`)
      .set(admin)
      .send({})
      .expect(200);
    await request(t.url)
      .post(`${path(clientId)}/suspend`)
      .set(admin)
      .send({})
      .expect(409);
    const refused = await auditOf(clientId, 'admin.refused');
    expect(refused).toEqual([
      {
        actor_type: 'admin',
        actor_name: 'ADMIN_TOKEN',
        target_type: 'request',
        target_id: `PATCH ${path(clientId)}`,
        changes: { status: 412, code: 'precondition_failed' },
      },
      expect.objectContaining({
        changes: { status: 422, code: 'validation_failed', errors: [{ pointer: '/email', code: 'email_characters' }] },
      }),
      expect.objectContaining({ target_id: `POST ${path(clientId)}/suspend`, changes: { status: 409, code: 'conflict' } }),
    ]);
    expect(JSON.stringify(refused)).not.toContain('secret-valeur');
  });

  it('a failed admin authentication, without the token sent', async () => {
    const { clientId } = await createClient(t);
    const wrong = 'x'.repeat(40);
    expect(
      (
        await request(t.url)
          .post(`${path(clientId)}/suspend`)
          .set('authorization', `Bearer ${wrong}`)
          .send({})
      ).status,
    ).toBe(401);
    const refused = await auditOf(clientId, 'admin.refused');
    expect(refused).toEqual([
      {
        actor_type: 'anonymous',
        actor_name: 'unauthenticated',
        target_type: 'request',
        target_id: `POST ${path(clientId)}/suspend`,
        changes: { status: 401, code: 'invalid_token' },
      },
    ]);
    expect(JSON.stringify(refused)).not.toContain(wrong);
  });
});

describe('company names', () => {
  it.each([
    ['CR', 'Exemple\rSAS'],
    ['LF', 'Exemple\nSAS'],
    ['VT', 'Exemple\u000bSAS'],
    ['NEL', 'Exemple\u0085SAS'],
    ['a tab', 'Exemple\tSAS'],
    ['a trailing LF', 'Exemple SAS\n'],
  ])('refuse %s: 422 invalid_characters at /company (create, change; the import refuses or trims it)', async (_name, company) => {
    const created = await request(t.url).post('/api/v1/admin/clients').set(admin).send({ company });
    expect([created.status, created.body.errors]).toEqual([
      422,
      [expect.objectContaining({ pointer: '/company', code: 'invalid_characters' })],
    ]);
    const { clientId } = await createClient(t);
    const patched = await request(t.url).patch(path(clientId)).set(admin).send({ company });
    expect([patched.status, patched.body.errors?.[0]?.code]).toEqual([422, 'invalid_characters']);
    const imported = await request(t.url)
      .post('/api/v1/admin/clients/import')
      .set(admin)
      .set('content-type', 'text/csv')
      .send(Buffer.from(`company,email\n"${company}",a@exemple.fr\n`));
    if (company.trim() !== company) {
      // The clients file's reader trims each cell: nothing of the trailing LF is kept.
      expect([imported.status, imported.body.clients?.[0]?.pending.company]).toEqual([200, 'Exemple SAS']);
    } else if (imported.status === 415) {
      // VT and NEL make the file no text file the reader takes: refused whole.
      expect(imported.body.code).toBe('unsupported_media_type');
    } else {
      expect([imported.status, imported.body.errors?.[0]?.pointer, imported.body.errors?.[0]?.code]).toEqual([
        422,
        '/rows/2/company',
        'invalid_characters',
      ]);
    }
  });
});

describe('a statement timeout', () => {
  it('answers 503 with Retry-After, not 500', async () => {
    const { clientId } = await createClient(t);
    // Another session holds the client's row: the PATCH waits for it past the statement timeout (10 s).
    const holder = await t.pool.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT 1 FROM clients WHERE client_id = $1 FOR UPDATE', [clientId]);
      const res = await request(t.url).patch(path(clientId)).set(admin).send({ company: 'Attente SAS' });
      expect([res.status, res.body.code, res.headers['retry-after']]).toEqual([503, 'service_unavailable', '5']);
    } finally {
      await holder.query('ROLLBACK');
      holder.release();
    }
  }, 30_000);
});

describe('a token outside the Authorization header', () => {
  it('is 400 in ?access_token[]= and in a form body, as documented', async () => {
    const { token } = await createClientWithToken(t);
    for (const query of [`access_token[]=${token}`, `access_token%5B%5D=${token}`, `ACCESS_TOKEN[x]=${token}`, `access_token.x=${token}`]) {
      const res = await request(t.url).get(`/api/v1/me?${query}`);
      expect([query, res.status, res.body.code]).toEqual([query, 400, 'bad_request']);
    }
    for (const route of ['/api/v1/declarations', '/api/v1/admin/clients']) {
      const res = await request(t.url).post(route).set('content-type', 'application/x-www-form-urlencoded').send(`access_token=${token}`);
      expect([route, res.status, res.body.code]).toEqual([route, 400, 'bad_request']);
      expect(res.body.detail).toContain('Authorization header');
      expect(JSON.stringify(res.body)).not.toContain(token);
    }
  });
});

describe('a product element’s weight', () => {
  it('of 1e-999999999 grams is refused as below a milligram, not as too large', async () => {
    const { token } = await createClientWithToken(t);
    const body = `{"products":[{"reference":"A-1","name":"Vin","stream":"EMB","valid_from":"2026-S1","elements":[{"material":"glass","weight_g":1e-999999999},{"material":"glass","weight_g":0.0004}]}]}`;
    const res = await request(t.url)
      .post('/api/v1/products')
      .set('authorization', `Bearer ${token}`)
      .set('content-type', 'application/json')
      .send(body);
    expect(res.status).toBe(422);
    for (const error of res.body.errors) {
      expect(error).toMatchObject({ code: 'invalid_weight', detail: expect.stringContaining('at least 0.001 grams') });
      expect(error.detail).not.toContain('at most');
    }
    expect(res.body.errors.map((e: { pointer: string }) => e.pointer)).toEqual([
      '/products/0/elements/0/weight_g',
      '/products/0/elements/1/weight_g',
    ]);
  });
});
