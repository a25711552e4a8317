/**
 * Schema-driven fuzzing of the whole HTTP API (fast-check + the OpenAPI contract validator).
 *
 * Requests are built from the app's own `/docs/openapi.json` and mutated (see
 * test/support/openapi-fuzz.ts). For EVERY response:
 *  1. never a 5xx;
 *  2. the contract (test/support/contract.ts `contractProblems`): a documented operation answers
 *     only with a status documented for it, with the documented content type, a body valid
 *     against the documented schema and the documented headers;
 *  3. a request that reaches no documented operation (unknown route or method, a route spelled
 *     differently) gets one of the generic statuses 400 (undecodable path), 404, 405 (with
 *     `Allow`), 413, 415, as a valid problem+json — nothing else (but a browser's GET outside /api,
 *     /docs and /health, which gets the site's HTML 404: the API's paths are case-sensitive, so
 *     `/API/V1/…` is the site's; and a path is matched with its method, as the router does);
 *  4. only a valid credential of the route's audience gets a 2xx on a protected route, and a
 *     client's 2xx shows no other client's `client_id`;
 *  5. the database is unchanged (row count and md5 of the rows of every table but
 *     `rate_limit_counters`, without `client_tokens.last_used_at`) after every refused request
 *     (4xx) and after every GET/HEAD; a successful write (2xx POST/PATCH/DELETE) may change it.
 *
 * Deterministic: `npm test` runs the seeds of test/fuzz-seeds.ts (each broad run on a fresh service;
 * each seed that found a fault replays its case) and the requests that once failed (KNOWN_CASES). `npm run fuzz` (test/fuzz.mjs) explores random seeds
 * through `FUZZ_SEED=<seed>` (with `FUZZ_RUNS`, default 2000), which runs that seed alone. Replay a
 * failure with the seed and path it reports:
 * `FUZZ_SEED=<seed> FUZZ_PATH=<path> npm run test:jest -- test/fuzz.e2e-spec.ts`.
 */
import fc from 'fast-check';
import request from 'supertest';
import { generateToken } from '../src/common/token-format.js';
import { FUZZ_SEEDS, type FuzzSeed } from './fuzz-seeds.js';
import { contractProblems } from './support/contract.js';
import { createClient, createClientWithToken, issueToken } from './support/factories.js';
import {
  type FuzzFixtures,
  type FuzzRequest,
  type FuzzResponse,
  type Operation,
  type Snapshot,
  databaseSnapshot,
  describeRequest,
  destroyAgent,
  fuzzRequestArb,
  matchOperation,
  operationsOf,
  pathWithQuery,
  send,
  snapshotDiff,
  snapshotQuery,
} from './support/openapi-fuzz.js';
import { ADMIN_TOKEN, startTestApp, type TestApp } from './support/test-app.js';
import { SITE_PATHS } from '../src/site/site-pages.js';

const SITE_PAGE_PATHS = new Set(SITE_PATHS);

const SEEDS: FuzzSeed[] = process.env.FUZZ_SEED
  ? [{ seed: Number(process.env.FUZZ_SEED), runs: Number(process.env.FUZZ_RUNS || 2_000), found: 'FUZZ_SEED' }]
  : FUZZ_SEEDS;
const REPLAY_PATH = process.env.FUZZ_PATH || undefined;
/** `npm run fuzz` gives a run what is left of its time; a run stopped by it passes with the requests made. */
const TIME_LIMIT_MS = Number(process.env.FUZZ_TIME_LIMIT_MS || 300_000);
/** Ids that exist nowhere (fixed, so that a seed draws the same requests on every run). */
const UNKNOWN_IDS = ['3f1c9a52-7d4e-4b8a-9c21-5e6f7a8b9c0d', '8a2b4c6d-1e3f-4a5b-8c7d-9e0f1a2b3c4d'];

/**
 * Requests that once failed, checked on every run whatever the generator draws since (the oracle's
 * decision on each is in the rule it tested: test/support/contract.ts, matchOperation).
 */
