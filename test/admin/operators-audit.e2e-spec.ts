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

const OPERATOR_TOKEN_SHAPE = /^eprop_[0-9A-Za-z]{32}_[0-9A-Za-z]{6}$/;
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const admin = () => bearer(ADMIN_TOKEN);
const OPERATORS = '/api/v1/admin/operator-tokens';

async function createOperator(name: string): Promise<{ id: string; token: string }> {
  const res = await request(t.url).post(OPERATORS).set(admin()).send({ name });
  expect(res.status).toBe(201);
  return { id: res.body.id, token: res.body.token };
}

const auditCount = async () => Number((await t.pool.query('SELECT count(*) FROM audit_events')).rows[0].count);
const latestAudit = async () => (await t.pool.query('SELECT * FROM audit_events ORDER BY occurred_at DESC, id DESC LIMIT 1')).rows[0];

describe('operator tokens', () => {
  it('are shown once (201, no-store), stored as SHA-256 only, listed as metadata', async () => {
    const res = await request(t.url).post(OPERATORS).set(admin()).send({ name: '  Camille  ' });
    expect(res.status).toBe(201);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(Object.keys(res.body).sort()).toEqual(['created_at', 'email', 'id', 'name', 'prefix', 'token']);
    expect(res.body.token).toMatch(OPERATOR_TOKEN_SHAPE);
    expect(res.body).toMatchObject({ name: 'Camille', prefix: res.body.token.slice(0, 13) });

    const { rows } = await t.pool.query(
      `SELECT token_hash, encode(sha256(convert_to($2, 'UTF8')), 'hex') AS expected FROM operator_tokens WHERE id = $1`,
      [res.body.id, res.body.token],
    );
    expect(rows[0].token_hash).toBe(rows[0].expected);

    const list = await request(t.url).get(OPERATORS).set(admin());
    expect(list.status).toBe(200);
    const item = list.body.find((x: { id: string }) => x.id === res.body.id);
    expect(Object.keys(item).sort()).toEqual(['created_at', 'email', 'id', 'name', 'prefix', 'revoked_at']);
    expect(JSON.stringify(list.body)).not.toContain(res.body.token);
  });

  it('work on admin routes, never on client routes, and stop at once when revoked', async () => {
    const operator = await createOperator('Dominique');
    expect((await request(t.url).get('/api/v1/admin/clients').set(bearer(operator.token))).status).toBe(200);

    const onClientRoute = await request(t.url).get('/api/v1/me').set(bearer(operator.token));
    expect(onClientRoute.status).toBe(401);
    expect(onClientRoute.body.code).toBe('invalid_token');
    expect((await request(t.url).get('/api/v1/declarations').set(bearer(operator.token))).status).toBe(401);

    expect((await request(t.url).delete(`${OPERATORS}/${operator.id}`).set(admin())).status).toBe(204);
    const after = await request(t.url).get('/api/v1/admin/clients').set(bearer(operator.token));
    expect(after.status).toBe(401);
    expect(after.headers['www-authenticate']).toMatch(/error="invalid_token", error_description="The operator token was revoked."/);
    // Idempotent; unknown and malformed ids are 404.
    expect((await request(t.url).delete(`${OPERATORS}/${operator.id}`).set(admin())).status).toBe(204);
    expect((await request(t.url).delete(`${OPERATORS}/00000000-0000-4000-8000-000000000000`).set(admin())).status).toBe(404);
    expect((await request(t.url).delete(`${OPERATORS}/nope`).set(admin())).status).toBe(404);
  });

  it('only ADMIN_TOKEN mints or revokes them: an operator token gets 403 on both, and nothing changes', async () => {
    const operator = await createOperator('Morgan');
    const other = await createOperator('Noa');
    const before = await auditCount();
    const tokens = async () =>
      (await t.pool.query('SELECT count(*)::int AS n, count(revoked_at)::int AS revoked FROM operator_tokens')).rows[0];
    const counted = await tokens();
    const mint = await request(t.url).post(OPERATORS).set(bearer(operator.token)).send({ name: 'a copy of me' });
    expect([mint.status, mint.body.code]).toEqual([403, 'insufficient_scope']);
    expect(mint.body.detail).toBe('Only ADMIN_TOKEN may create operator tokens; an operator token may list them.');
    for (const id of [other.id, operator.id]) {
      const revoke = await request(t.url).delete(`${OPERATORS}/${id}`).set(bearer(operator.token));
      expect([revoke.status, revoke.body.code]).toEqual([403, 'insufficient_scope']);
    }
    expect(await tokens()).toEqual(counted);
    expect(await auditCount()).toBe(before);
    // Both still work, and the operator token may list them.
    expect((await request(t.url).get(OPERATORS).set(bearer(operator.token))).status).toBe(200);
    expect((await request(t.url).get('/api/v1/admin/clients').set(bearer(other.token))).status).toBe(200);
    // The OpenAPI document says so.
    const doc = (await request(t.url).get('/docs/openapi.json')).body;
    for (const operation of [doc.paths[OPERATORS].post, doc.paths[`${OPERATORS}/{operator_token_id}`].delete]) {
      expect(operation.description).toContain('Only `ADMIN_TOKEN` may');
      expect(operation.responses['403']).toBeDefined();
    }
  });

  it('an unknown operator-shaped token is 401; a name is required', async () => {
    const { generateToken, OPERATOR_TOKEN_PREFIX } = await import('../../src/common/token-format.js');
    const res = await request(t.url)
      .get(OPERATORS)
      .set(bearer(generateToken(OPERATOR_TOKEN_PREFIX)));
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('invalid_token');
    for (const body of [{}, { name: ' ' }, { name: 'x'.repeat(101) }, { name: 'a', scope: 'all' }]) {
      const refused = await request(t.url).post(OPERATORS).set(admin()).send(body);
      expect(refused.status).toBe(422);
    }
  });
});

