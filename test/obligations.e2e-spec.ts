import { jest } from '@jest/globals';
import request from 'supertest';
import type { QueryRunner } from 'typeorm';
import { DeclarationsCatalogueVersion1795700000000 } from '../migrations/1795700000000-declarations-catalogue-version.js';
import { Clock } from '../src/calendar/clock.js';
import { createClient, createClientWithToken, issueToken } from './support/factories.js';
import { startTestApp, type TestApp } from './support/test-app.js';

let t: TestApp;
/** 23 November 2026: 2026-S2 is the current half-year. */
const NOW = new Date('2026-11-23T10:00:00Z');

beforeAll(async () => {
  t = await startTestApp();
  jest.spyOn(t.app.get(Clock), 'now').mockImplementation(() => NOW);
});
afterAll(async () => {
  await t?.close();
});

const get = (path: string, token: string) => request(t.url).get(path).set('authorization', `Bearer ${token}`);
const post = (token: string, body: unknown) =>
  request(t.url)
    .post('/api/v1/declarations')
    .set('authorization', `Bearer ${token}`)
    .set('content-type', 'application/json')
    .send(JSON.stringify(body));

describe('GET /api/v1/me/obligations', () => {
  it('an account confirmed in 2022: every half-year of each stream from its first declarable period, with the deadlines ahead', async () => {
    const { clientId, token } = await createClientWithToken(t, { streams: ['EMB', 'EPRO'] });
    await t.pool.query(
      `UPDATE clients SET confirmed_at = '2022-02-01T10:00:00Z', first_confirmed_at = '2022-02-01T10:00:00Z' WHERE client_id = $1`,
      [clientId],
    );
    const res = await get('/api/v1/me/obligations', token);
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toMatchObject({
      client_id: clientId,
      account_status: 'confirmed',
      detail: null,
      today: '2026-11-23',
      catalogue_version: 3,
    });
    const [emb, epro] = res.body.streams;
    expect(emb.stream).toBe('EMB');
    expect(emb.first_period).toBe('2022-S1');
    expect(emb.periods).toHaveLength(10); // 2022-S1 … 2026-S2
    expect(emb.liable_from).toBe('2022-S1');
    // Ended and past the deadline: overdue; ended, deadline ahead: to declare; in progress: open.
    expect(emb.periods.slice(0, 8).every((p: { status: string }) => p.status === 'overdue')).toBe(true);
    expect(emb.periods.at(-2)).toMatchObject({ period: '2026-S1', status: 'to_declare', due_date: '2027-02-28' });
    expect(emb.periods.at(-1)).toMatchObject({ period: '2026-S2', ended: false, status: 'open', due_date: '2027-02-28' });
    expect(emb.periods.at(-1).next_deadlines.map((d: { id: string; due: string }) => [d.id, d.due])).toEqual([
      ['eco-organism-declaration', '2027-02-28'],
      ['eco-organism-payment', '2027-04-30'],
      ['ademe-annual-data', '2027-05-31'],
    ]);
    expect(emb.periods.at(-2)).toMatchObject({ period: '2026-S1', ended: true });
    // Professional packaging is declarable from 2026-S2 only.
    expect(epro.periods.map((p: { period: string }) => p.period)).toEqual(['2026-S2']);
  });

  it('a new account: nothing before the half-year it was confirmed in', async () => {
    const { clientId, token } = await createClientWithToken(t, { streams: ['EMB'] });
    await t.pool.query(
      `UPDATE clients SET confirmed_at = '2026-11-20T10:00:00Z', first_confirmed_at = '2026-11-20T10:00:00Z' WHERE client_id = $1`,
      [clientId],
    );
    const res = await get('/api/v1/me/obligations', token);
    expect(res.status).toBe(200);
    const [emb] = res.body.streams;
    expect(emb.first_period).toBe('2022-S1');
    expect(emb.liable_from).toBe('2026-S2');
    expect(emb.periods.map((p: { period: string; status: string }) => [p.period, p.status])).toEqual([['2026-S2', 'open']]);
  });

  it('the due date is the last day to declare, in Paris: to declare until 23:59:59 on 28 February, overdue from midnight', async () => {
    const { clientId, token } = await createClientWithToken(t, { streams: ['EMB'] });
    await t.pool.query(`UPDATE clients SET first_confirmed_at = '2022-02-01T10:00:00Z' WHERE client_id = $1`, [clientId]);
    const statusAt = async (instant: string) => {
      jest.spyOn(t.app.get(Clock), 'now').mockImplementation(() => new Date(instant));
      try {
        const res = await get('/api/v1/me/obligations', token);
        return res.body.streams[0].periods.find((p: { period: string }) => p.period === '2026-S1') as { status: string; due_date: string };
      } finally {
        jest.spyOn(t.app.get(Clock), 'now').mockImplementation(() => NOW);
      }
    };
    // 28 February 2027, 23:59:59.999 and 1 March, 00:00 in Paris (UTC+1 in winter).
    expect(await statusAt('2027-02-28T22:59:59.999Z')).toMatchObject({ due_date: '2027-02-28', status: 'to_declare' });
    expect(await statusAt('2027-02-28T23:00:00.000Z')).toMatchObject({ due_date: '2027-02-28', status: 'overdue' });
  });

  it('an account first confirmed at 23:59:59 on 30 June in Paris is liable for that half-year; at midnight, from the next', async () => {
    const liableFromOf = async (firstConfirmedAt: string) => {
      const { clientId, token } = await createClientWithToken(t, { streams: ['EMB'] });
      await t.pool.query(`UPDATE clients SET first_confirmed_at = $2 WHERE client_id = $1`, [clientId, firstConfirmedAt]);
      return (await get('/api/v1/me/obligations', token)).body.streams[0].liable_from as string;
    };
    // UTC+2 in summer.
    expect(await liableFromOf('2026-06-30T21:59:59.999Z')).toBe('2026-S1');
    expect(await liableFromOf('2026-06-30T22:00:00Z')).toBe('2026-S2');
  });

  it('a partly declared account: the declared half-year shows its current declaration', async () => {
    const { clientId, token } = await createClientWithToken(t, { streams: ['EMB', 'EPRO'] });
    await t.pool.query(
      `UPDATE clients SET confirmed_at = '2025-01-15T10:00:00Z', first_confirmed_at = '2025-01-15T10:00:00Z' WHERE client_id = $1`,
      [clientId],
    );
    const first = await post(token, {
      period: '2025-S1',
      lines: [
        { stream: 'EMB', material: 'glass', unit: 'kg', quantity: 10 },
        { stream: 'EMB', material: 'glass', unit: 'uvc', quantity: 40 },
      ],
    });
    expect(first.status).toBe(201);
    const second = await post(token, { period: '2025-S1', lines: [{ stream: 'EMB', material: 'glass', unit: 'uvc', quantity: 41 }] });
    expect(second.status).toBe(201);
    const res = await get('/api/v1/me/obligations', token);
    const emb = res.body.streams[0];
    const periods = Object.fromEntries(emb.periods.map((p: { period: string }) => [p.period, p]));
    expect(periods['2025-S1']).toMatchObject({
      status: 'declared',
      ended: true,
      declaration: { id: second.body.id, revision: 2, receipt: second.body.receipt },
    });
    expect(periods['2025-S2']).toMatchObject({ status: 'overdue', due_date: '2026-02-28', declaration: null });
    expect(emb.periods.map((p: { period: string }) => p.period)).toEqual(['2025-S1', '2025-S2', '2026-S1', '2026-S2']);
    // EMB lines do not declare EPRO.
    expect(res.body.streams[1].periods.every((p: { status: string }) => p.status !== 'declared')).toBe(true);
  });

  it('an unconfirmed account: 200, account_status pending, a detail and no streams', async () => {
    const { clientId } = await createClient(t, {}, { confirm: false });
    const { token } = await issueToken(t, clientId);
    const res = await get('/api/v1/me/obligations', token);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ client_id: clientId, account_status: 'pending', streams: [] });
    expect(res.body.detail).toMatch(/not been confirmed/);
  });
});