const KNOWN_CASES: FuzzRequest[] = [
  // The API's paths are case-sensitive: a browser's GET of /API/V1/… gets the site's HTML 404.
  {
    from: 'GET /api/v1/me/obligations',
    method: 'GET',
    path: '/API/V1/ME/OBLIGATIONS',
    query: [],
    auth: 'client',
    headers: [['accept', 'text/html']],
    contentType: null,
  },
  // GET /admin/clients/import is GET /admin/clients/{client_id} (id "import"): a client's token gets 403.
  {
    from: 'POST /api/v1/admin/clients/import',
    method: 'GET',
    path: '/api/v1/admin/clients/import',
    query: ['dry_run=true', 'foo=1'],
    auth: 'pending-client',
    headers: [],
    contentType: null,
  },
  // A half-year before the year 1000 had no end instant (its year not written with four digits): 500, now its reminders.
  {
    from: 'POST /api/v1/admin/reminders',
    method: 'POST',
    path: '/api/v1/admin/reminders',
    query: ['dry_run=true'],
    auth: 'admin',
    headers: [],
    contentType: 'application/json',
    body: { json: { period: '0000-S1', force: false }, mutations: [] },
  },
  // A NUL in a query value reached PostgreSQL (500): a 422 like a NUL in a body.
  {
    from: 'GET /api/v1/admin/clients',
    method: 'GET',
    path: '/api/v1/admin/clients',
    query: ['limit=1', 'q=%00', 'status=active'],
    auth: 'admin',
    headers: [],
    contentType: null,
  },
];

/** Statuses a request outside every documented operation may get (always as problem+json). */
const GENERIC_STATUSES = new Set([400, 404, 405, 413, 415]);

/** The app's own log of an error answer (what went wrong inside), found by its request id. */
function serverErrorsOf(res: FuzzResponse): string[] {
  const id = res.headers['x-request-id'];
  if (typeof id !== 'string' || res.status < 500) return [];
  return t.logs
    .filter((line) => line.includes(`"request_id":${JSON.stringify(id)}`) && /"level":(50|60)/.test(line))
    .slice(-1)
    .map((line) => {
      const { err } = JSON.parse(line) as { err?: { stack?: string; message?: string } };
      return `server log: ${(err?.stack ?? err?.message ?? line).split('\n').slice(0, 8).join('\n  ')}`;
    });
}

/** Every `client_id` member anywhere in a JSON value. */
function clientIdsIn(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) for (const item of value) clientIdsIn(item, out);
  else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      if (key === 'client_id' && typeof item === 'string') out.push(item);
      else clientIdsIn(item, out);
    }
  }
  return out;
}

/** More of the interesting operations (validation-heavy), fewer of the static ones. */
const OPERATION_WEIGHTS: Record<string, number> = {
  'POST /api/v1/declarations': 10,
  'GET /api/v1/declarations': 4,
  'GET /api/v1/declarations/{id}': 3,
  'GET /api/v1/me': 2,
  'POST /api/v1/admin/clients': 3,
  'PATCH /api/v1/admin/clients/{client_id}': 3,
  'POST /api/v1/admin/clients/{client_id}/tokens': 3,
  'POST /api/v1/admin/clients/{client_id}/confirm': 2,
  'DELETE /api/v1/admin/clients/{client_id}/tokens/{token_id}': 2,
  'GET /api/v1/admin/clients/{client_id}': 1,
  'GET /api/v1/admin/clients/{client_id}/tokens': 1,
};

const bearer = (token: string) => `Bearer ${token}`;

let t: TestApp;
let doc: Record<string, unknown>;
let operations: Operation[];
let fixtures: FuzzFixtures;
let snapshotSql: string;
let snapshotTables: string[];
/** The credentials that are valid, and whose they are: anything else must never get a 2xx on a protected route. */
let credentials: Record<string, { audience: 'client'; clientId: string } | { audience: 'admin' }>;

