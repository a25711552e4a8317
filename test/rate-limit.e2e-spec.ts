import request from 'supertest';
import { ADMIN_TOKEN, startTestApp, type TestApp } from './support/test-app.js';
import { createClientWithToken } from './support/factories.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ rateLimits: { client: 4, clientWrite: 2, admin: 30 } });
});
afterAll(async () => {
  await t?.close();
});

describe('per-token rate limits', () => {
  it('counts per token, announces the quota, and answers 429 problem+json with Retry-After', async () => {
    const a = await createClientWithToken(t);
    const b = await createClientWithToken(t);
    for (let i = 1; i <= 4; i++) {
      const res = await request(t.url).get('/api/v1/me').set('authorization', `Bearer ${a.token}`);
      expect(res.status).toBe(200);
      expect(res.headers['ratelimit-policy']).toBe('"client";q=4;w=60');
      expect(res.headers.ratelimit).toMatch(new RegExp(`^"client";r=${4 - i};t=\\d+$`));
    }
    const limited = await request(t.url).get('/api/v1/me').set('authorization', `Bearer ${a.token}`);
    expect(limited.status).toBe(429);
    expect(limited.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    expect(limited.body.code).toBe('rate_limited');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(limited.headers['retry-after'])).toBeLessThanOrEqual(60);
    // Another token of another client is not affected: the limit follows the token, not the IP.
    expect((await request(t.url).get('/api/v1/me').set('authorization', `Bearer ${b.token}`)).status).toBe(200);
  });

  it('counts the token, however the Authorization header spells it', async () => {
    const a = await createClientWithToken(t);
    const spellings = [`Bearer ${a.token}`, `bearer ${a.token}`, `BEARER  ${a.token}`, ` Bearer\t${a.token} `];
    for (const spelling of spellings) expect((await request(t.url).get('/api/v1/me').set('authorization', spelling)).status).toBe(200);
    const limited = await request(t.url).get('/api/v1/me').set('authorization', `bEaReR ${a.token}`);
    expect(limited.status).toBe(429);
  });

  it('is stricter on POST', async () => {
    const c = await createClientWithToken(t);
    const post = () =>
      request(t.url).post('/api/v1/declarations').set('authorization', `Bearer ${c.token}`).send({ period: '2025-S1', lines: [] });
    expect((await post()).status).toBe(422);
    expect((await post()).status).toBe(422);
    const third = await post();
    expect(third.status).toBe(429);
    expect(third.headers['ratelimit-policy']).toContain('"client-write";q=2;w=60');
  });

  it('limits the operator too, and never the public files', async () => {
    for (let i = 0; i < 20; i++) expect((await request(t.url).get('/api/v1/streams.json')).status).toBe(200);
    let status = 0;
    for (let i = 0; i < 40 && status !== 429; i++) {
      status = (await request(t.url).get('/api/v1/admin/clients/nobody-here').set('authorization', `Bearer ${ADMIN_TOKEN}`)).status;
    }
    expect(status).toBe(429);
  });
});
