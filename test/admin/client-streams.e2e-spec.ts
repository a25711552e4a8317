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
const put = (clientId: string, stream: string, body: object) =>
  request(t.url).put(`/api/v1/admin/clients/${clientId}/streams/${stream}`).set(admin).send(body);
const listClients = async (query: string) =>
  ((await request(t.url).get(`/api/v1/admin/clients?${query}`).set(admin)).body.data as Array<{ client_id: string }>).map(
    (c) => c.client_id,
  );

/** The half-year of today in France, worked out apart from the service's code. */
function halfYearToday(): string {
  const parts = new Intl.DateTimeFormat('fr-FR', { timeZone: 'Europe/Paris', year: 'numeric', month: 'numeric' }).formatToParts(new Date());
  const get = (type: string) => Number(parts.find((p) => p.type === type)!.value);
  return `${get('year')}-S${get('month') <= 6 ? 1 : 2}`;
}

describe('per client and stream: eco-organism and liability start', () => {
  it('lists the streams of the profile; by default the client declares from the half-year of its first confirmation', async () => {
    const { clientId } = await createClient(t, { streams: ['EMB', 'EPRO'] });
    const res = await request(t.url).get(`/api/v1/admin/clients/${clientId}/streams`).set(admin);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([
      { stream: 'EMB', confirmed: true, eco_organism: null, liable_from_set: null, liable_from: halfYearToday() },
      { stream: 'EPRO', confirmed: true, eco_organism: null, liable_from_set: null, liable_from: halfYearToday() },
    ]);
    const unconfirmed = await createClient(t, {}, { confirm: false });
    const pending = await request(t.url).get(`/api/v1/admin/clients/${unconfirmed.clientId}/streams`).set(admin);
    expect(pending.body.data).toEqual([{ stream: 'EMB', confirmed: false, eco_organism: null, liable_from_set: null, liable_from: null }]);
  });

  it('sets an eco-organism the published data lists for the stream, audited, filterable in the client listing', async () => {
    const tag = `eco${Date.now().toString(36)}`;
    const { clientId } = await createClient(t, { company: `${tag} SAS`, streams: ['EMB'] });
    const other = await createClient(t, { company: `${tag} Autre SAS`, streams: ['EMB'] });
    const res = await put(clientId, 'EMB', { eco_organism: 'Léko', liable_from: '2024-S1' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ stream: 'EMB', confirmed: true, eco_organism: 'Léko', liable_from_set: '2024-S1', liable_from: '2024-S1' });
    expect((await put(other.clientId, 'EMB', { eco_organism: 'Citeo' })).status).toBe(200);

    expect(await listClients(`q=${tag}&eco_organism=${encodeURIComponent('Léko')}`)).toEqual([clientId]);
    expect(await listClients(`q=${tag}&eco_organism=Citeo`)).toEqual([other.clientId]);
    expect(await listClients(`q=${tag}&eco_organism=Adelphe`)).toEqual([]);

    const audit = await request(t.url).get(`/api/v1/admin/audit?client_id=${clientId}&action=client.stream_updated`).set(admin);
    expect(audit.body.data).toHaveLength(1);
    expect(audit.body.data[0].changes).toEqual({
      stream: 'EMB',
      eco_organism: { from: null, to: 'Léko' },
      liable_from: { from: null, to: '2024-S1' },
    });
    // The same again changes and records nothing.
    expect((await put(clientId, 'EMB', { eco_organism: 'Léko', liable_from: '2024-S1' })).status).toBe(200);
    const again = await request(t.url).get(`/api/v1/admin/audit?client_id=${clientId}&action=client.stream_updated`).set(admin);
    expect(again.body.data).toHaveLength(1);
    // Null clears: the default comes back.
    const cleared = await put(clientId, 'EMB', {});
    expect(cleared.body).toMatchObject({ eco_organism: null, liable_from_set: null, liable_from: halfYearToday() });
  });

  it('refuses an eco-organism not listed for the stream and period, with the list, and changes nothing', async () => {
    const { clientId } = await createClient(t, { streams: ['EMB', 'CHR'], plan: 'business' });
    const refused = await put(clientId, 'EMB', { eco_organism: 'Citeo Pro' });
    expect(refused.status).toBe(422);
    expect(refused.body.errors).toEqual([expect.objectContaining({ pointer: '/eco_organism', code: 'unknown_eco_organism' })]);
    for (const name of ['Citeo', 'Adelphe', 'Léko']) expect(refused.body.errors[0].detail).toContain(name);
    // A coordinating body is not an eco-organism a producer joins.
    expect((await put(clientId, 'EMB', { eco_organism: 'OCAPEM' })).status).toBe(422);
    // Citeo Pro's published approval for food-service packaging starts in March 2024: not for 2023-S2, yes for 2024-S1.
    const early = await put(clientId, 'CHR', { eco_organism: 'Citeo Pro', liable_from: '2023-S2' });
    expect(early.status).toBe(422);
    expect(early.body.errors[0].detail).toContain('2023-S2');
    expect((await put(clientId, 'CHR', { eco_organism: 'Citeo Pro', liable_from: '2024-S1' })).status).toBe(200);

    const { rows } = await t.pool.query('SELECT stream, eco_organism FROM client_streams WHERE client_id = $1', [clientId]);
    expect(rows).toEqual([{ stream: 'CHR', eco_organism: 'Citeo Pro' }]);
  });

  it('422 for a stream not in the profile or a malformed half-year; 404 for an unknown stream or client', async () => {
    const { clientId } = await createClient(t, { streams: ['EMB'] });
    const notRegistered = await put(clientId, 'EPRO', { liable_from: '2026-S2' });
    expect(notRegistered.status).toBe(422);
    expect(notRegistered.body.errors[0].code).toBe('stream_not_registered');
    const malformed = await put(clientId, 'EMB', { liable_from: '2025-H1', eco_organism: '' });
    expect(malformed.status).toBe(422);
    expect([...new Set(malformed.body.errors.map((e: { pointer: string }) => e.pointer))].sort()).toEqual([
      '/eco_organism',
      '/liable_from',
    ]);
    expect((await put(clientId, 'NOPE', {})).status).toBe(404);
    expect((await put('no-such-client', 'EMB', {})).status).toBe(404);
    expect((await request(t.url).get('/api/v1/admin/clients/no-such-client/streams').set(admin)).status).toBe(404);
    const { rows } = await t.pool.query('SELECT count(*)::int AS n FROM client_streams WHERE client_id = $1', [clientId]);
    expect(rows[0].n).toBe(0);
  });

  it('the summary of the half-year in progress lists nobody missing; one the client is not yet liable for neither', async () => {
    const { clientId } = await createClient(t, { streams: ['EMB'] });
    const open = await request(t.url).get(`/api/v1/admin/periods/${halfYearToday()}/summary`).set(admin);
    expect(open.status).toBe(200);
    expect(open.body.ended).toBe(false);
    expect(open.body.missing_clients).toEqual([]);
    expect(open.body.clients.liable).toBeGreaterThanOrEqual(1);
    const before = await request(t.url).get('/api/v1/admin/periods/2025-S1/summary').set(admin);
    expect(before.body.ended).toBe(true);
    expect(before.body.missing_clients.map((c: { client_id: string }) => c.client_id)).not.toContain(clientId);
    // Once declared liable from 2025-S1, it is missing there.
    expect((await put(clientId, 'EMB', { liable_from: '2025-S1' })).status).toBe(200);
    const after = await request(t.url).get('/api/v1/admin/periods/2025-S1/summary').set(admin);
    expect(after.body.missing_clients.map((c: { client_id: string }) => c.client_id)).toContain(clientId);
    // Offboarded clients are never missing.
    await t.pool.query(`UPDATE clients SET status = 'offboarded' WHERE client_id = $1`, [clientId]);
    const gone = await request(t.url).get('/api/v1/admin/periods/2025-S1/summary').set(admin);
    expect(gone.body.missing_clients.map((c: { client_id: string }) => c.client_id)).not.toContain(clientId);
  });
});