/** A fresh service, its clients, tokens and declarations, and the fuzzer's fixtures from them. */
async function startService(): Promise<void> {
  t = await startTestApp();
  doc = (await (await fetch(`${t.url}/docs/openapi.json`)).json()) as Record<string, unknown>;
  operations = operationsOf(doc);

  // Clients: A (the caller, confirmed, streams EMB), B (another client), C (the target of admin
  // writes: tokens revoked, profile changed), P (pending, never confirmed).
  const a = await createClientWithToken(t);
  const b = await createClientWithToken(t);
  const c = await createClientWithToken(t);
  const { clientId: pending } = await createClient(t, {}, { confirm: false });
  const pendingToken = await issueToken(t, pending);
  const revoked = await issueToken(t, c.clientId, { name: 'revoked' });
  const revokedRes = await request(t.url)
    .delete(`/api/v1/admin/clients/${c.clientId}/tokens/${revoked.id}`)
    .set('authorization', bearer(ADMIN_TOKEN));
  expect(revokedRes.status).toBe(204);
  const expired = await issueToken(t, c.clientId, { name: 'expired' });
  await t.pool.query(
    `UPDATE client_tokens SET created_at = now() - interval '2 days', expires_at = now() - interval '1 day' WHERE id = $1`,
    [expired.id],
  );

  const declarations: string[] = [];
  for (const [token, period] of [
    [a.token, '2025-S1'],
    [a.token, '2025-S2'],
    [a.token, '2025-S1'],
    [b.token, '2025-S1'],
  ] as const) {
    const res = await request(t.url)
      .post('/api/v1/declarations')
      .set('authorization', bearer(token))
      .send({ period, lines: [{ stream: 'EMB', material: `Verre ${declarations.length}`, unit: 'uvc', quantity: 12 }] });
    expect(res.status).toBe(201);
    declarations.push(res.body.id as string);
  }
  const cursors: string[] = [];
  for (const query of ['limit=1', 'limit=1&period=2025-S1', 'limit=1&status=superseded']) {
    const page = await request(t.url).get(`/api/v1/declarations?${query}`).set('authorization', bearer(a.token));
    if (page.body.next_cursor) cursors.push(page.body.next_cursor as string);
  }
  const badChecksum = a.token.slice(0, -1) + (a.token.endsWith('A') ? 'B' : 'A');

  fixtures = {
    authorization: {
      client: bearer(a.token),
      'client-lowercase-scheme': `bearer ${a.token}`,
      'client-uppercase-scheme': `BEARER ${a.token}`,
      'client-extra-spaces': `Bearer    ${a.token}   `,
      'other-client': bearer(b.token),
      'target-client': bearer(c.token),
      'pending-client': bearer(pendingToken.token),
      admin: bearer(ADMIN_TOKEN),
      'admin-lowercase-scheme': `bearer ${ADMIN_TOKEN}`,
      'admin-plus-one': bearer(`${ADMIN_TOKEN}x`),
      'admin-truncated': bearer(ADMIN_TOKEN.slice(0, -1)),
      none: null,
      'empty-header': '',
      'scheme-only': 'Bearer',
      'scheme-and-space': 'Bearer ',
      'bad-checksum': bearer(badChecksum),
      'never-issued': bearer(generateToken()),
      revoked: bearer(revoked.token),
      expired: bearer(expired.token),
      basic: `Basic ${Buffer.from(`admin:${ADMIN_TOKEN}`).toString('base64')}`,
      'no-scheme': a.token,
      'huge-token': bearer('a'.repeat(8_000)),
      'two-tokens': `Bearer ${a.token}, Bearer ${b.token}`,
      'quoted-token': `Bearer "${a.token}"`,
      'token-param': `Bearer token=${a.token}`,
    },
    authWeights: {
      // Mostly a valid client token, so that the validation layer behind the guard is exercised.
      client: {
        client: 60,
        'client-lowercase-scheme': 3,
        'client-uppercase-scheme': 1,
        'client-extra-spaces': 1,
        'other-client': 8,
        'target-client': 2,
        'pending-client': 4,
        admin: 4,
        none: 3,
        'empty-header': 1,
        'scheme-only': 1,
        'scheme-and-space': 1,
        'bad-checksum': 1,
        'never-issued': 1,
        revoked: 1,
        expired: 1,
        basic: 1,
        'no-scheme': 1,
        'huge-token': 1,
        'two-tokens': 1,
        'quoted-token': 1,
        'token-param': 1,
      },
      admin: {
        admin: 60,
        'admin-lowercase-scheme': 3,
        'admin-plus-one': 1,
        'admin-truncated': 1,
        client: 6,
        'other-client': 1,
        'pending-client': 1,
        none: 3,
        'empty-header': 1,
        'scheme-only': 1,
        'scheme-and-space': 1,
        'bad-checksum': 1,
        'never-issued': 1,
        revoked: 1,
        expired: 1,
        basic: 1,
        'no-scheme': 1,
        'huge-token': 1,
        'two-tokens': 1,
      },
      public: { none: 10, client: 3, admin: 2, 'bad-checksum': 1, basic: 1, 'huge-token': 1 },
    },
    pathValues: {
      id: { read: [...declarations, declarations[0]!.toUpperCase(), UNKNOWN_IDS[0]!], write: [...declarations] },
      // Admin writes never touch A and B: the fuzzer keeps using their tokens and profiles.
      client_id: { read: [a.clientId, b.clientId, c.clientId, pending, 'no-such-client'], write: [c.clientId, pending, 'no-such-client'] },
      token_id: {
        read: [a.tokenId, c.tokenId, revoked.id, UNKNOWN_IDS[0]!],
        write: [a.tokenId, b.tokenId, c.tokenId, revoked.id, expired.id, pendingToken.id, UNKNOWN_IDS[1]!],
      },
    },
    queryValues: { cursor: cursors },
  };
  const clientCredential = (clientId: string) => ({ audience: 'client' as const, clientId });
  credentials = {
    client: clientCredential(a.clientId),
    'client-lowercase-scheme': clientCredential(a.clientId),
    'client-uppercase-scheme': clientCredential(a.clientId),
    'client-extra-spaces': clientCredential(a.clientId),
    'other-client': clientCredential(b.clientId),
    'target-client': clientCredential(c.clientId),
    'pending-client': clientCredential(pending),
    admin: { audience: 'admin' },
    'admin-lowercase-scheme': { audience: 'admin' },
  };
  ({ sql: snapshotSql, tables: snapshotTables } = await snapshotQuery(t.pool));
}

