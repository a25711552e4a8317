import request from 'supertest';
import { ADMIN_TOKEN, startTestApp, type TestApp } from './support/test-app.js';
import { createClientWithToken, issueToken } from './support/factories.js';
import { withTimeLeftInWindow } from './support/rate-window.js';

/** A malformed token: refused (401) without a database read, and a failed authentication all the same. */
const BAD_TOKEN = 'Bearer eprc_not-a-real-token';

/** Counts are per minute, windows aligned on the clock: a test that counts to a limit starts well inside one. */
beforeEach(() => withTimeLeftInWindow(4_000));

describe('rate limits set by the environment', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({
      env: {
        RATE_LIMIT_CLIENT_PER_MINUTE: '4',
        RATE_LIMIT_CLIENT_WRITES_PER_MINUTE: '2',
        RATE_LIMIT_OPERATOR_PER_MINUTE: '30',
        RATE_LIMIT_AUTH_FAILURES_PER_MINUTE: '3',
        // The tests play clients behind a proxy on this machine: X-Forwarded-For gives their address.
        TRUST_PROXY: 'loopback',
      },
    });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('counts per client, announces the quota, and answers 429 problem+json with Retry-After', async () => {
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
    expect(limited.headers['ratelimit-policy']).toBe('"client";q=4;w=60');
    expect(limited.headers.ratelimit).toMatch(/^"client";r=0;t=\d+$/);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(limited.headers['retry-after'])).toBeLessThanOrEqual(60);
    // Another client is not affected: the limit follows the client, not the IP.
    expect((await request(t.url).get('/api/v1/me').set('authorization', `Bearer ${b.token}`)).status).toBe(200);
  });

  it('gives all the tokens of one client one budget', async () => {
    const a = await createClientWithToken(t);
    const second = await issueToken(t, a.clientId);
    const me = (token: string) => request(t.url).get('/api/v1/me').set('authorization', `Bearer ${token}`);
    expect((await me(a.token)).status).toBe(200);
    expect((await me(second.token)).status).toBe(200);
    expect((await me(a.token)).status).toBe(200);
    const fourth = await me(second.token);
    expect(fourth.status).toBe(200);
    expect(fourth.headers.ratelimit).toMatch(/^"client";r=0;t=\d+$/);
    // Four requests in all, two per token: a new token does not buy a new budget.
    expect((await me(a.token)).status).toBe(429);
    expect((await me(second.token)).status).toBe(429);
  });

  it('counts the client, however the Authorization header spells the token', async () => {
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
    const first = await post();
    expect(first.status).toBe(422);
    expect(first.headers['ratelimit-policy']).toBe('"client";q=4;w=60, "client-write";q=2;w=60');
    expect(first.headers.ratelimit).toMatch(/^"client";r=3;t=\d+, "client-write";r=1;t=\d+$/);
    expect((await post()).status).toBe(422);
    const third = await post();
    expect(third.status).toBe(429);
    expect(third.headers['ratelimit-policy']).toContain('"client-write";q=2;w=60');
    expect(third.body.detail).toContain('"client-write"');
  });

  it('refuses an address after 3 failed authentications in a minute, before reading its token; other addresses and public files are not affected', async () => {
    const good = await createClientWithToken(t);
    const from = (address: string) => ({
      me: (authorization: string) => request(t.url).get('/api/v1/me').set('x-forwarded-for', address).set('authorization', authorization),
    });
    const attacker = from('203.0.113.7');
    for (let i = 0; i < 3; i++) expect((await attacker.me(BAD_TOKEN)).status).toBe(401);
    const limited = await attacker.me(BAD_TOKEN);
    expect(limited.status).toBe(429);
    expect(limited.body.code).toBe('rate_limited');
    expect(limited.body.detail).toMatch(/failed authentications/);
    expect(limited.headers['ratelimit-policy']).toBe('"auth-failures";q=3;w=60');
    expect(limited.headers.ratelimit).toMatch(/^"auth-failures";r=0;t=\d+$/);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    // Until the minute ends, even a good token from that address is refused: checking it is the lookup the limit saves.
    expect((await attacker.me(`Bearer ${good.token}`)).status).toBe(429);
    const admin = await request(t.url)
      .get('/api/v1/admin/clients/nobody')
      .set('x-forwarded-for', '203.0.113.7')
      .set('authorization', `Bearer ${ADMIN_TOKEN}`);
    expect(admin.status).toBe(429);
    expect((await request(t.url).get('/api/v1/streams.json').set('x-forwarded-for', '203.0.113.7')).status).toBe(200);
    // Another address is not affected.
    const neighbour = from('203.0.113.8');
    expect((await neighbour.me(BAD_TOKEN)).status).toBe(401);
    expect((await neighbour.me(`Bearer ${good.token}`)).status).toBe(200);
  });

  it('counts every kind of 401 (no token, a wrong admin token), and never a success', async () => {
    const good = await createClientWithToken(t);
    const address = '198.51.100.20';
    const get = (path: string, authorization?: string) => {
      const req = request(t.url).get(path).set('x-forwarded-for', address);
      return authorization ? req.set('authorization', authorization) : req;
    };
    for (let i = 0; i < 5; i++) expect((await get('/api/v1/streams.json')).status).toBe(200);
    expect((await get('/api/v1/me', `Bearer ${good.token}`)).status).toBe(200);
    expect((await get('/api/v1/me')).status).toBe(401);
    expect((await get('/api/v1/admin/clients/nobody', `Bearer ${ADMIN_TOKEN}-wrong`)).status).toBe(401);
    expect((await get('/api/v1/me', BAD_TOKEN)).status).toBe(401);
    expect((await get('/api/v1/me')).status).toBe(429);
  });

  it('counts IPv6 addresses by /64, the block one host commonly holds', async () => {
    const me = (address: string) => request(t.url).get('/api/v1/me').set('x-forwarded-for', address).set('authorization', BAD_TOKEN);
    for (const host of ['1', 'a', 'ffff']) expect((await me(`2001:db8:1:2::${host}`)).status).toBe(401);
    expect((await me('2001:db8:1:2:8000::9')).status).toBe(429);
    expect((await me('2001:db8:1:3::1')).status).toBe(401);
  });

  it('limits the operator too, and never the public files', async () => {
    for (let i = 0; i < 20; i++) expect((await request(t.url).get('/api/v1/streams.json')).status).toBe(200);
    let res = await request(t.url).get('/api/v1/admin/clients/nobody-here').set('authorization', `Bearer ${ADMIN_TOKEN}`);
    expect(res.headers['ratelimit-policy']).toBe('"admin";q=30;w=60');
    for (let i = 0; i < 45 && res.status !== 429; i++) {
      res = await request(t.url).get('/api/v1/admin/clients/nobody-here').set('authorization', `Bearer ${ADMIN_TOKEN}`);
    }
    expect(res.status).toBe(429);
  });
});

