import http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { DataSource } from 'typeorm';
import { AuthChangeNotifications1795900000000 } from '../migrations/1795900000000-auth-change-notifications.js';
import { MeFromMemory } from '../src/edge/me-from-memory.js';
import { LISTENER_APPLICATION_NAME } from '../src/auth/tokens/auth-changes.listener.js';
import { AuthenticationCache } from '../src/auth/tokens/authentication-cache.js';
import { createClientWithToken, issueToken } from './support/factories.js';
import { withTimeLeftInWindow } from './support/rate-window.js';
import { ADMIN_TOKEN, createTestDatabase, SERVER_DATABASE_URL, startTestApp, type TestApp, type TestDatabase } from './support/test-app.js';

// Kept authentications and /me from memory. On the PostgreSQL server the replica keeps the
// authentications it verified while PostgreSQL's announcements reach it; on the embedded database it
// keeps none, and every request goes through Nest's route: the same answers, checked on both.
const KEEPS = SERVER_DATABASE_URL !== undefined;

interface Raw {
  status: number;
  headers: [string, string][];
  body: string;
}

/** A request with exactly these headers, and the response's headers in the order they were sent. */
function send(t: TestApp, headers: [string, string][], options: { method?: string; path?: string; body?: string } = {}): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const { port } = new URL(t.url);
    const grouped: Record<string, string[]> = {};
    for (const [name, value] of headers) (grouped[name] ??= []).push(value);
    const req = http.request({
      agent: false,
      host: '127.0.0.1',
      port,
      method: options.method ?? 'GET',
      path: options.path ?? '/api/v1/me',
      headers: grouped,
    });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const pairs: [string, string][] = [];
        for (let i = 0; i < res.rawHeaders.length; i += 2) pairs.push([res.rawHeaders[i]!.toLowerCase(), res.rawHeaders[i + 1]!]);
        resolve({ status: res.statusCode!, headers: pairs, body: Buffer.concat(chunks).toString('utf8') });
      });
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

const bearer = (token: string): [string, string] => ['Authorization', `Bearer ${token}`];
const header = (res: Raw, name: string) => res.headers.find(([n]) => n === name)?.[1];
/** What differs from one response to the next by nature: the request id and the date. */
const comparable = (res: Raw) =>
  res.headers
    .filter(([name]) => !['x-request-id', 'date'].includes(name))
    .map(([name, value]) => (name === 'ratelimit' ? [name, value.replace(/r=\d+;t=\d+/, 'r=…;t=…')] : [name, value]));
const remaining = (res: Raw) => Number(/r=(\d+)/.exec(header(res, 'ratelimit') ?? '')?.[1]);

async function until(condition: () => boolean | Promise<boolean>, ms: number): Promise<number> {
  const started = Date.now();
  while (!(await condition())) {
    if (Date.now() - started > ms) throw new Error(`not within ${ms} ms`);
    await sleep(5);
  }
  return Date.now() - started;
}