async function stopService(): Promise<void> {
  destroyAgent();
  await t?.close();
}

/**
 * The URL the contract validator is given: the path as the server routes it. WHATWG URLs would
 * resolve dot segments (`..`, `%2e`) that Express keeps as literal parameter values.
 */
function contractUrl(req: FuzzRequest): string {
  const path = req.path
    .split('/')
    .map((segment) => (/^(\.|%2e){1,2}$/i.test(segment) ? 'dot-segment' : segment))
    .join('/');
  return `${t.url}${path}${req.query.length ? `?${req.query.join('&')}` : ''}`;
}

interface Stats {
  requests: number;
  byStatus: Map<number, number>;
  byOperation: Map<string, Map<number, number>>;
  writes: number;
}

/** What a run has seen, and the database as the last request left it. */
interface Run {
  stats: Stats;
  before: Snapshot;
}

async function newRun(): Promise<Run> {
  return {
    stats: { requests: 0, byStatus: new Map(), byOperation: new Map(), writes: 0 },
    before: await databaseSnapshot(t.pool, snapshotSql),
  };
}

/** Sends one request and checks its answer against rules 1–5 above; throws what is wrong. */
async function check(req: FuzzRequest, run: Run): Promise<void> {
  const { stats } = run;
  const res = await send(t.url, req, fixtures);
  stats.requests += 1;
  stats.byStatus.set(res.status, (stats.byStatus.get(res.status) ?? 0) + 1);
  const problems: string[] = [];
  const hardProblems: string[] = [];

  if (res.reset) {
    // An oversized body refused by closing the connection: it must have written nothing.
    const after = await databaseSnapshot(t.pool, snapshotSql);
    const diff = snapshotDiff(run.before, after);
    run.before = after;
    if (diff.length)
      throw new Error(`the database changed on a request reset for its oversized body: ${diff.join('; ')}\n${describeRequest(req)}`);
    return;
  }
  if (res.status >= 500) problems.push(`server error ${res.status}`);
  const contract = await contractProblems(req.method, contractUrl(req), {
    status: res.status,
    headers: res.headers,
    text: res.text,
  });
  if (contract) problems.push(...contract);

  const operation = matchOperation(operations, req.method, new URL(contractUrl(req)).pathname);
  const key = operation?.key ?? '(no documented operation)';
  const perOperation = stats.byOperation.get(key) ?? new Map<number, number>();
  perOperation.set(res.status, (perOperation.get(res.status) ?? 0) + 1);
  stats.byOperation.set(key, perOperation);
  // The site's pages are HTML for people, outside the API document (test/site.e2e-spec.ts covers them).
  if (!operation && !SITE_PAGE_PATHS.has(new URL(contractUrl(req)).pathname)) {
    if (!GENERIC_STATUSES.has(res.status))
      problems.push(`outside the documented operations, status ${res.status} is not one of ${[...GENERIC_STATUSES].join(', ')}`);
    if (res.status === 405 && !res.headers.allow) problems.push('405 without Allow');
  }

  // Authentication and tenancy: only a valid credential of the route's audience gets a 2xx,
  // and a client only ever sees its own records.
  if (operation && operation.audience !== 'public' && res.status < 300) {
    const credential = credentials[req.auth];
    if (credential?.audience !== operation.audience) {
      hardProblems.push(`the credential "${req.auth}" got ${res.status} on a ${operation.audience} route`);
    } else if (credential.audience === 'client' && res.text) {
      let json: unknown;
      try {
        json = JSON.parse(res.text);
      } catch {
        json = undefined; // the contract check reports it
      }
      const others = clientIdsIn(json).filter((id) => id !== credential.clientId);
      if (others.length) hardProblems.push(`client ${credential.clientId} was shown data of ${[...new Set(others)].join(', ')}`);
    }
  }

  const after = await databaseSnapshot(t.pool, snapshotSql);
  const safe = req.method === 'GET' || req.method === 'HEAD';
  if (res.status >= 400 || safe) {
    const diff = snapshotDiff(run.before, after);
    if (diff.length) hardProblems.push(`the database changed on a ${safe ? 'read' : 'refused request'}: ${diff.join('; ')}`);
  } else {
    stats.writes += 1;
  }
  run.before = after;

  problems.push(...hardProblems);
  if (problems.length) {
    const body = res.text.length > 1_000 ? `${res.text.slice(0, 1_000)}…` : res.text;
    throw new Error(
      [
        `${req.method} ${pathWithQuery(req).slice(0, 200)} → ${res.status}`,
        ...problems.map((p) => `- ${p}`),
        '',
        describeRequest(req),
        `response: ${res.status} ${String(res.headers['content-type'] ?? '(no content-type)')} ${body}`,
        ...serverErrorsOf(res),
      ].join('\n'),
    );
  }
}

