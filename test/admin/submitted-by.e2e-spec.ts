import request from 'supertest';
import { createClientWithToken, issueToken } from '../support/factories.js';
import { ADMIN_TOKEN, startTestApp, type TestApp } from '../support/test-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t?.close();
});

const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
const declaration = (quantity: number, period = '2025-S1') => ({
  period,
  lines: [{ stream: 'EMB', material: 'Verre', unit: 'uvc', quantity }],
});
const submit = (token: string, body: object, key?: string) => {
  const req = request(t.url).post('/api/v1/declarations').set('authorization', `Bearer ${token}`);
  if (key) req.set('idempotency-key', key);
  return req.send(body);
};
interface AuditEvent {
  actor: Record<string, unknown>;
  target: { type: string; id: string };
  [key: string]: unknown;
}
const auditOf = async (clientId: string) =>
  (await request(t.url).get(`/api/v1/admin/audit?client_id=${clientId}&action=declaration.submitted`).set(admin)).body.data as AuditEvent[];

describe('who filed a declaration', () => {
  it('records the token (id and prefix) on the declaration and in the audit trail, per revision', async () => {
    const { clientId, token, tokenId } = await createClientWithToken(t);
    const second = await issueToken(t, clientId, { name: 'ERP' });
    const { rows } = await t.pool.query('SELECT id, prefix FROM client_tokens WHERE client_id = $1', [clientId]);
    const prefixOf = (id: string) => rows.find((r) => r.id === id)!.prefix as string;

    const r1 = await submit(token, declaration(10));
    expect(r1.status).toBe(201);
    expect(r1.body.submitted_by).toEqual({ type: 'token', token_id: tokenId, token_prefix: prefixOf(tokenId) });
    const r2 = await submit(second.token, declaration(20));
    expect(r2.status).toBe(201);
    expect(r2.body.revision).toBe(2);
    expect(r2.body.submitted_by).toEqual({ type: 'token', token_id: second.id, token_prefix: prefixOf(second.id) });

    // The client reads it back, in the record and in its list.
    const one = await request(t.url).get(`/api/v1/declarations/${r1.body.id}`).set('authorization', `Bearer ${token}`);
    expect(one.body.submitted_by).toEqual(r1.body.submitted_by);
    const list = await request(t.url).get('/api/v1/declarations').set('authorization', `Bearer ${token}`);
    expect(list.body.data.map((d: { submitted_by: { token_id: string } }) => d.submitted_by.token_id)).toEqual([second.id, tokenId]);
    // So does the operator.
    const adminOne = await request(t.url).get(`/api/v1/admin/declarations/${r2.body.id}`).set(admin);
    expect(adminOne.body.submitted_by).toEqual(r2.body.submitted_by);

    const events = await auditOf(clientId);
    expect(events).toHaveLength(2);
    expect(events[0]).toMatchObject({
      actor: { type: 'client', operator_token_id: null, name: `token ${prefixOf(second.id)}` },
      action: 'declaration.submitted',
      target: { type: 'declaration', id: r2.body.id },
      client_id: clientId,
      changes: { period: '2025-S1', revision: 2, receipt: r2.body.receipt, submitted_by: r2.body.submitted_by },
    });
    expect(events[1]!.target.id).toBe(r1.body.id);
    // Never the secret.
    expect(JSON.stringify(events)).not.toContain(token);
  });

  it('an idempotent replay and an identical resubmission add nothing', async () => {
    const { clientId, token } = await createClientWithToken(t);
    const first = await submit(token, declaration(5), 'key-1');
    expect(first.status).toBe(201);
    const replay = await submit(token, declaration(5), 'key-1');
    expect(replay.status).toBe(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toEqual(first.body);
    const same = await submit(token, declaration(5));
    expect(same.status).toBe(200);
    expect(await auditOf(clientId)).toHaveLength(1);
    const { rows } = await t.pool.query('SELECT count(*)::int AS n FROM declarations WHERE client_id = $1', [clientId]);
    expect(rows[0].n).toBe(1);
  });

  it('a refused declaration records nothing', async () => {
    const { clientId, token } = await createClientWithToken(t);
    expect((await submit(token, declaration(-1))).status).toBe(422);
    expect(await auditOf(clientId)).toHaveLength(0);
  });
});