describe('GET /api/v1/me from memory', () => {
  let t: TestApp;
  let memory: MeFromMemory;
  beforeAll(async () => {
    t = await startTestApp({ env: { RATE_LIMIT_CLIENT_PER_MINUTE: '1000' } });
    memory = t.app.get(MeFromMemory);
    // It starts keeping once its probe notification came back, a moment after start-up.
    if (KEEPS) await until(() => t.app.get(AuthenticationCache).enabled, 5_000);
  });
  afterAll(async () => {
    await t?.close();
  });

  it("answers as Nest's route does, byte for byte but for the request id, the date and the quota left, and logs the same line", async () => {
    const { token, clientId } = await createClientWithToken(t);
    const before = memory.answered;
    const first = await send(t, [bearer(token)]);
    expect(memory.answered).toBe(before);
    const second = await send(t, [bearer(token)]);
    expect(memory.answered).toBe(before + (KEEPS ? 1 : 0));
    expect(first.status).toBe(200);
    expect(second.status).toBe(200);
    expect(second.body).toBe(first.body);
    expect(JSON.parse(second.body)).toEqual(expect.objectContaining({ client_id: clientId }));
    expect(comparable(second)).toEqual(comparable(first));
    expect(header(second, 'cache-control')).toBe('no-store');
    expect(header(second, 'x-request-id')).not.toBe(header(first, 'x-request-id'));
    // One more request counted against the client's quota.
    expect(remaining(second)).toBe(remaining(first) - 1);
    const lines = t.logs
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => l.request_id === header(first, 'x-request-id') || l.request_id === header(second, 'x-request-id'));
    expect(lines).toHaveLength(2);
    for (const line of lines)
      expect(line).toEqual(
        expect.objectContaining({ route: '/api/v1/me', client_id: clientId, msg: 'request completed', res: { status: 200 } }),
      );
  });

  it("leaves to Nest's route whatever it does not know, with the route's answer", async () => {
    const { token } = await createClientWithToken(t);
    expect((await send(t, [bearer(token)])).status).toBe(200);
    const before = memory.answered;
    // Several Authorization headers: 400, whichever comes first.
    expect((await send(t, [bearer(token), bearer(token)])).status).toBe(400);
    // Not GET.
    const head = await send(t, [bearer(token)], { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect((await send(t, [bearer(token)], { method: 'POST', body: '{}' })).status).toBe(405);
    // A body on a GET.
    expect((await send(t, [bearer(token), ['Content-Type', 'application/json'], ['Content-Length', '2']], { body: '{}' })).status).toBe(
      200,
    );
    // Another scheme, an empty token, a well-formed unknown one.
    expect((await send(t, [['Authorization', `Basic ${token}`]])).status).toBe(401);
    expect((await send(t, [['Authorization', 'Bearer ']])).status).toBe(401);
    expect((await send(t, [bearer(`${token.slice(0, -8)}AAAAAAAA`)])).status).toBe(401);
    expect(memory.answered).toBe(before);
    // A query (the route ignores it), and paths that are only like it.
    expect((await send(t, [bearer(token)], { path: '/api/v1/me?fields=all' })).status).toBe(200);
    expect((await send(t, [bearer(token)], { path: '/api/v1/me/' })).status).toBe(404);
    expect((await send(t, [bearer(token)], { path: '/API/V1/ME' })).status).toBe(404);
    expect(memory.answered).toBe(before);
  });

  it('stops at once for a token revoked on this replica, and for a client whose account is confirmed again', async () => {
    const { token, clientId, tokenId } = await createClientWithToken(t);
    expect((await send(t, [bearer(token)])).status).toBe(200);
    expect((await send(t, [bearer(token)])).status).toBe(200);
    // The pending profile changed and confirmed: /me shows the new confirmed profile at once.
    const patched = await fetch(`${t.url}/api/v1/admin/clients/${clientId}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/merge-patch+json' },
      body: JSON.stringify({ company: 'Renamed SAS' }),
    });
    expect(patched.status).toBe(200);
    expect(JSON.parse((await send(t, [bearer(token)])).body).company).not.toBe('Renamed SAS');
    const confirmed = await fetch(`${t.url}/api/v1/admin/clients/${clientId}/confirm`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(confirmed.status).toBe(200);
    expect(JSON.parse((await send(t, [bearer(token)])).body).company).toBe('Renamed SAS');
    const revoked = await fetch(`${t.url}/api/v1/admin/clients/${clientId}/tokens/${tokenId}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(revoked.status).toBe(204);
    const after = await send(t, [bearer(token)]);
    expect(after.status).toBe(401);
    expect(header(after, 'www-authenticate')).toMatch(/error="invalid_token"/);
  });

  it('refuses a kept token from an address over its failed authentications, as the route does (429 before the token is read)', async () => {
    const guarded = await startTestApp({ env: { RATE_LIMIT_AUTH_FAILURES_PER_MINUTE: '3' } });
    try {
      await withTimeLeftInWindow(10_000);
      if (KEEPS) await until(() => guarded.app.get(AuthenticationCache).enabled, 5_000);
      const { token } = await createClientWithToken(guarded);
      for (let i = 0; i < 2; i++) expect((await send(guarded, [bearer(token)])).status).toBe(200);
      const answered = guarded.app.get(MeFromMemory).answered;
      for (let i = 0; i < 3; i++) expect((await send(guarded, [bearer(`${token.slice(0, -8)}AAAAAAAA`)])).status).toBe(401);
      // The failures reach the counters in the background (in memory at once on this replica).
      const refused = await send(guarded, [bearer(token)]);
      expect(refused.status).toBe(429);
      expect(header(refused, 'retry-after')).toMatch(/^\d+$/);
      expect(guarded.app.get(MeFromMemory).answered).toBe(answered);
    } finally {
      await guarded.close();
    }
  });

  it('the migration that announces changes goes down and up again', async () => {
    const runner = t.app.get(DataSource).createQueryRunner();
    const triggers = async () =>
      (await runner.query(`SELECT tgname FROM pg_trigger WHERE tgname LIKE '%auth_%' AND NOT tgisinternal ORDER BY tgname`)).map(
        (r: { tgname: string }) => r.tgname,
      );
    try {
      await runner.startTransaction();
      expect(await triggers()).toEqual([
        'client_tokens_auth_changed',
        'client_tokens_auth_deleted',
        'client_tokens_auth_truncated',
        'clients_auth_changed',
        'clients_auth_truncated',
      ]);
      const migration = new AuthChangeNotifications1795900000000();
      await migration.down(runner);
      expect(await triggers()).toEqual([]);
      await migration.up(runner);
      expect(await triggers()).toHaveLength(5);
    } finally {
      await runner.rollbackTransaction();
      await runner.release();
    }
  });

  it("never answers past the client's quota: the route's 429 from the first request over it", async () => {
    const limited = await startTestApp({ env: { RATE_LIMIT_CLIENT_PER_MINUTE: '5' } });
    try {
      // Counts are per minute (windows aligned on the clock): start early in a window.
      await withTimeLeftInWindow(10_000);
      if (KEEPS) await until(() => limited.app.get(AuthenticationCache).enabled, 5_000);
      const { token } = await createClientWithToken(limited);
      const statuses: number[] = [];
      for (let i = 0; i < 8; i++) statuses.push((await send(limited, [bearer(token)])).status);
      expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429, 429]);
      // Requests 2 to 5 when each came within a second of the count's last round trip (the usual case).
      const answered = limited.app.get(MeFromMemory).answered;
      if (KEEPS) expect(answered).toBeGreaterThanOrEqual(1);
      expect(answered).toBeLessThanOrEqual(KEEPS ? 4 : 0);
    } finally {
      await limited.close();
    }
  });
});