/** A failed run's report: how to replay it, and what it sent. */
function report(seed: number, runs: number, path: string | undefined, stats: Stats, started: number): string {
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  const statuses = [...stats.byStatus.entries()]
    .sort(([x], [y]) => x - y)
    .map(([s, n]) => `${s}×${n}`)
    .join(' ');
  const perOperation = [...stats.byOperation.entries()]
    .sort(([x], [y]) => x.localeCompare(y))
    .map(
      ([op, counts]) =>
        `  ${op}: ${[...counts.entries()]
          .sort(([x], [y]) => x - y)
          .map(([s, n]) => `${s}×${n}`)
          .join(' ')}`,
    )
    .join('\n');
  return (
    `fuzz: FUZZ_SEED=${seed} FUZZ_RUNS=${runs}${path ? ` FUZZ_PATH=${path}` : ''} (replay: FUZZ_SEED=${seed} [FUZZ_PATH=<path of a failure>] npm run test:jest -- test/fuzz.e2e-spec.ts)\n` +
    `fuzz: seed ${seed}: ${stats.requests} requests in ${seconds} s, ${stats.writes} successful writes; statuses ${statuses}\n${perOperation}`
  );
}

/** Runs the generated requests of `seed` (from its `path` only: the one case it found). */
async function runSeed(seed: number, runs: number, path: string | undefined): Promise<Run> {
  const run = await newRun();
  const started = Date.now();
  // The seed goes to stderr first, for a run that cannot print anything after (a crashed worker).
  if (process.env.FUZZ_SEED !== undefined) process.stderr.write(`fuzz: FUZZ_SEED=${seed}\n`);
  const property = fc.asyncProperty(fuzzRequestArb(doc, operations, fixtures, { unmutatedWeight: 15, weights: OPERATION_WEIGHTS }), (req) =>
    check(req, run),
  );
  try {
    // Time-bounded (5 minutes unless `npm run fuzz` says less; a run takes under one): a failure found is reported
    // with the smallest case shrunk by then (a 1 MB body shrinks slowly: unbounded, it held CI for its whole timeout).
    await fc.assert(property, { seed, numRuns: runs, path, verbose: 0, interruptAfterTimeLimit: TIME_LIMIT_MS });
  } catch (error) {
    console.log(report(seed, runs, path, run.stats, started));
    throw error;
  }
  return run;
}

