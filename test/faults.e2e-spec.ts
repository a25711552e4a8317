import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { periodLockKey } from '../src/declarations/declarations.repository.js';
import { ADMIN_TOKEN, SERVER_DATABASE_URL, type TestApp } from './support/test-app.js';
import { startBackingDatabase, type BackingDatabase } from './support/backing-database.js';
import { createClientWithToken } from './support/factories.js';
import { reportFigure, spawnApp, type SpawnedApp } from './support/spawned-app.js';
import { TcpProxy } from './support/tcp-proxy.js';

// The service as separate processes (the built dist/src/main.js) on a database the test controls.

const line = (quantity: number, lines = 1) =>
  Array.from({ length: lines }, (_, i) => ({ stream: 'EMB', material: `material ${i}`, unit: 'uvc', quantity: quantity + i }));

async function post(url: string, token: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${url}/api/v1/declarations`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(20_000),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown>, headers: res.headers };
}

/**
 * A connection kept alive by one request, on which `post()` sends another later: a request that
 * arrives while the service is stopping, on a connection it still serves.
 */
async function keptAliveConnection(url: string) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const send = (method: string, path: string, headers: http.OutgoingHttpHeaders, body?: Buffer) =>
    new Promise<number | string>((resolve) => {
      const req = http.request(`${url}${path}`, { method, agent, headers }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode!));
      });
      req.on('error', (error) => resolve(`failed: ${error.message}`));
      req.end(body);
    });
  expect(await send('GET', '/health/live', {})).toBe(200);
  return {
    post: (token: string, body: unknown) =>
      send(
        'POST',
        '/api/v1/declarations',
        { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        Buffer.from(JSON.stringify(body)),
      ),
    close: () => agent.destroy(),
  };
}

const asTestApp = (url: string) => ({ url }) as TestApp;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The built service on its own database, reached through a TCP proxy that a test can cut or stall. */
function serviceBehindProxy(): { db: BackingDatabase; proxy: TcpProxy; app: SpawnedApp } {
  const setup = {} as { db: BackingDatabase; proxy: TcpProxy; app: SpawnedApp };
  beforeAll(async () => {
    setup.db = await startBackingDatabase();
    setup.proxy = await TcpProxy.start(setup.db.target);
    setup.app = await spawnApp({ DATABASE_URL: setup.db.urlVia(setup.proxy.port) });
  }, 120_000);
  afterAll(async () => {
    await setup.app?.stop('SIGKILL');
    await setup.proxy?.close();
    await setup.db?.close();
  });
  return setup;
}

/**
 * A cut or stalled path to the database is a database server's fault: the embedded database runs in the service's own
 * process. These two need one (DATABASE_URL; CI names one). On PGlite shared over a socket, as the other tests here
 * use it without a server, every connection is one session: a cut connection neither ends its session nor frees its
 * advisory locks (a replayed POST's key stays claimed, 409), and one stalled connection holds the others' queries.
 */
const onServer = SERVER_DATABASE_URL ? describe : describe.skip;

onServer('database outage', () => {
  const s = serviceBehindProxy();

  it('answers 503 while the database is away, recovers by itself, loses no acknowledged POST, and stores nothing a client is not told of once it replays its refused POSTs', async () => {
    // Eight clients, each well under its production rate limit (60 POST/min per client).
    const tokens = await Promise.all(Array.from({ length: 8 }, () => createClientWithToken(asTestApp(s.app.url)).then((c) => c.token)));
    // Each POST with an Idempotency-Key of its own, so that a refused one can be sent again as it was.
    const results: { status: number; id?: string; code?: unknown; token: string; body: unknown; key: string }[] = [];
    let stop = false;
    const worker = async (w: number) => {
      const token = tokens[w]!;
      for (let i = 0; !stop; i++) {
        if (i > 0) await sleep(300);
        const body = { period: `202${2 + (w % 4)}-S${1 + (i % 2)}`, lines: line(w * 1000 + i) };
        const key = randomUUID();
        try {
          const res = await post(s.app.url, token, body, { 'idempotency-key': key });
          results.push({ status: res.status, id: res.body.id as string | undefined, code: res.body.code, token, body, key });
          if (res.status === 503) expect(res.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
        } catch (error) {
          results.push({ status: -1, token, body, key });
          throw error;
        }
      }
    };
    const load = Promise.all(tokens.map((_, w) => worker(w)));
    await sleep(1_000);
    await s.proxy.cut();
    await sleep(1_500);
    const ready = await fetch(`${s.app.url}/health/ready`);
    expect(ready.status).toBe(503);
    expect(ready.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
    expect(ready.headers.get('retry-after')).toMatch(/^\d+$/);
    const problem = (await ready.json()) as { code: string; checks: Record<string, { status: string }> };
    expect(problem.code).toBe('service_unavailable');
    expect(problem.checks.database!.status).toBe('down');
    await s.proxy.restore();
    // Recovers by itself: readiness and writes come back without a restart.
    let recovered = false;
    for (let i = 0; i < 100 && !recovered; i++) {
      recovered = (await fetch(`${s.app.url}/health/ready`)).status === 200;
      if (!recovered) await sleep(200);
    }
    expect(recovered).toBe(true);
    await sleep(1_000);
    stop = true;
    await load;

    expect(results.filter((r) => ![200, 201, 503].includes(r.status))).toEqual([]);
    expect(results.some((r) => r.status === 503)).toBe(true);
    const acknowledged = results.filter((r) => r.status === 201).map((r) => r.id!);
    expect(acknowledged.length).toBeGreaterThan(0);
    // A 503 can come after PostgreSQL committed, when the connection was cut before its answer
    // arrived: the outcome is unknown to the service too. The client's way out is to send the POST
    // again with its key: a committed one answers its declaration (its key's outcome is written in
    // the same transaction), one that was not is filed now. Never 409: a key's claim left by a cut
    // request names the app's presence lock of before the cut, which the cut freed.
    const replayed: string[] = [];
    for (const refused of results.filter((r) => r.status === 503)) {
      const res = await post(s.app.url, refused.token, refused.body, { 'idempotency-key': refused.key });
      expect([200, 201]).toContain(res.status);
      replayed.push(res.body.id as string);
    }
    const stored = await s.db.pool.query<{ id: string }>('SELECT id FROM declarations');
    // Nothing acknowledged is lost, and nothing is stored that the client has not been told of.
    expect(stored.rows.map((r) => r.id).sort()).toEqual([...new Set([...acknowledged, ...replayed])].sort());
    expect(s.app.process.exitCode).toBeNull();
  }, 120_000);
});

onServer('a database that stops answering (no RST)', () => {
  const s = serviceBehindProxy();

  // The list of declarations: a request that reads the database whatever this replica keeps in
  // memory (GET /me may be answered from memory for a token verified a moment before).
  const me = async (token: string) => {
    const started = Date.now();
    const res = await fetch(`${s.app.url}/api/v1/declarations`, {
      headers: { authorization: `Bearer ${token}` },
      signal: AbortSignal.timeout(25_000),
    });
    return { status: res.status, type: res.headers.get('content-type'), ms: Date.now() - started };
  };

  it('requests fail fast with 503 instead of hanging, and the pool heals once the path answers again', async () => {
    const tokens = await Promise.all(Array.from({ length: 4 }, () => createClientWithToken(asTestApp(s.app.url)).then((c) => c.token)));
    // A warm pool: several connections open and idle.
    await Promise.all(tokens.flatMap((token) => [me(token), me(token)]));
    s.proxy.stall();
    const stalled = await Promise.all(tokens.map((token) => me(token)));
    for (const res of stalled) {
      expect(res).toMatchObject({ status: 503, type: 'application/problem+json; charset=utf-8' });
      // The query timeout (12 s) or the pool's connection timeout, not the 30–50 s of a hung request.
      expect(res.ms).toBeLessThan(15_000);
    }
    s.proxy.unstall();
    // The connections that lost bytes are dropped and replaced: every client is served again.
    let healed = false;
    for (let i = 0; i < 40 && !healed; i++) {
      healed = (await Promise.all(tokens.map((token) => me(token)))).every((res) => res.status === 200);
      if (!healed) await sleep(500);
    }
    expect(healed).toBe(true);
    reportFigure(`stalled database: answered 503 after ${stalled.map((r) => r.ms).join(', ')} ms`);
  }, 90_000);
});

describe('two replicas on one database', () => {
  let db: BackingDatabase;
  let a: SpawnedApp;
  let b: SpawnedApp;
  beforeAll(async () => {
    db = await startBackingDatabase();
    a = await spawnApp({ DATABASE_URL: db.url });
    b = await spawnApp({ DATABASE_URL: db.url, MIGRATIONS_RUN: 'false' });
  }, 120_000);
  afterAll(async () => {
    await a?.stop('SIGKILL');
    await b?.stop('SIGKILL');
    await db?.close();
  });

  it('one Idempotency-Key, 20 concurrent POSTs across both → one declaration', async () => {
    const { token, clientId } = await createClientWithToken(asTestApp(a.url));
    const body = { period: '2025-S1', lines: line(5) };
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) => post(i % 2 ? a.url : b.url, token, body, { 'idempotency-key': 'replicas-key-1' })),
    );
    const created = responses.filter((r) => r.status === 201);
    expect(responses.every((r) => r.status === 201 || r.status === 409)).toBe(true);
    expect(created.length).toBeGreaterThanOrEqual(1);
    expect(new Set(created.map((r) => JSON.stringify(r.body))).size).toBe(1);
    const stored = await db.pool.query('SELECT count(*)::int AS n FROM declarations WHERE client_id = $1', [clientId]);
    expect(stored.rows[0].n).toBe(1);
  }, 60_000);

  it('20 concurrent amendments of one period across both → revisions 1..20, exactly one current', async () => {
    const { token, clientId } = await createClientWithToken(asTestApp(a.url));
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) => post(i % 2 ? a.url : b.url, token, { period: '2025-S2', lines: line(100 + i) })),
    );
    expect(responses.map((r) => r.status)).toEqual(Array(20).fill(201));
    const rows = await db.pool.query<{ revision: number; status: string }>(
      `SELECT revision, status FROM declarations WHERE client_id = $1 AND period = '2025-S2' ORDER BY revision`,
      [clientId],
    );
    expect(rows.rows.map((r) => r.revision)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect(rows.rows.filter((r) => r.status === 'current')).toEqual([{ revision: 20, status: 'current' }]);
  }, 60_000);

  it('the rate limit of a token is shared: what one replica counted, the other refuses', async () => {
    // Production limits: 60 POST per client per minute ("client-write"); refused bodies count too.
    const { token } = await createClientWithToken(asTestApp(a.url));
    const invalid = { period: '2025-S1', lines: [] };
    // Counts are per minute (windows aligned on the clock): start early in a window.
    const intoWindow = Date.now() % 60_000;
    if (intoWindow > 40_000) await sleep(60_000 - intoWindow + 100);
    const statuses = async (url: string, n: number) => {
      const out: number[] = [];
      for (let i = 0; i < n; i++) out.push((await post(url, token, invalid)).status);
      return out;
    };
    expect(await statuses(a.url, 30)).toEqual(Array(30).fill(422));
    await sleep(500); // a's counts reach PostgreSQL within 100 ms
    const onB = await post(b.url, token, invalid);
    expect(onB.headers.get('ratelimit')).toMatch(/^"client";r=\d+;t=\d+, "client-write";r=29;t=\d+$/);
    expect(await statuses(b.url, 29)).toEqual(Array(29).fill(422));
    const refused = await post(b.url, token, invalid);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    // a last asked PostgreSQL over a second ago: it asks again before answering, and refuses too.
    await sleep(1_100);
    expect((await post(a.url, token, invalid)).status).toBe(429);
  }, 90_000);

  it('a token revoked through one replica stops working on the other as soon as PostgreSQL tells it', async () => {
    const { token, clientId, tokenId } = await createClientWithToken(asTestApp(a.url));
    const me = () => fetch(`${b.url}/api/v1/me`, { headers: { authorization: `Bearer ${token}` } });
    // Used twice on b: the second answered from what b keeps (on the PostgreSQL server).
    expect((await me()).status).toBe(200);
    expect((await me()).status).toBe(200);
    const revoked = await fetch(`${a.url}/api/v1/admin/clients/${clientId}/tokens/${tokenId}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(revoked.status).toBe(204);
    // On the embedded database b reads the token at every request; on the server it hears of the
    // revocation through PostgreSQL's notification, in milliseconds (well within the 10 s it keeps one).
    const started = Date.now();
    let status = (await me()).status;
    while (status === 200 && Date.now() - started < 2_000) status = (await me()).status;
    expect(status).toBe(401);
    reportFigure(`revocation seen by the other replica after ${Date.now() - started} ms`);
  }, 60_000);
});