(KEEPS ? describe : describe.skip)('kept authentications across replicas (PostgreSQL server)', () => {
  let db: TestDatabase;
  let a: TestApp;
  let b: TestApp;
  beforeAll(async () => {
    db = await createTestDatabase();
    a = await startTestApp({ database: db });
    b = await startTestApp({ database: db, env: { MIGRATIONS_RUN: 'false' } });
    for (const app of [a, b]) await until(() => app.app.get(AuthenticationCache).enabled, 5_000);
  });
  afterAll(async () => {
    await b?.close({ keepDatabase: true });
    await a?.close({ keepDatabase: true });
    await db?.close();
  });

  it('a token revoked through one replica, or by hand in the database, is refused by the other as soon as PostgreSQL tells it', async () => {
    const { token, clientId, tokenId } = await createClientWithToken(a);
    const onB = async () => (await send(b, [bearer(token)])).status;
    expect(await onB()).toBe(200);
    expect(await onB()).toBe(200);
    expect(b.app.get(MeFromMemory).answered).toBeGreaterThan(0);
    const revoked = await fetch(`${a.url}/api/v1/admin/clients/${clientId}/tokens/${tokenId}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(revoked.status).toBe(204);
    // Well within the 10 s an authentication is kept at most: the notification, not the expiry, did it.
    await until(async () => (await onB()) === 401, 2_000);

    const other = await issueToken(a, clientId);
    const otherOnB = async () => (await send(b, [bearer(other.token)])).status;
    expect(await otherOnB()).toBe(200);
    await db.pool.query(`UPDATE client_tokens SET expires_at = now() - interval '1 second' WHERE id = $1`, [other.id]);
    await until(async () => (await otherOnB()) === 401, 2_000);
  });

  it('a use of a token (last_used_at) announces nothing', async () => {
    const { token, tokenId } = await createClientWithToken(a);
    const cache = b.app.get(AuthenticationCache);
    expect((await send(b, [bearer(token)])).status).toBe(200);
    const { generation } = cache.mark();
    await db.pool.query(`UPDATE client_tokens SET last_used_at = now() - interval '1 hour' WHERE id = $1`, [tokenId]);
    await db.pool.query(`UPDATE client_tokens SET name = 'renamed' WHERE id = $1`, [tokenId]);
    // The second change is announced; by then the first would have been too.
    await until(() => cache.mark().generation !== generation, 2_000);
    expect(cache.mark().generation).toBe(generation + 1);
  });

  it('keeps nothing while its notifications connection is down, and keeps again once it listens again', async () => {
    const { token, clientId } = await createClientWithToken(a);
    const cache = b.app.get(AuthenticationCache);
    const memory = b.app.get(MeFromMemory);
    expect(cache.enabled).toBe(true);
    const kept = memory.answered;
    for (let i = 0; i < 2; i++) expect((await send(b, [bearer(token)])).status).toBe(200);
    expect(memory.answered).toBe(kept + 1);
    const killed = await db.pool.query(
      `SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE application_name = $1 AND datname = current_database()`,
      [LISTENER_APPLICATION_NAME],
    );
    // One listener per replica.
    expect(killed.rows).toEqual([{ ok: true }, { ok: true }]);
    await until(() => !cache.enabled, 2_000);
    // A change no notification tells b of (it listens again only half a second later): what b kept is gone.
    await db.pool.query(`UPDATE clients SET confirmed_company = 'Changed while deaf' WHERE client_id = $1`, [clientId]);
    const before = memory.answered;
    expect(JSON.parse((await send(b, [bearer(token)])).body).company).toBe('Changed while deaf');
    for (let i = 0; i < 2; i++) expect((await send(b, [bearer(token)])).status).toBe(200);
    expect(memory.answered).toBe(before);
    await until(() => cache.enabled, 5_000);
    for (let i = 0; i < 2; i++) expect((await send(b, [bearer(token)])).status).toBe(200);
    expect(memory.answered).toBe(before + 1);
  });
});

(KEEPS ? describe.skip : describe)('kept authentications on the embedded database', () => {
  it('keeps none: every request reads the database', async () => {
    const t = await startTestApp();
    try {
      const { token } = await createClientWithToken(t);
      for (let i = 0; i < 3; i++) expect((await send(t, [bearer(token)])).status).toBe(200);
      expect(t.app.get(AuthenticationCache).enabled).toBe(false);
      expect(t.app.get(MeFromMemory).answered).toBe(0);
    } finally {
      await t.close();
    }
  });
});