const RUNS = SEEDS.filter((entry) => entry.path === undefined);

describe.each(RUNS.map((entry, index) => ({ ...entry, first: index === 0 })))(
  'fuzzing the API from its OpenAPI document, seed $seed',
  ({ seed, runs, first }) => {
    beforeAll(startService, 120_000);
    afterAll(stopService);

    if (first) {
      it('checksums the tables: a changed row shows, last_used_at and rate-limit counters do not', async () => {
        expect(snapshotTables).toEqual(
          expect.arrayContaining(['clients', 'client_tokens', 'declarations', 'declaration_lines', 'idempotency_keys']),
        );
        expect(snapshotTables).not.toContain('rate_limit_counters');
        const base = await databaseSnapshot(t.pool, snapshotSql);
        await t.pool.query(`UPDATE client_tokens SET last_used_at = now() - interval '1 hour'`);
        expect(snapshotDiff(base, await databaseSnapshot(t.pool, snapshotSql))).toEqual([]);
        const { rows } = await t.pool.query<{ id: string; name: string | null }>(`SELECT id, name FROM client_tokens ORDER BY id LIMIT 1`);
        await t.pool.query(`UPDATE client_tokens SET name = 'changed by the checksum test' WHERE id = $1`, [rows[0]!.id]);
        expect(snapshotDiff(base, await databaseSnapshot(t.pool, snapshotSql))).toEqual([
          expect.stringMatching(/^client_tokens: (\d+) rows → \1 rows \(contents changed\)$/),
        ]);
        await t.pool.query(`UPDATE client_tokens SET name = $2 WHERE id = $1`, [rows[0]!.id, rows[0]!.name]);
        expect(snapshotDiff(base, await databaseSnapshot(t.pool, snapshotSql))).toEqual([]);
      });
    }

    it(
      `answers every generated request as documented, without 5xx, and refused requests write nothing (${runs} requests)`,
      async () => {
        const run = await runSeed(seed, runs, REPLAY_PATH);
        if (!process.env.FUZZ_TIME_LIMIT_MS) expect(run.stats.requests).toBeGreaterThanOrEqual(REPLAY_PATH ? 1 : runs);
      },
      8 * 60_000,
    );

    if (first) {
      // After the run, on the same service (its seed stays reproducible alone): cases that once failed.
      it('answers the requests that once failed as documented', async () => {
        const run = await newRun();
        for (const req of KNOWN_CASES) await check(req, run);
        expect(run.stats.requests).toBe(KNOWN_CASES.length);
      });
    }
  },
);