describe('the audit trail', () => {
  it('records each admin write exactly once, with who, when, what and the request id, and never a secret', async () => {
    const operator = await createOperator('Alix');
    const as = (requestId: string) => ({ ...bearer(operator.token), 'x-request-id': requestId });
    const steps: Array<{ action: string; run: () => Promise<request.Response>; target?: () => string }> = [];
    let clientId = 'audited-client';
    let tokenId = '';
    let secondOperator = '';
    steps.push(
      {
        action: 'client.created',
        run: () => request(t.url).post('/api/v1/admin/clients').set(as('req-1')).send({ client_id: clientId, company: 'Audit SAS' }),
      },
      {
        action: 'client.updated',
        run: () =>
          request(t.url)
            .patch(`/api/v1/admin/clients/${clientId}`)
            .set(as('req-2'))
            .send({ email: 'a@audit.fr', country: 'FR', plan: 'business', streams: ['EMB'] }),
      },
      { action: 'client.confirmed', run: () => request(t.url).post(`/api/v1/admin/clients/${clientId}/confirm`).set(as('req-3')).send({}) },
      {
        action: 'token.issued',
        run: () => request(t.url).post(`/api/v1/admin/clients/${clientId}/tokens`).set(as('req-4')).send({ name: 'ERP' }),
      },
      { action: 'token.revoked', run: () => request(t.url).delete(`/api/v1/admin/clients/${clientId}/tokens/${tokenId}`).set(as('req-5')) },
      // Only ADMIN_TOKEN mints and revokes operator tokens.
      {
        action: 'operator_token.created',
        run: () =>
          request(t.url)
            .post(OPERATORS)
            .set({ ...admin(), 'x-request-id': 'req-6' })
            .send({ name: 'Sacha' }),
      },
      {
        action: 'operator_token.revoked',
        run: () =>
          request(t.url)
            .delete(`${OPERATORS}/${secondOperator}`)
            .set({ ...admin(), 'x-request-id': 'req-7' }),
      },
    );
    const secrets: string[] = [];
    for (const [i, step] of steps.entries()) {
      const before = await auditCount();
      const res = await step.run();
      expect(res.status).toBeLessThan(300);
      if (step.action === 'token.issued') {
        tokenId = res.body.id;
        secrets.push(res.body.token);
      }
      if (step.action === 'operator_token.created') {
        secondOperator = res.body.id;
        secrets.push(res.body.token);
      }
      expect({ action: step.action, entries: (await auditCount()) - before }).toEqual({ action: step.action, entries: 1 });
      const entry = await latestAudit();
      const byAdmin = step.action.startsWith('operator_token.');
      expect(entry).toMatchObject({
        action: step.action,
        actor_type: byAdmin ? 'admin' : 'operator',
        operator_id: byAdmin ? null : operator.id,
        actor_name: byAdmin ? 'ADMIN_TOKEN' : 'Alix',
        request_id: `req-${i + 1}`,
      });
      expect(entry.occurred_at).toBeInstanceOf(Date);
      if (step.action.startsWith('client.') || step.action.startsWith('token.')) expect(entry.client_id).toBe(clientId);
    }
    const { rows } = await t.pool.query(
      `SELECT action, target_type, target_id, changes FROM audit_events WHERE client_id = $1 ORDER BY occurred_at`,
      [clientId],
    );
    expect(rows.map((r) => r.action)).toEqual(['client.created', 'client.updated', 'client.confirmed', 'token.issued', 'token.revoked']);
    expect(rows[0]).toMatchObject({ target_type: 'client', target_id: clientId, changes: { company: { from: null, to: 'Audit SAS' } } });
    expect(rows[1].changes).toEqual({
      email: { from: null, to: 'a@audit.fr' },
      country: { from: null, to: 'FR' },
      plan: { from: null, to: 'business' },
      streams: { from: [], to: ['EMB'] },
    });
    expect(rows[3]).toMatchObject({ target_type: 'token', target_id: tokenId });
    const dump = JSON.stringify((await t.pool.query('SELECT * FROM audit_events')).rows);
    for (const secret of [...secrets, operator.token]) {
      expect(dump).not.toContain(secret);
      expect(dump).not.toContain(secret.slice(6, 38));
    }
    clientId = '';
  });

  it('the bootstrap ADMIN_TOKEN is recorded as such', async () => {
    const { clientId } = await createClient(t, {}, { confirm: false });
    const entry = await latestAudit();
    expect(entry).toMatchObject({
      action: 'client.created',
      actor_type: 'admin',
      operator_id: null,
      actor_name: 'ADMIN_TOKEN',
      client_id: clientId,
    });
    expect(entry.request_id).toEqual(expect.any(String));
  });

  it('refused writes record only their refusal (admin.refused); writes that change nothing record nothing', async () => {
    const { clientId, tokenId } = await createClientWithToken(t);
    await request(t.url).delete(`/api/v1/admin/clients/${clientId}/tokens/${tokenId}`).set(admin());
    const before = await auditCount();
    expect((await request(t.url).post('/api/v1/admin/clients').set(admin()).send({ country: 'fr' })).status).toBe(422);
    expect((await request(t.url).patch(`/api/v1/admin/clients/${clientId}`).set(admin()).send({ plan: 'gold' })).status).toBe(422);
    expect((await request(t.url).post(`/api/v1/admin/clients/nobody-here/confirm`).set(admin()).send({})).status).toBe(404);
    expect((await request(t.url).delete(`/api/v1/admin/clients/${clientId}/tokens/${tokenId}`).set(admin())).status).toBe(204);
    expect((await request(t.url).patch(`/api/v1/admin/clients/${clientId}`).set(admin()).send({})).status).toBe(200);
    // The two 422s, nothing else (a 404 is no refusal of an action on something that exists).
    expect(await auditCount()).toBe(before + 2);
    const { rows } = await t.pool.query(`SELECT action, changes FROM audit_events ORDER BY occurred_at DESC, id DESC LIMIT 2`);
    expect(rows.map((r) => [r.action, r.changes.status, r.changes.code])).toEqual([
      ['admin.refused', 422, 'validation_failed'],
      ['admin.refused', 422, 'validation_failed'],
    ]);
  });

  it('is written in the transaction of the write: when the entry cannot be written, the write is undone', async () => {
    await t.pool.query(`CREATE FUNCTION fail_audit() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE unique_violation; END $$`);
    await t.pool.query(`CREATE TRIGGER fail_audit BEFORE INSERT ON audit_events FOR EACH ROW EXECUTE FUNCTION fail_audit()`);
    try {
      const res = await request(t.url)
        .post('/api/v1/admin/clients')
        .set(admin())
        .send({ client_id: 'never-created', company: 'Ghost SAS' });
      expect(res.status).toBe(409);
      expect((await t.pool.query(`SELECT 1 FROM clients WHERE client_id = 'never-created'`)).rowCount).toBe(0);
    } finally {
      await t.pool.query('DROP TRIGGER fail_audit ON audit_events');
      await t.pool.query('DROP FUNCTION fail_audit()');
    }
  });

  it('is append-only: the database refuses UPDATE, DELETE and TRUNCATE, and no route changes it', async () => {
    await createClient(t);
    for (const sql of ['UPDATE audit_events SET action = $$client.deleted$$', 'DELETE FROM audit_events', 'TRUNCATE audit_events']) {
      await expect(t.pool.query(sql)).rejects.toThrow(/append-only/);
    }
    for (const method of ['post', 'put', 'patch', 'delete'] as const) {
      expect((await request(t.url)[method]('/api/v1/admin/audit').set(admin()).send({})).status).toBe(405);
    }
  });

  it('GET /admin/audit lists newest first, filters, and pages with a cursor bound to its filters', async () => {
    const operator = await createOperator('Lou');
    const { clientId } = await createClient(t);
    await request(t.url).patch(`/api/v1/admin/clients/${clientId}`).set(bearer(operator.token)).send({ company: 'Lou SAS' });
    await request(t.url).post(`/api/v1/admin/clients/${clientId}/tokens`).set(bearer(operator.token)).send({});

    const byClient = await request(t.url).get(`/api/v1/admin/audit?client_id=${clientId}`).set(admin());
    expect(byClient.status).toBe(200);
    expect(byClient.body.data.map((e: { action: string }) => e.action)).toEqual([
      'token.issued',
      'client.updated',
      'client.confirmed',
      'client.created',
    ]);
    expect(byClient.body.data[0]).toMatchObject({
      actor: { type: 'operator', operator_token_id: operator.id, name: 'Lou' },
      target: { type: 'token' },
      client_id: clientId,
      request_id: expect.any(String),
    });
    expect(byClient.body.data[3].actor).toEqual({ type: 'admin', operator_token_id: null, name: 'ADMIN_TOKEN' });

    const byActor = await request(t.url).get(`/api/v1/admin/audit?actor=${operator.id}`).set(admin());
    expect(byActor.body.data.map((e: { action: string }) => e.action)).toEqual(['token.issued', 'client.updated']);
    const byAction = await request(t.url).get(`/api/v1/admin/audit?action=client.updated&client_id=${clientId}`).set(admin());
    expect(byAction.body.data).toHaveLength(1);
    const future = await request(t.url).get(`/api/v1/admin/audit?from=2999-01-01T00:00:00Z`).set(admin());
    expect(future.body).toEqual({ data: [], has_more: false, next_cursor: null });
    const byAdmin = await request(t.url).get(`/api/v1/admin/audit?actor=admin&client_id=${clientId}`).set(admin());
    expect(byAdmin.body.data.map((e: { action: string }) => e.action)).toEqual(['client.confirmed', 'client.created']);
    const past = await request(t.url).get(`/api/v1/admin/audit?to=2000-01-01T00:00:00Z&client_id=${clientId}`).set(admin());
    expect(past.body).toEqual({ data: [], has_more: false, next_cursor: null });
    const until = await request(t.url).get(`/api/v1/admin/audit?to=2999-01-01T00:00:00Z&client_id=${clientId}`).set(admin());
    expect(until.body.data).toHaveLength(4);

    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: request.Response = await request(t.url)
        .get(`/api/v1/admin/audit?client_id=${clientId}&limit=3${cursor ? `&cursor=${cursor}` : ''}`)
        .set(admin());
      expect(page.status).toBe(200);
      seen.push(...page.body.data.map((e: { id: string }) => e.id));
      cursor = page.body.next_cursor;
    } while (cursor);
    expect(seen).toEqual(byClient.body.data.map((e: { id: string }) => e.id));

    const first = await request(t.url).get(`/api/v1/admin/audit?client_id=${clientId}&limit=1`).set(admin());
    const mismatch = await request(t.url).get(`/api/v1/admin/audit?limit=1&cursor=${first.body.next_cursor}`).set(admin());
    expect(mismatch.status).toBe(400);
    expect(mismatch.body.code).toBe('invalid_cursor');
    for (const query of ['actor=someone', 'action=DROP', 'from=yesterday', 'client_id=A', 'limit=0', 'page=2']) {
      expect({ query, status: (await request(t.url).get(`/api/v1/admin/audit?${query}`).set(admin())).status }).toEqual({
        query,
        status: 422,
      });
    }
  });
});