describe('graceful shutdown', () => {
  let db: BackingDatabase;
  beforeAll(async () => {
    db = await startBackingDatabase();
  }, 60_000);
  afterAll(async () => {
    await db?.close();
  });

  it('SIGTERM with requests in flight: they complete, no reset, exit code 0', async () => {
    const app = await spawnApp({ DATABASE_URL: db.url });
    const { token, clientId } = await createClientWithToken(asTestApp(app.url));
    // Hold the service's per-(client, period) lock in an open transaction, so that the requests are
    // certainly in flight (waiting on the database) when the signal arrives. (On the embedded
    // database the open transaction alone holds every other connection back.)
    const holder = await db.pool.connect();
    await holder.query('BEGIN');
    await holder.query(`SELECT pg_advisory_xact_lock($1)`, [periodLockKey(clientId, '2025-S1')]);
    const inFlight = Array.from({ length: 10 }, (_, i) =>
      post(app.url, token, { period: '2025-S1', lines: line(i * 1_000, 50) }).then(
        (r) => r.status,
        (error: Error) => `failed: ${error.message} ${String((error.cause as Error | undefined)?.message ?? '')}`,
      ),
    );
    // And one sent once the stop has begun, on a connection the service still serves: its guards
    // must still work (Nest tears modules down before it closes the server, so the service drains first).
    const kept = await keptAliveConnection(app.url);
    await sleep(1_000);
    const exit = app.stop('SIGTERM');
    await sleep(300);
    const late = kept.post(token, { period: '2025-S2', lines: line(7, 3) });
    await sleep(1_200); // past the moment the service starts closing idle connections
    await holder.query('COMMIT');
    holder.release();
    const statuses = await Promise.all(inFlight);
    expect(statuses).toEqual(Array(10).fill(201));
    expect(await late).toBe(201);
    kept.close();
    expect(await exit).toBe(0);
  }, 60_000);
});