describe('versioned catalogue', () => {
  it('a declaration made under catalogue version 1 reads the same after the materials changed', async () => {
    const { clientId, token } = await createClientWithToken(t, { streams: ['EMB', 'EPRO'] });
    // Exactly what the service stored before catalogue versions (and before this change of materials).
    const { rows } = await t.pool.query(
      `INSERT INTO declarations (client_id, period, revision, status, supersedes, submitted_at, receipt, content_hash)
       VALUES ($1, '2025-S1', 1, 'current', NULL, '2025-07-01T08:00:00Z', 'EPR-2025S1-R1-OLDCAT01', repeat('0', 64)) RETURNING id`,
      [clientId],
    );
    const id = rows[0].id as string;
    await t.pool.query(
      `INSERT INTO declaration_lines (declaration_id, position, stream, material, material_code, unit, quantity) VALUES
         ($1, 0, 'EMB', 'Plastique PET', 'plastic_pet', 'kg', 12.5),
         ($1, 1, 'EMB', 'Bois', 'wood', 'kg', 3),
         ($1, 2, 'EPRO', 'Verre', 'glass', 'kg', 7)`,
      [id],
    );
    const res = await get(`/api/v1/declarations/${id}`, token);
    expect(res.status).toBe(200);
    expect(res.body.catalogue_version).toBe(1);
    expect(res.body.lines).toEqual([
      {
        stream: 'EMB',
        material: 'Plastique PET',
        material_category: { code: 'plastic_pet', name: { fr: 'Plastique PET', en: 'PET plastic' } },
        unit: 'kg',
        quantity: 12.5,
      },
      { stream: 'EMB', material: 'Bois', material_category: { code: 'wood', name: { fr: 'Bois', en: 'Wood' } }, unit: 'kg', quantity: 3 },
      {
        stream: 'EPRO',
        material: 'Verre',
        material_category: { code: 'glass', name: { fr: 'Verre', en: 'Glass' } },
        unit: 'kg',
        quantity: 7,
      },
    ]);
    // A new declaration stores the current version.
    const fresh = await post(token, { period: '2025-S2', lines: [{ stream: 'EMB', material: 'PET trays', unit: 'uvc', quantity: 5 }] });
    expect(fresh.status).toBe(201);
    expect(fresh.body.catalogue_version).toBe(3);
    expect(fresh.body.lines[0].material_category).toEqual({ code: 'plastic_pet_tray', name: { fr: 'Barquettes en PET', en: 'PET trays' } });
    // Catalogue version 3: glass is a professional-packaging material again (restaurant packaging joined EPRO).
    const glass = await post(token, { period: '2026-S2', lines: [{ stream: 'EPRO', material: 'Verre', unit: 'kg', quantity: 4.5 }] });
    expect(glass.status).toBe(201);
    expect(glass.body.lines[0].material_category).toEqual({ code: 'glass', name: { fr: 'Verre', en: 'Glass' } });
  });

  // Last in the file: it takes the schema back to before catalogue versions and forward again.
  it('the migration keeps a declaration stored before it, which then reads as catalogue version 1 with its old categories', async () => {
    const { clientId, token } = await createClientWithToken(t, { streams: ['EMB'] });
    const migration = new DeclarationsCatalogueVersion1795700000000();
    const runner = { query: (sql: string) => t.pool.query(sql) } as unknown as QueryRunner;
    await migration.down(runner);
    const { rows } = await t.pool.query(
      `INSERT INTO declarations (client_id, period, revision, status, supersedes, submitted_at, receipt, content_hash)
       VALUES ($1, '2024-S1', 1, 'current', NULL, '2024-07-01T08:00:00Z', 'EPR-2024S1-R1-BEFOREMG', repeat('1', 64)) RETURNING id`,
      [clientId],
    );
    const id = rows[0].id as string;
    await t.pool.query(
      `INSERT INTO declaration_lines (declaration_id, position, stream, material, material_code, unit, quantity)
       VALUES ($1, 0, 'EMB', 'PE/PP', 'plastic_pe_pp', 'kg', 0.125), ($1, 1, 'EMB', 'Film', NULL, 'kg', 2)`,
      [id],
    );
    await migration.up(runner);

    const { rows: stored } = await t.pool.query(`SELECT catalogue_version, receipt, submitted_at FROM declarations WHERE id = $1`, [id]);
    expect(stored).toEqual([{ catalogue_version: 1, receipt: 'EPR-2024S1-R1-BEFOREMG', submitted_at: new Date('2024-07-01T08:00:00Z') }]);
    const res = await get(`/api/v1/declarations/${id}`, token);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      catalogue_version: 1,
      receipt: 'EPR-2024S1-R1-BEFOREMG',
      submitted_at: '2024-07-01T08:00:00.000000Z',
    });
    expect(res.body.lines).toEqual([
      {
        stream: 'EMB',
        material: 'PE/PP',
        material_category: { code: 'plastic_pe_pp', name: { fr: 'Plastique PE/PP', en: 'PE/PP plastic' } },
        unit: 'kg',
        quantity: 0.125,
      },
      { stream: 'EMB', material: 'Film', material_category: null, unit: 'kg', quantity: 2 },
    ]);
    expect(res.body.totals).toEqual([{ stream: 'EMB', unit: 'kg', quantity: '2.125' }]);
  });
});