describe('schema', () => {
  it('the entities match the migration (TypeORM sees nothing to change)', async () => {
    const { DataSource } = await import('typeorm');
    const pending = await t.app.get(DataSource).driver.createSchemaBuilder().log();
    const mine = pending.upQueries
      .map((q) => q.query)
      .filter((q) => /operator_tokens|audit_events|ix_clients_created|ix_declarations_/.test(q));
    expect(mine).toEqual([]);
  });

  it('the migration goes down and up again', async () => {
    const { DataSource } = await import('typeorm');
    const { Operator1795740000000 } = await import('../../migrations/1795740000000-operator.js');
    const { OperatorConsole1797730000001 } = await import('../../migrations/1797730000001-operator-console.js');
    const runner = t.app.get(DataSource).createQueryRunner();
    try {
      await runner.startTransaction();
      // The console's sessions and links refer to operator tokens: they go first and come back last.
      const consoleMigration = new OperatorConsole1797730000001();
      await consoleMigration.down(runner);
      expect(await runner.hasTable('operator_sessions')).toBe(false);
      const migration = new Operator1795740000000();
      await migration.down(runner);
      expect(await runner.hasTable('audit_events')).toBe(false);
      await migration.up(runner);
      await consoleMigration.up(runner);
      expect(await runner.hasTable('audit_events')).toBe(true);
      expect(await runner.hasTable('operator_sessions')).toBe(true);
    } finally {
      await runner.rollbackTransaction();
      await runner.release();
    }
  });
});
