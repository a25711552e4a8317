import { jest } from '@jest/globals';
import request from 'supertest';
import { Clock } from '../src/calendar/clock.js';
import { createClientWithToken } from './support/factories.js';
import { startTestApp, type TestApp } from './support/test-app.js';

let t: TestApp;
/** 23 November 2026: 2026-S1 is over, 2026-S2 is in progress. */
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
const line = (material: string, unit: string, quantity: number, stream = 'EMB') => ({ stream, material, unit, quantity });

describe('GET /api/v1/me/years/{year}', () => {
  it('adds the current revisions of S1 and S2 exactly, per stream, material and unit, with each half-year’s part', async () => {
    const { clientId, token } = await createClientWithToken(t, { streams: ['EMB'] });
    expect(
      (
        await post(token, {
          period: '2025-S1',
          lines: [
            line('glass', 'kg', 1000.1),
            line('glass', 'uvc', 4000),
            line('paper_cardboard', 'kg', 0.2),
            line('paper_cardboard', 'uvc', 10),
          ],
        })
      ).status,
    ).toBe(201);
    // S1 filed again: only its current revision counts.
    const s1 = await post(token, {
      period: '2025-S1',
      lines: [
        line('glass', 'kg', 1000.2),
        line('glass', 'uvc', 4000),
        line('paper_cardboard', 'kg', 0.2),
        line('paper_cardboard', 'uvc', 10),
      ],
    });
    expect(s1.body.revision).toBe(2);
    // S2 names the category by its French name: the same line of the year.
    const s2 = await post(token, {
      period: '2025-S2',
      lines: [line('Verre', 'kg', 0.001), line('Verre', 'uvc', 4400), line('Pots de fleurs', 'kg', 3), line('Pots de fleurs', 'uvc', 3)],
    });
    expect(s2.status).toBe(201);
    // Another year and another client change nothing.
    await post(token, { period: '2024-S2', lines: [line('glass', 'kg', 5), line('glass', 'uvc', 5)] });
    const other = await createClientWithToken(t, { streams: ['EMB'] });
    await post(other.token, { period: '2025-S1', lines: [line('glass', 'kg', 7), line('glass', 'uvc', 7)] });

    const res = await get('/api/v1/me/years/2025', token);
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toMatchObject({ client_id: clientId, year: 2025, today: '2026-11-23', complete: true });
    expect(res.body.periods).toEqual([
      { period: '2025-S1', ended: true, status: 'declared', declaration: { id: s1.body.id, revision: 2, receipt: s1.body.receipt } },
      { period: '2025-S2', ended: true, status: 'declared', declaration: { id: s2.body.id, revision: 1, receipt: s2.body.receipt } },
    ]);
    const lines = res.body.lines.map((l: Record<string, unknown>) => [l.material, l.material_code, l.unit, l.s1, l.s2, l.quantity]);
    expect(lines).toEqual([
      ['Pots de fleurs', null, 'kg', null, '3', '3'],
      ['Pots de fleurs', null, 'uvc', null, '3', '3'],
      ['glass', 'glass', 'kg', '1000.2', '0.001', '1000.201'],
      ['glass', 'glass', 'uvc', '4000', '4400', '8400'],
      ['paper_cardboard', 'paper_cardboard', 'kg', '0.2', null, '0.2'],
      ['paper_cardboard', 'paper_cardboard', 'uvc', '10', null, '10'],
    ]);
  });

  it('places the year’s count of sales units in each eco-organism’s published tiers, or says it straddles them', async () => {
    const { token } = await createClientWithToken(t, { streams: ['EMB'] });
    await post(token, { period: '2025-S1', lines: [line('glass', 'kg', 10), line('glass', 'uvc', 4000)] });
    await post(token, {
      period: '2025-S2',
      lines: [line('glass', 'kg', 10), line('glass', 'uvc', 4400), line('steel', 'kg', 1), line('steel', 'uvc', 1000)],
    });
    const citeo = (body: { filing_tiers: { eco_organism: string }[] }) => body.filing_tiers.find((p) => p.eco_organism === 'Citeo');

    // 8,400 units carry glass, 1,000 steel: between 8,400 and 9,400 units, all under 10,000.
    const under = await get('/api/v1/me/years/2025', token);
    expect(citeo(under.body)).toMatchObject({
      stream: 'EMB',
      count_unit: 'uvc',
      count: { at_least: 8400, at_most: 9400 },
      tier: { id: 'flat-fee', filing: 'flat_fee', fee: { amount: '80.00', currency: 'EUR' } },
      possible_tiers: ['flat-fee'],
    });

    // 8,400 glass and 2,000 steel: 8,400 to 10,400 straddles the 10,000 threshold.
    await post(token, {
      period: '2025-S2',
      lines: [line('glass', 'kg', 10), line('glass', 'uvc', 4400), line('steel', 'kg', 1), line('steel', 'uvc', 2000)],
    });
    const straddling = await get('/api/v1/me/years/2025', token);
    expect(citeo(straddling.body)).toMatchObject({
      count: { at_least: 8400, at_most: 10400, basis: 'material_counts' },
      tier: null,
      possible_tiers: ['flat-fee', 'simplified'],
    });

    // The units sold stated for each half-year: the count is known, and the tier with it.
    await post(token, {
      period: '2025-S1',
      lines: [line('glass', 'kg', 10), line('glass', 'uvc', 4000)],
      units_sold: [{ stream: 'EMB', quantity: 4000 }],
    });
    const partly = await get('/api/v1/me/years/2025', token);
    expect(citeo(partly.body)).toMatchObject({ count: { at_least: 8400, at_most: 10400, basis: 'partly_units_sold' }, tier: null });
    await post(token, {
      period: '2025-S2',
      lines: [line('glass', 'kg', 10), line('glass', 'uvc', 4400), line('steel', 'kg', 1), line('steel', 'uvc', 2000)],
      units_sold: [{ stream: 'EMB', quantity: 5000 }],
    });
    const known = await get('/api/v1/me/years/2025', token);
    expect(citeo(known.body)).toMatchObject({
      count: { at_least: 9000, at_most: 9000, basis: 'units_sold' },
      tier: { id: 'flat-fee' },
      possible_tiers: ['flat-fee'],
    });
  });

  it('the year in progress: not complete, the missing half-year said, the annual deadline once', async () => {
    const { token } = await createClientWithToken(t, { streams: ['EMB'] });
    await post(token, { period: '2026-S1', lines: [line('glass', 'kg', 10), line('glass', 'uvc', 40)] });
    const res = await get('/api/v1/me/years/2026', token);
    expect(res.status).toBe(200);
    expect(res.body.complete).toBe(false);
    expect(res.body.periods.map((p: { period: string; status: string; ended: boolean }) => [p.period, p.status, p.ended])).toEqual([
      ['2026-S1', 'declared', true],
      ['2026-S2', 'missing', false],
    ]);
    const ids = res.body.deadlines.map((d: { stream: string; id: string; due: string }) => `${d.stream} ${d.id} ${d.due}`);
    expect(ids).toContain('EMB eco-organism-declaration 2027-02-28');
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('a year without declarations: both half-years missing, no lines, no count', async () => {
    const { token } = await createClientWithToken(t, { streams: ['EMB'] });
    const res = await get('/api/v1/me/years/2023', token);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ complete: false, lines: [] });
    expect(res.body.filing_tiers.every((p: { count: unknown; tier: unknown }) => p.count === null && p.tier === null)).toBe(true);
  });

  it.each(['2021', '2027', '26', 'abcd', '2025-S1'])('year %s is not one the service holds: 404 problem', async (year) => {
    const { token } = await createClientWithToken(t, { streams: ['EMB'] });
    const res = await get(`/api/v1/me/years/${year}`, token);
    expect(res.status).toBe(404);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body.code).toBe('not_found');
  });

  it('needs a client token: 401 without one', async () => {
    const res = await request(t.url).get('/api/v1/me/years/2025');
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toMatch(/^Bearer realm=/);
  });
});
