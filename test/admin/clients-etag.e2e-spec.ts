import request from 'supertest';
import { createClient } from '../support/factories.js';
import { ADMIN_TOKEN, startTestApp, type TestApp } from '../support/test-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t?.close();
});

const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
const path = (id: string) => `/api/v1/admin/clients/${id}`;
const patch = (id: string, body: object, ifMatch?: string) => {
  const req = request(t.url).patch(path(id)).set(admin);
  if (ifMatch !== undefined) req.set('if-match', ifMatch);
  return req.send(body);
};

describe('GET /admin/clients/{id} ETag and PATCH If-Match', () => {
  it('gives a strong ETag that changes with the client and stays the same otherwise', async () => {
    const { clientId } = await createClient(t, {}, { confirm: false });
    const first = await request(t.url).get(path(clientId)).set(admin);
    expect(first.status).toBe(200);
    expect(first.headers.etag).toMatch(/^"[A-Za-z0-9_-]{10,}"$/);
    const again = await request(t.url).get(path(clientId)).set(admin);
    expect(again.headers.etag).toBe(first.headers.etag);

    const changed = await patch(clientId, { company: 'Changée SAS' }, first.headers.etag);
    expect(changed.status).toBe(200);
    expect(changed.body.pending.company).toBe('Changée SAS');
    expect(changed.headers.etag).not.toBe(first.headers.etag);
    // The ETag of the PATCH answer is the one a GET gives now.
    const after = await request(t.url).get(path(clientId)).set(admin);
    expect(after.headers.etag).toBe(changed.headers.etag);
  });

  it('refuses a stale If-Match with 412 problem+json and changes nothing, recording only the refusal', async () => {
    const { clientId } = await createClient(t, { company: 'Avant SAS' }, { confirm: false });
    const read = await request(t.url).get(path(clientId)).set(admin);
    // Another operator changes the client in between.
    expect((await patch(clientId, { company: 'Autre opérateur SAS' }, read.headers.etag)).status).toBe(200);
    const { rows: before } = await t.pool.query(`SELECT count(*)::int AS n FROM audit_events WHERE client_id = $1`, [clientId]);

    const stale = await patch(clientId, { company: 'Écrasement SAS' }, read.headers.etag);
    expect(stale.status).toBe(412);
    expect(stale.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(stale.body).toMatchObject({ status: 412, code: 'precondition_failed' });
    expect(stale.body.detail).toContain(clientId);

    const now = await request(t.url).get(path(clientId)).set(admin);
    expect(now.body.pending.company).toBe('Autre opérateur SAS');
    const { rows: afterRows } = await t.pool.query(`SELECT count(*)::int AS n FROM audit_events WHERE client_id = $1`, [clientId]);
    expect(afterRows[0].n).toBe(before[0].n + 1);
    const { rows: refused } = await t.pool.query(`SELECT changes FROM audit_events WHERE client_id = $1 AND action = 'admin.refused'`, [
      clientId,
    ]);
    expect(refused.map((r) => r.changes)).toEqual([{ status: 412, code: 'precondition_failed' }]);

    // A weak tag, an unknown tag, and a list without the current one are refused; a list holding it, and `*`, are not.
    expect((await patch(clientId, { company: 'X SAS' }, `W/${now.headers.etag}`)).status).toBe(412);
    expect((await patch(clientId, { company: 'X SAS' }, '"nope"')).status).toBe(412);
    expect((await patch(clientId, { company: 'Y SAS' }, `"nope", ${now.headers.etag}`)).status).toBe(200);
    expect((await patch(clientId, { company: 'Z SAS' }, '*')).status).toBe(200);
  });

  it('a confirmation changes the ETag: a PATCH prepared before it is refused', async () => {
    const { clientId } = await createClient(t, {}, { confirm: false });
    const read = await request(t.url).get(path(clientId)).set(admin);
    expect(
      (
        await request(t.url)
          .post(`${path(clientId)}/confirm`)
          .set(admin)
          .send({})
      ).status,
    ).toBe(200);
    expect((await patch(clientId, { company: 'Tard SAS' }, read.headers.etag)).status).toBe(412);
  });

  it('without If-Match behaves as before: the change applies', async () => {
    const { clientId } = await createClient(t, {}, { confirm: false });
    const res = await patch(clientId, { company: 'Sans condition SAS' });
    expect(res.status).toBe(200);
    expect(res.body.pending.company).toBe('Sans condition SAS');
  });

  it('404 for an unknown client, with or without If-Match', async () => {
    expect((await patch('no-such-client', { company: 'A' }, '"x"')).status).toBe(404);
    expect((await request(t.url).get(path('no-such-client')).set(admin)).status).toBe(404);
  });
});