describe('failed authentications without TRUST_PROXY', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ env: { RATE_LIMIT_AUTH_FAILURES_PER_MINUTE: '2' } });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('count by the connection address: X-Forwarded-For is not believed', async () => {
    const me = (address: string) => request(t.url).get('/api/v1/me').set('x-forwarded-for', address).set('authorization', BAD_TOKEN);
    expect((await me('192.0.2.1')).status).toBe(401);
    expect((await me('192.0.2.2')).status).toBe(401);
    expect((await me('192.0.2.3')).status).toBe(429);
  });
});

describe('the shipped default limits', () => {
  let t: TestApp;
  beforeAll(async () => {
    // An empty variable counts as unset: the app runs on the defaults, as `npm start` does.
    t = await startTestApp({
      env: {
        RATE_LIMIT_CLIENT_PER_MINUTE: '',
        RATE_LIMIT_CLIENT_WRITES_PER_MINUTE: '',
        RATE_LIMIT_OPERATOR_PER_MINUTE: '',
        RATE_LIMIT_AUTH_FAILURES_PER_MINUTE: '',
      },
    });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('are 600 requests a minute per client, of which 60 POST, and 120 per operator', async () => {
    const c = await createClientWithToken(t);
    const me = await request(t.url).get('/api/v1/me').set('authorization', `Bearer ${c.token}`);
    expect(me.headers['ratelimit-policy']).toBe('"client";q=600;w=60');
    const post = await request(t.url)
      .post('/api/v1/declarations')
      .set('authorization', `Bearer ${c.token}`)
      .send({ period: '2025-S1', lines: [] });
    expect(post.headers['ratelimit-policy']).toBe('"client";q=600;w=60, "client-write";q=60;w=60');
    const admin = await request(t.url).get('/api/v1/admin/clients/nobody-here').set('authorization', `Bearer ${ADMIN_TOKEN}`);
    expect(admin.headers['ratelimit-policy']).toBe('"admin";q=120;w=60');
  });

  it('are 60 failed authentications a minute per address', async () => {
    for (let i = 0; i < 60; i++) expect((await request(t.url).get('/api/v1/me').set('authorization', BAD_TOKEN)).status).toBe(401);
    const limited = await request(t.url).get('/api/v1/me').set('authorization', BAD_TOKEN);
    expect(limited.status).toBe(429);
    expect(limited.headers['ratelimit-policy']).toBe('"auth-failures";q=60;w=60');
  });
});
