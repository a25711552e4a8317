/**
 * `npm run bench`: starts the BUILT service on fresh databases of the PostgreSQL server, loads it
 * from a separate process (bench/load.ts, autocannon), and compares each case with a baseline
 * measured in the same run, interleaved round by round. Prints a table and writes
 * bench/results/latest.json. See "Benchmarks" in README.md.
 *
 * Environment (all optional): BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test),
 * BENCH_SECONDS (per measurement, 5), BENCH_ROUNDS (3), BENCH_CONNECTIONS (10),
 * BENCH_MEMORY_SECONDS (60), BENCH_BIG_TABLE (1000000 declarations), BENCH_PROFILE=1 (the measured
 * service and main.js as shipped write a V8 CPU profile to bench/results/ when they stop), BENCH_SERVICE_NODE_ARGS (extra
 * node flags for the measured service, for experiments), BENCH_ONLY=yardstick (only the yardstick
 * section and the memory case: no embedded start-up, listing or twin rounds),
 * BENCH_ONLY=dashboard (the minimal app and the dashboard's cases: overview, list, a form POST
 * and a 1,000-line CSV upload with session and CSRF, then the memory case, whose mixed load includes them),
 * BENCH_ONLY=products (only the derived declaration of 10,000 products against psql: bench/products.ts),
 * BENCH_ONLY=annual (only the annual export against psql COPY, bench/annual.ts),
 * BENCH_ONLY=product-file (only a 1,000-product per-product file, .xlsx and CSV, to its check page: bench/product-file.ts),
 * BENCH_ONLY=deadline (the deadline hour: producers filing through the dashboard while ERPs post, bench/deadline.ts),
 * BENCH_ONLY=write-cpu (the service's CPU per 200-line and per 20-line declaration, bench/write-cpu.ts),
 * BENCH_MINIMAL_APP (the minimal NestJS app, default ../shared/bench/minimal-nest.cjs from the
 * project's root), BENCH_YARDSTICK_SECONDS (6), BENCH_WRK_CONNECTIONS (32), BENCH_BURST_CLIENTS (2000).
 */
import { type ChildProcess, fork, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { generateToken, hashToken, SESSION_PREFIX } from '../src/common/token-format.js';
import { POOL_SIZE } from '../src/database/database-options.js';
import type { DashboardBrowser, Job, Measurement, Plan } from './load.js';
import { runAnnual } from './annual.js';
import { runDeadline } from './deadline.js';
import { DEPLOYED_ENV, DEPLOYED_SUMMARY } from './deployed.js';
import { runProductsBench } from './products.js';
import { runProductFileBench } from './product-file.js';
import { runWriteCpu } from './write-cpu.js';
import {
  BURST_CLIENTS,
  BURST_CONCURRENCY,
  BURST_LINES,
  CSV_LINES,
  DASHBOARD_CLIENTS,
  DASHBOARD_POST_CLIENTS,
  FORM_LINES,
  ME_CLIENTS,
  printYardstick,
  runYardstick,
  WRK_CONNECTIONS,
  WRK_THREADS,
  YARDSTICK_SECONDS,
} from './yardstick.js';

// ---- settings --------------------------------------------------------------------------------

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const MAIN = path.join(ROOT, 'dist/src/main.js');
const SERVE = path.join(ROOT, 'dist/bench/serve.js');
const LOAD = path.join(ROOT, 'dist/bench/load.js');
const RESULTS = path.join(ROOT, 'bench/results');
/** The yardstick: run from the project's root so that it loads the project's own NestJS. */
const MINIMAL_APP = path.resolve(ROOT, process.env.BENCH_MINIMAL_APP || '../shared/bench/minimal-nest.cjs');
const WRK_SCRIPT = path.join(ROOT, 'bench/wrk.lua');
/** BENCH_ONLY=yardstick: the yardstick section and the memory case only (quicker). */
const FULL = !['yardstick', 'dashboard'].includes(process.env.BENCH_ONLY ?? '');
/** BENCH_ONLY=dashboard: the minimal app and the dashboard's cases, and the memory case. */
const DASHBOARD_ONLY = process.env.BENCH_ONLY === 'dashboard';
const WRK_POST_SCRIPT = path.join(ROOT, 'bench/wrk-dashboard-post.lua');

const SERVER_URL = process.env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
const SECONDS = Number(process.env.BENCH_SECONDS || 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS || 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS || 10);
const MEMORY_SECONDS = Number(process.env.BENCH_MEMORY_SECONDS || 60);
const BIG_TABLE = Number(process.env.BENCH_BIG_TABLE || 1_000_000);
const PROFILE = process.env.BENCH_PROFILE === '1';
/** Extra node flags for the measured service only (experiments, e.g. "--max-semi-space-size=4"). */
const SERVICE_NODE_ARGS = (process.env.BENCH_SERVICE_NODE_ARGS ?? '').split(' ').filter(Boolean);
/** Extra node flags for main.js as shipped (diagnosis, e.g. "--inspect=127.0.0.1:9229" to read its memory during the mixed load). */
const MAIN_NODE_ARGS = (process.env.BENCH_MAIN_NODE_ARGS ?? '').split(' ').filter(Boolean);
const WARMUP_SECONDS = 4;
/** The twin and dist/src/main.js serve one case each: a longer warm-up, so that their JIT and heap settle as the measured process's do. */
const SINGLE_CASE_WARMUP_SECONDS = 10;
/** Before each measurement, wait (up to QUIET_MAX_WAIT_MS) until other processes use less than this many cores. */
const QUIET_CORES = 0.5;
const QUIET_MAX_WAIT_MS = 2_000;
/** The 1,000-line POST's target is the latency of one such request: one connection; and, for information, four. */
const BIG_POST_CONNECTIONS = 1;
const BIG_POST_CONNECTIONS_LOADED = 4;
/** Connections of the 60 s mixed load. */
const MIXED_CONNECTIONS = 20;

const ADMIN_TOKEN = `bench-admin-${randomBytes(24).toString('hex')}`;
const ACCEPT_ENCODING = 'gzip, deflate, br';
/** Clients that POST through the app, and clients the raw pg loop writes for (× every period = slots). */
const POST_CLIENTS = 50;
/** The listed client's declarations (10 periods × 100 revisions), alone in the small table. */
const LISTED_REVISIONS = 100;

// ---- small helpers ---------------------------------------------------------------------------

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const log = (message: string) => process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}\n`);

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

function median(values: number[]): number {
  return percentile(
    [...values].sort((a, b) => a - b),
    50,
  );
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Half-years from 2022-S1 (EMB's declarable_from) to the last one that started at least two days ago. */
function declarablePeriods(): string[] {
  const periods: string[] = [];
  const cutoff = Date.now() - 2 * 86_400_000;
  for (let year = 2022; ; year++) {
    for (const half of [1, 2]) {
      if (Date.UTC(year, half === 1 ? 0 : 6, 1) > cutoff) return periods;
      periods.push(`${year}-S${half}`);
    }
  }
}

// ---- databases -------------------------------------------------------------------------------

function databaseUrl(name: string): string {
  const url = new URL(SERVER_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

async function onServer<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: SERVER_URL });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

// ---- service processes -----------------------------------------------------------------------

interface Service {
  name: string;
  url: string;
  child: ChildProcess;
  startupMs: number;
  /** The last lines of stderr, and of stdout unless `countStdoutLines` (see below). */
  output: string[];
  /** Lines written to stdout so far (the request log at `info`). */
  stdoutLines: number;
}

/** The environment without anything the app reads, so that only what we pass counts. */
function cleanEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  const appVariables =
    /^(PORT|HOST|DATABASE_URL|DATA_DIR|ADMIN_TOKEN|PUBLIC_BASE_URL|REFERENCE_BASE_URL|CLIENT_BASE_URL|LOG_LEVEL|MIGRATIONS_RUN|BENCH_SERVE|NODE_OPTIONS|MALLOC_\w+|RATE_LIMIT_\w+|TRUST_PROXY)$/;
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined && !appVariables.test(key)) env[key] = value;
  return env;
}

interface StartOptions {
  /** LOG_LEVEL of the process; `null`: unset, as a user starts it (the default, `info`). Default `warn`. */
  logLevel?: string | null;
  /** Answers 200 when the process is ready (default `/health/ready`). */
  readyPath?: string;
  nodeArgs?: string[];
}

/**
 * Starts `node <script>` and waits for `/health/ready` (or `readyPath`) to answer 200; the time to
 * that is the start-up time. Its stdout is read as a log collector would (a pipe, read to the end):
 * lines are counted, and only the last chunk is kept.
 */
async function startService(name: string, script: string, env: Record<string, string>, options: StartOptions = {}): Promise<Service> {
  const port = await freePort();
  const started = performance.now();
  const logLevel =
    options.logLevel === undefined ? { LOG_LEVEL: 'warn' } : options.logLevel === null ? {} : { LOG_LEVEL: options.logLevel };
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), script], {
    cwd: ROOT,
    env: {
      ...cleanEnv(),
      ...env,
      ...DEPLOYED_ENV,
      PORT: String(port),
      HOST: '127.0.0.1',
      ...logLevel,
      ADMIN_TOKEN,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const service: Service = { name, url: `http://127.0.0.1:${port}`, child, startupMs: 0, output: [], stdoutLines: 0 };
  const keep = (text: string) => {
    service.output.push(...text.split('\n').filter(Boolean));
    if (service.output.length > 200) service.output.splice(0, service.output.length - 200);
  };
  let lastStdout: Buffer | undefined;
  child.stdout!.on('data', (chunk: Buffer) => {
    for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) service.stdoutLines++;
    lastStdout = chunk;
  });
  child.stdout!.on('end', () => lastStdout && keep(lastStdout.toString('utf8')));
  child.stderr!.on('data', (chunk: Buffer) => keep(chunk.toString('utf8')));
  const { url } = service;
  const readyPath = options.readyPath ?? '/health/ready';
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      if (lastStdout) keep(lastStdout.toString('utf8'));
      throw new Error(`${name} stopped before it was ready (${child.exitCode ?? child.signalCode}):\n${service.output.join('\n')}`);
    }
    if (performance.now() - started > 180_000) {
      child.kill('SIGKILL');
      throw new Error(`${name} not ready after 180 s:\n${service.output.join('\n')}`);
    }
    try {
      const res = await fetch(`${url}${readyPath}`);
      await res.arrayBuffer();
      if (res.status === 200) break;
    } catch {
      // not listening yet
    }
    await sleep(20);
  }
  service.startupMs = performance.now() - started;
  log(`${name}: ready in ${Math.round(service.startupMs)} ms (pid ${child.pid}, ${url})`);
  return service;
}

async function stopService(service: Service): Promise<void> {
  if (service.child.exitCode !== null || service.child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => service.child.once('exit', () => resolve()));
  service.child.kill('SIGTERM');
  const timer = setTimeout(() => service.child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}

/** Resident set size of a process, in MB (VmRSS of /proc/<pid>/status). */
async function rssMb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/^VmRSS:\s+(\d+)\s+kB$/m.exec(status)?.[1]);
  return kb / 1024;
}

/** `rssMb`, read at once. */
function rssMbNow(pid: number): number {
  const kb = Number(/^VmRSS:\s+(\d+)\s+kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
  return kb / 1024;
}

// ---- other processes' CPU (the machine is shared) --------------------------------------------

/** USER_HZ: the unit of /proc/stat and /proc/<pid>/stat times on Linux. */
const HZ = 100;

interface CpuSample {
  at: number;
  /** Busy time of every CPU (user, nice, system, irq, softirq) and time stolen by the hypervisor. */
  busy: number;
  steal: number;
  /** CPU time of each process of the bench: ours, and every PostgreSQL process. */
  ours: Map<number, number>;
}

async function machineCpu(): Promise<{ busy: number; steal: number }> {
  const stat = await readFile('/proc/stat', 'utf8');
  const [user, nice, system, , , irq, softirq, steal] = stat.slice(0, stat.indexOf('\n')).trim().split(/\s+/).slice(1).map(Number);
  return { busy: user! + nice! + system! + irq! + softirq!, steal: steal! };
}

async function cpuSample(ourPids: number[]): Promise<CpuSample> {
  const pids = new Set(ourPids);
  const ours = new Map<number, number>();
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const text = await readFile(`/proc/${entry}/stat`, 'utf8');
      const close = text.lastIndexOf(')');
      if (!pids.has(Number(entry)) && text.slice(text.indexOf('(') + 1, close) !== 'postgres') continue;
      const fields = text.slice(close + 2).split(' '); // fields[0] is field 3 (state); utime and stime are fields 14 and 15
      ours.set(Number(entry), Number(fields[11]) + Number(fields[12]));
    } catch {
      // the process has exited
    }
  }
  return { at: performance.now(), ...(await machineCpu()), ours };
}

/** Where the CPU went between two samples: the measured service, PostgreSQL, the load generator (ms), others (cores). */
interface CpuUse {
  foreignCores: number;
  stealCores: number;
  cpuMs: { service: number; postgres: number; loader: number };
}

/**
 * `postgres`: the server processes serving the bench's databases, and the server's own background
 * processes (checkpointer, WAL writer, autovacuum…); other sessions' backends count as others.
 */
function cpuUse(a: CpuSample, b: CpuSample, pids: { service?: number; loader: number; bench: number[]; postgres: Set<number> }): CpuUse {
  const seconds = (b.at - a.at) / 1000;
  const delta = (pid: number) => ((b.ours.get(pid) ?? 0) - (a.ours.get(pid) ?? 0)) * (1000 / HZ);
  let ours = 0;
  let postgres = 0;
  for (const pid of b.ours.keys()) {
    if (pids.postgres.has(pid)) postgres += delta(pid);
    else if (pids.bench.includes(pid)) ours += delta(pid);
  }
  ours += postgres;
  return {
    foreignCores: Math.max(0, ((b.busy - a.busy) * (1000 / HZ) - ours) / 1000 / seconds),
    stealCores: (b.steal - a.steal) / HZ / seconds,
    cpuMs: { service: pids.service === undefined ? 0 : delta(pids.service), postgres, loader: delta(pids.loader) },
  };
}

/** Waits until the machine is quiet (the bench's own processes are idle between measurements). */
async function waitForQuiet(): Promise<number> {
  const started = performance.now();
  for (;;) {
    const a = await machineCpu();
    await sleep(500);
    const b = await machineCpu();
    if ((b.busy - a.busy) / HZ / 0.5 < QUIET_CORES || performance.now() - started > QUIET_MAX_WAIT_MS) return performance.now() - started;
  }
}

// ---- HTTP set-up through the admin API -------------------------------------------------------

async function call(
  base: string,
  method: string,
  url: string,
  token: string,
  body?: unknown,
): Promise<{ status: number; json: unknown; headers: Headers }> {
  const res = await fetch(`${base}${url}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : null, headers: res.headers };
}

async function expectStatus(promise: Promise<{ status: number; json: unknown }>, status: number, what: string) {
  const res = await promise;
  if (res.status !== status) throw new Error(`${what}: expected ${status}, got ${res.status}: ${JSON.stringify(res.json)}`);
  return res.json as Record<string, unknown>;
}

/** Confirmed clients (plan business, stream EMB) with `tokensEach` tokens each, created 16 at a time. */
async function createClients(service: Service, ids: string[], tokensEach: number): Promise<Map<string, string[]>> {
  const tokens = new Map<string, string[]>();
  const queue = [...ids];
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
        const profile = {
          client_id: id,
          email: `${id}@example.fr`,
          company: `${id} SAS`,
          country: 'FR',
          plan: 'business',
          streams: ['EMB'],
          idus: ['FR000000_01ABCD'],
        };
        await expectStatus(call(service.url, 'POST', '/api/v1/admin/clients', ADMIN_TOKEN, profile), 201, `create ${id}`);
        await expectStatus(call(service.url, 'POST', `/api/v1/admin/clients/${id}/confirm`, ADMIN_TOKEN, {}), 200, `confirm ${id}`);
        const own: string[] = [];
        for (let i = 0; i < tokensEach; i++) {
          const issued = await expectStatus(
            call(service.url, 'POST', `/api/v1/admin/clients/${id}/tokens`, ADMIN_TOKEN, { name: `bench ${i}` }),
            201,
            `token for ${id}`,
          );
          own.push(issued.token as string);
        }
        tokens.set(id, own);
      }
    }),
  );
  return tokens;
}

/**
 * Signed-in dashboard sessions of `ids` (one each), as a browser holds them: each client first
 * files one declaration through the API (its declarations page lists it), then gets a session
 * written straight to the table (what signing in writes: the SHA-256 of a random secret) and its
 * cookie. Returns the `Cookie` header of each.
 */
async function dashboardSessions(service: Service, url: string, ids: string[], tokens: string[], period: string): Promise<string[]> {
  const lines = [
    { stream: 'EMB', material: 'glass', unit: 'kg', quantity: 1200.5 },
    { stream: 'EMB', material: 'glass', unit: 'uvc', quantity: 4800 },
  ];
  const queue = tokens.map((token, i) => ({ token, i }));
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
        await expectStatus(
          call(service.url, 'POST', '/api/v1/declarations', next.token, { period, lines }),
          201,
          `declaration of ${ids[next.i]}`,
        );
      }
    }),
  );
  const secrets = ids.map(() => generateToken(SESSION_PREFIX));
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(
      `INSERT INTO dashboard_sessions (client_id, session_hash, expires_at) SELECT id, hash, now() + interval '12 hours' FROM unnest($1::text[], $2::text[]) AS s (id, hash)`,
      [ids, secrets.map(hashToken)],
    );
  } finally {
    await client.end();
  }
  return secrets.map((secret) => `epr_session=${secret}`);
}

/**
 * Signed-in browsers of `ids` for the dashboard's POSTs: a session each (written as
 * signing in writes it, see above), then the declaration form's page, read as a browser reads it,
 * for the CSRF cookie and the form's token. Returns each one's `Cookie` header and token.
 */
async function dashboardBrowsers(service: Service, url: string, ids: string[]): Promise<DashboardBrowser[]> {
  const secrets = ids.map(() => generateToken(SESSION_PREFIX));
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(
      `INSERT INTO dashboard_sessions (client_id, session_hash, expires_at) SELECT id, hash, now() + interval '12 hours' FROM unnest($1::text[], $2::text[]) AS s (id, hash)`,
      [ids, secrets.map(hashToken)],
    );
  } finally {
    await client.end();
  }
  const browsers: DashboardBrowser[] = new Array(ids.length);
  const queue = secrets.map((secret, i) => ({ secret, i }));
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
        const session = `epr_session=${next.secret}`;
        const res = await fetch(`${service.url}/dashboard/declarations/new`, { headers: { cookie: session } });
        const html = await res.text();
        const csrf = /name="_csrf" value="([^"]+)"/.exec(html)?.[1];
        if (res.status !== 200 || !csrf) throw new Error(`the form page of ${ids[next.i]}: ${res.status}, no CSRF token`);
        const cookies = res.headers.getSetCookie().map((c) => c.slice(0, c.indexOf(';')));
        browsers[next.i] = { cookie: [session, ...cookies].join('; '), csrf };
      }
    }),
  );
  return browsers;
}

/** Confirmed clients written straight to the table (the raw pg loops and the large table's fillers need no token). */
async function insertClients(url: string, ids: string[]): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(
      `INSERT INTO clients (client_id, confirmed_email, confirmed_company, confirmed_country, confirmed_plan, confirmed_streams, confirmed_at)
       SELECT id, id || '@example.fr', id || ' SAS', 'FR', 'business', '{EMB}', now() FROM unnest($1::text[]) AS id`,
      [ids],
    );
  } finally {
    await client.end();
  }
}

// ---- the large table -------------------------------------------------------------------------

/**
 * Declarations by SQL, valid under every constraint of the tables: for each client and period,
 * revisions 1…R chained by `supersedes` (the last one `current`), a unique receipt, and lines
 * (`listedLines` for the first client, the listed one, 1 for the others). Rows go in key order
 * (ids count up), the table's plain indexes are rebuilt afterwards from their own definitions,
 * and the foreign keys are checked by two anti-joins at the end instead of row by row (a row-by-row
 * fill of a million rows takes minutes on these machines). The first client gets the same rows
 * whatever the other clients, so the listed client is identical in the small and large tables.
 */
async function fillDeclarations(
  url: string,
  clientIds: string[],
  periods: string[],
  revisions: number,
  listedLines: number,
): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const uuid = (seq: string) => `('b' || lpad(to_hex(${seq}), 31, '0'))::uuid`;
  try {
    await client.query('BEGIN');
    // Foreign-key triggers off for this transaction (superuser); checked below instead.
    await client.query('SET LOCAL session_replication_role = replica');
    const { rows: plainIndexes } = await client.query<{ name: string; definition: string }>(
      `SELECT i.indexname AS name, i.indexdef AS definition FROM pg_indexes i
        WHERE i.schemaname = current_schema() AND i.tablename = 'declarations'
          AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = (quote_ident(i.schemaname) || '.' || quote_ident(i.indexname))::regclass)`,
    );
    for (const index of plainIndexes) await client.query(`DROP INDEX ${index.name}`);
    await client.query(
      `INSERT INTO declarations (id, client_id, period, revision, status, supersedes, submitted_at, receipt, content_hash)
       SELECT ${uuid('s.seq')}, s.client_id, s.period, s.r,
              CASE WHEN s.r = $3 THEN 'current' ELSE 'superseded' END,
              CASE WHEN s.r = 1 THEN NULL ELSE ${uuid('s.seq - 1')} END,
              make_timestamptz(substr(s.period, 1, 4)::int, CASE WHEN right(s.period, 1) = '1' THEN 1 ELSE 7 END, 2, 8, 0, 0, 'UTC')
                + s.r * interval '10 minutes' + s.n * interval '1 second',
              'EPR-' || replace(s.period, '-', '') || '-R' || s.r || '-B' || upper(lpad(to_hex(s.seq), 7, '0')),
              md5('content/' || s.seq)
         FROM (SELECT c.client_id, c.n, p.period, r, ((c.n - 1) * $4 + (p.i - 1)) * $3 + r AS seq
                 FROM unnest($1::text[]) WITH ORDINALITY AS c (client_id, n)
                CROSS JOIN unnest($2::text[]) WITH ORDINALITY AS p (period, i)
                CROSS JOIN generate_series(1, $3) AS r) AS s
        ORDER BY s.seq`,
      [clientIds, periods, revisions, periods.length],
    );
    await client.query(
      `INSERT INTO declaration_lines (declaration_id, position, stream, material, material_code, unit, quantity)
       SELECT d.id, k, 'EMB', m[k + 1], m[k + 1], 'kg', (d.revision * 1000 + k)::numeric / 8
         FROM declarations d
        CROSS JOIN LATERAL generate_series(0, CASE WHEN d.client_id = $1 THEN $2 - 1 ELSE 0 END) AS k
        CROSS JOIN (SELECT ARRAY['glass', 'paper_cardboard', 'plastic_pet', 'steel', 'aluminium', 'wood'] AS m) AS materials
        ORDER BY d.id, k`,
      [clientIds[0], listedLines],
    );
    for (const index of plainIndexes) await client.query(index.definition);
    const { rows: orphans } = await client.query<{ what: string; n: number }>(
      `SELECT 'declarations without their client' AS what, count(*)::int AS n FROM declarations d
        WHERE NOT EXISTS (SELECT 1 FROM clients c WHERE c.client_id = d.client_id)
       UNION ALL
       SELECT 'declarations superseding nothing', count(*)::int FROM declarations d
        WHERE d.supersedes IS NOT NULL AND NOT EXISTS (SELECT 1 FROM declarations p WHERE p.id = d.supersedes)
       UNION ALL
       SELECT 'lines without their declaration', count(*)::int FROM declaration_lines l
        WHERE NOT EXISTS (SELECT 1 FROM declarations d WHERE d.id = l.declaration_id)`,
    );
    const broken = orphans.filter((o) => o.n > 0);
    if (broken.length) throw new Error(`fill broke foreign keys: ${broken.map((o) => `${o.n} ${o.what}`).join(', ')}`);
    await client.query('COMMIT');
    await client.query('VACUUM (ANALYZE) declarations');
    await client.query('VACUUM (ANALYZE) declaration_lines');
    await client.query('CHECKPOINT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    await client.end();
  }
}

// ---- the load process ------------------------------------------------------------------------

class Loader {
  readonly child = fork(LOAD, [], { execArgv: [], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  private next = 0;
  private readonly waiting = new Map<number, { resolve: (m: Measurement) => void; reject: (e: Error) => void }>();

  constructor() {
    this.child.on('message', (message: { id: number; result?: Measurement; error?: string }) => {
      const pending = this.waiting.get(message.id);
      this.waiting.delete(message.id);
      if (message.error !== undefined) pending?.reject(new Error(message.error));
      else pending?.resolve(message.result!);
    });
    this.child.on('exit', (code) => {
      for (const pending of this.waiting.values()) pending.reject(new Error(`load process exited (${code})`));
    });
  }

  run(job: Job): Promise<Measurement> {
    const id = this.next++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.child.send({ id, job });
    });
  }

  stop(): void {
    this.child.disconnect();
  }
}

// ---- cases -----------------------------------------------------------------------------------

interface Case {
  id: string;
  label: string;
  /** The statuses every response must have; anything else marks the case INVALID. */
  expect: string[];
  job: (seconds: number) => Job;
  /** Around the measurement (not measured). */
  before?: () => Promise<void>;
  after?: () => Promise<void>;
}

/** A measurement with the CPU other processes of the machine used meanwhile. */
type Sample = Measurement & CpuUse & { waitedMs: number };

interface Row {
  id: string;
  label: string;
  rounds: {
    rps: number;
    p50: number;
    p99: number;
    count: number;
    statuses: Record<string, number>;
    errors: number;
    foreign_cores: number;
    steal_cores: number;
    cpu_ms: CpuUse['cpuMs'];
  }[];
  /** Mean cores used by other processes of the machine during the measurements. */
  foreignCores: number;
  /** CPU time per request (ms), over every round: the measured service, PostgreSQL, the load generator. */
  cpuPerRequest: { service: number; postgres: number; loader: number };
  rps: number;
  p50: number;
  p99: number;
  /** Median of the per-round ratios (each case round with the baseline of the same round). */
  ratio?: number;
  ratioTo?: string;
  target?: string;
  pass?: boolean;
  invalid?: string;
  note?: string;
}

async function main(): Promise<void> {
  // Products: the derived declaration against one GROUP BY by psql, alone (bench/products.ts).
  if (process.env.BENCH_ONLY === 'products') return runProductsBench();
  // Her per-product file of 1,000 products (5,000 rows), .xlsx and CSV, to its check page (bench/product-file.ts).
  if (process.env.BENCH_ONLY === 'product-file') return runProductFileBench();
  // The deadline hour: producers filing through the dashboard while ERPs post (bench/deadline.ts).
  if (process.env.BENCH_ONLY === 'deadline') return runDeadline();
  // The write path's CPU per declaration, 200 and 20 lines, for before/after comparisons (bench/write-cpu.ts).
  if (process.env.BENCH_ONLY === 'write-cpu') return runWriteCpu();
  if (process.env.BENCH_ONLY === 'annual') {
    // The annual export case alone (bench/annual.ts): service vs psql COPY in the same run.
    await runAnnual();
    return;
  }
  const began = performance.now();
  for (const file of [MAIN, SERVE, LOAD, MINIMAL_APP, WRK_SCRIPT, WRK_POST_SCRIPT]) {
    if (!existsSync(file)) throw new Error(`${path.relative(ROOT, file)} is missing: run "npm run build" first (npm run bench does).`);
  }
  await mkdir(RESULTS, { recursive: true });
  const periods = declarablePeriods();
  const tag = `bench_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  const mainDb = tag;
  const bigDb = `${tag}_big`;
  const services: Service[] = [];
  const loader = new Loader();
  const serverVersion = await onServer(
    async (c) => (await c.query<{ server_version: string }>('SHOW server_version')).rows[0]!.server_version,
  );
  const startup: Record<string, number> = {};
  const monitor = new pg.Client({ connectionString: SERVER_URL });
  await monitor.connect();

  try {
    // ---- start-up times (one at a time, nothing else running) ----
    if (FULL) {
      log('start-up on the embedded database (temp DATA_DIR)…');
      const dataDir = await mkdtemp(path.join(os.tmpdir(), 'epr-bench-'));
      try {
        for (const phase of ['fresh', 'restart'] as const) {
          const embedded = await startService(`main.js embedded (${phase})`, MAIN, { DATA_DIR: dataDir });
          startup[`embedded_${phase}_ms`] = embedded.startupMs;
          await stopService(embedded);
        }
      } finally {
        await rm(dataDir, { recursive: true, force: true });
      }
    }

    await onServer(async (c) => {
      await c.query(`CREATE DATABASE ${mainDb}`);
      await c.query(`CREATE DATABASE ${bigDb}`);
    });
    const mainUrl = databaseUrl(mainDb);
    const bigUrl = databaseUrl(bigDb);

    const fresh = await startService('main.js server (fresh database: migrations)', MAIN, { DATABASE_URL: mainUrl });
    startup.server_fresh_ms = fresh.startupMs;
    await stopService(fresh);
    // As a user starts it: LOG_LEVEL unset (info: one line per request, read from its stdout), default limits.
    const cpuProfile = PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${RESULTS}`] : [];
    const prod = await startService(
      'main.js server as shipped (restart: migrations already applied; LOG_LEVEL unset)',
      MAIN,
      { DATABASE_URL: mainUrl },
      { logLevel: null, nodeArgs: [...cpuProfile, ...MAIN_NODE_ARGS] },
    );
    services.push(prod);
    const minimal = await startService('minimal NestJS app (the yardstick)', MINIMAL_APP, {}, { readyPath: '/api/v1/hello' });
    services.push(minimal);
    startup.server_restart_ms = prod.startupMs;
    startup.main_idle_rss_mb = await rssMb(prod.child.pid!);
    const serve = (url: string, name: string, nodeArgs: string[] = []) => startService(name, SERVE, { DATABASE_URL: url }, { nodeArgs });
    const profileArgs = [...cpuProfile, ...SERVICE_NODE_ARGS];
    const app = await serve(mainUrl, 'service (bench entry, raised limits)', profileArgs);
    services.push(app);
    // BENCH_ONLY=dashboard: neither the twin nor the large table.
    const twin = DASHBOARD_ONLY ? undefined : await serve(mainUrl, 'twin (serves only the baseline route)');
    if (twin) services.push(twin);
    const big = DASHBOARD_ONLY ? undefined : await serve(bigUrl, 'service on the large table (fresh database: migrations)');
    if (big) services.push(big);
    if (big) startup.server_fresh_2_ms = big.startupMs;

    // ---- data ----
    log('creating clients and tokens through the admin API…');
    const postIds = Array.from({ length: POST_CLIENTS }, (_, i) => `bench-post-${String(i).padStart(3, '0')}`);
    const rawIds = Array.from({ length: POST_CLIENTS }, (_, i) => `bench-raw-${String(i).padStart(3, '0')}`);
    const postTokens = [...(await createClients(app, postIds, 1)).values()].flat();
    await createClients(app, rawIds, 0);
    // The clients of main.js at its default limits (per client): the burst, /me, POSTs and the mixed load spread over them.
    // BENCH_ONLY=dashboard: no burst, so only the dashboard's clients (its pages' and its POSTs').
    const poolIds = Array.from(
      { length: DASHBOARD_ONLY ? DASHBOARD_CLIENTS + DASHBOARD_POST_CLIENTS : BURST_CLIENTS },
      (_, i) => `bench-pool-${String(i).padStart(5, '0')}`,
    );
    const poolStarted = performance.now();
    const poolTokens = [...(await createClients(app, poolIds, 1)).values()].flat();
    log(`${poolTokens.length} clients with a token each in ${((performance.now() - poolStarted) / 1000).toFixed(1)} s`);
    // /me's own clients: a new set for each measurement, none used by another case (their quota is whole).
    const meIds = DASHBOARD_ONLY
      ? []
      : Array.from({ length: ME_CLIENTS * (ROUNDS + 1) }, (_, i) => `bench-me-${String(i).padStart(5, '0')}`);
    const meTokens = [...(await createClients(app, meIds, 1)).values()].flat();
    // The burst's and the 20-line POST case's own clients: no other case spends their quotas (60 writes, 600
    // requests a minute each) in the minute before them. BENCH_ONLY=dashboard has neither.
    const burstIds = DASHBOARD_ONLY ? [] : Array.from({ length: BURST_CLIENTS }, (_, i) => `bench-burst-${String(i).padStart(5, '0')}`);
    const burstTokens = [...(await createClients(app, burstIds, 1)).values()].flat();
    const rawBurstIds = Array.from({ length: BURST_CLIENTS }, (_, i) => `bench-rawburst-${String(i).padStart(5, '0')}`);
    await insertClients(mainUrl, rawBurstIds);
    const [listToken] = (await createClients(app, ['bench-list'], 1)).get('bench-list')!;
    const [bigListToken] = big ? (await createClients(big, ['bench-list'], 1)).get('bench-list')! : [];
    if (POST_CLIENTS % CONNECTIONS !== 0) throw new Error('POST_CLIENTS must be a multiple of BENCH_CONNECTIONS (raw loop slots)');

    const listedCount = periods.length * LISTED_REVISIONS;
    const otherClients = Math.max(0, Math.round(BIG_TABLE / listedCount) - 1);
    log(`filling: ${listedCount} declarations in the small table${big ? `, ${(otherClients + 1) * listedCount} in the large one` : ''}…`);
    const fillStarted = performance.now();
    await fillDeclarations(mainUrl, ['bench-list'], periods, LISTED_REVISIONS, 2);
    if (big) {
      const fillers = Array.from({ length: otherClients }, (_, i) => `bench-fill-${String(i).padStart(5, '0')}`);
      await insertClients(bigUrl, fillers);
      await fillDeclarations(bigUrl, ['bench-list', ...fillers], periods, LISTED_REVISIONS, 2);
    }
    const fillSeconds = (performance.now() - fillStarted) / 1000;
    const tableSizes = {
      small: await onDb(mainUrl, `SELECT count(*)::int AS n FROM declarations`),
      large: big ? await onDb(bigUrl, `SELECT count(*)::int AS n FROM declarations`) : 0,
      large_lines: big ? await onDb(bigUrl, `SELECT count(*)::int AS n FROM declaration_lines`) : 0,
    };
    log(`filled in ${fillSeconds.toFixed(1)} s: ${JSON.stringify(tableSizes)}`);

    const etag = (await fetch(`${app.url}/api/v1/streams.json`, { headers: { 'accept-encoding': ACCEPT_ENCODING } })).headers.get('etag');
    if (!etag) throw new Error('streams.json has no ETag');

    // ---- the cases ----
    const http =
      (service: Service, plan: Plan, connections = CONNECTIONS) =>
      (seconds: number): Job => ({ kind: 'http', url: service.url, connections, seconds, plan });
    const me = (tokens: string[]): Plan => ({ kind: 'get', path: '/api/v1/me', tokens });
    const list = (token: string): Plan => ({ kind: 'get', path: '/api/v1/declarations', tokens: [token] });
    const cases: Record<string, Case> = {
      baseline: {
        id: 'baseline',
        label: 'GET /bench/baseline (twin app, constant)',
        expect: ['200'],
        job: http(twin!, { kind: 'get', path: '/bench/baseline' }),
      },
      streams: {
        id: 'streams',
        label: 'GET /api/v1/streams.json',
        expect: ['200'],
        job: http(app, { kind: 'get', path: '/api/v1/streams.json', headers: { 'accept-encoding': ACCEPT_ENCODING } }),
      },
      streams304: {
        id: 'streams304',
        label: 'GET /api/v1/streams.json, If-None-Match → 304',
        expect: ['304'],
        job: http(app, {
          kind: 'get',
          path: '/api/v1/streams.json',
          headers: { 'accept-encoding': ACCEPT_ENCODING, 'if-none-match': etag },
        }),
      },
      me: { id: 'me', label: 'GET /api/v1/me (limits raised)', expect: ['200'], job: http(app, me(postTokens)) },
      meDefault: {
        id: 'meDefault',
        label: 'GET /api/v1/me (main.js as shipped: info log, default limits)',
        expect: ['200'],
        job: http(prod, me(poolTokens)),
      },
      meNoLimiter: {
        id: 'meNoLimiter',
        label: 'GET /api/v1/me (limiter stubbed)',
        expect: ['200'],
        job: http(app, me(postTokens)),
        before: () => expectStatus(call(app.url, 'POST', '/bench/limiter/off', ADMIN_TOKEN), 204, 'limiter off').then(() => {}),
        after: () => expectStatus(call(app.url, 'POST', '/bench/limiter/on', ADMIN_TOKEN), 204, 'limiter on').then(() => {}),
      },
      baselineSame: {
        id: 'baselineSame',
        label: 'GET /bench/baseline (same process as the cases)',
        expect: ['200'],
        job: http(app, { kind: 'get', path: '/bench/baseline' }),
      },
      post20: {
        id: 'post20',
        label: 'POST /api/v1/declarations, 20 lines',
        expect: ['201'],
        job: http(app, { kind: 'post', tokens: postTokens, periods, lines: 20 }),
      },
      raw20: {
        id: 'raw20',
        label: 'raw pg transaction, same rows (20 lines)',
        expect: ['committed'],
        job: (seconds) => ({ kind: 'raw', databaseUrl: mainUrl, connections: CONNECTIONS, seconds, clientIds: rawIds, periods, lines: 20 }),
      },
      post1000: {
        id: 'post1000',
        label: `POST /api/v1/declarations, 1,000 lines (${BIG_POST_CONNECTIONS} conn.)`,
        expect: ['201'],
        job: http(app, { kind: 'post', tokens: postTokens, periods, lines: 1000 }, BIG_POST_CONNECTIONS),
      },
      post1000loaded: {
        id: 'post1000loaded',
        label: `POST /api/v1/declarations, 1,000 lines (${BIG_POST_CONNECTIONS_LOADED} conn.)`,
        expect: ['201'],
        job: http(app, { kind: 'post', tokens: postTokens, periods, lines: 1000 }, BIG_POST_CONNECTIONS_LOADED),
      },
      list1k: {
        id: 'list1k',
        label: `GET /api/v1/declarations, ${tableSizes.small.toLocaleString('en')} in table`,
        expect: ['200'],
        job: http(app, list(listToken!)),
      },
      list1M: {
        id: 'list1M',
        label: `GET /api/v1/declarations, ${tableSizes.large.toLocaleString('en')} in table`,
        expect: ['200'],
        job: http(big!, list(bigListToken!)),
      },
    };
    const samples = new Map<string, Sample[]>();
    const ourPids = () => [process.pid, loader.child.pid!, ...services.map((s) => s.child.pid!)];
    const benchBackends = async () =>
      (
        await monitor.query<{ pid: number }>(
          `SELECT pid FROM pg_stat_activity WHERE datname = ANY($1) OR backend_type <> 'client backend'`,
          [[mainDb, bigDb]],
        )
      ).rows.map((r) => r.pid);
    const measured = async (job: Job): Promise<Sample> => {
      const waitedMs = await waitForQuiet();
      const target = job.kind === 'http' ? services.find((s) => s.url === job.url)?.child.pid : undefined;
      const postgres = new Set(await benchBackends());
      const before = await cpuSample(ourPids());
      const m = await loader.run(job);
      const after = await cpuSample(ourPids());
      for (const pid of await benchBackends()) postgres.add(pid);
      return { ...m, ...cpuUse(before, after, { service: target, loader: loader.child.pid!, bench: ourPids(), postgres }), waitedMs };
    };
    const measure = async (id: string, seconds = SECONDS) => {
      const c = cases[id]!;
      await c.before?.();
      const m = await measured(c.job(seconds));
      await c.after?.();
      if (seconds === SECONDS) samples.set(id, [...(samples.get(id) ?? []), m]);
      log(
        `${seconds === SECONDS ? '' : 'warm-up '}${c.label}: ${Math.round(m.rps)} req/s, statuses ${JSON.stringify(m.statuses)}${m.errors ? `, ${m.errors} errors` : ''}` +
          `; others' CPU ${m.foreignCores.toFixed(2)} cores, steal ${m.stealCores.toFixed(2)}${m.waitedMs > 600 ? `, waited ${(m.waitedMs / 1000).toFixed(1)} s for quiet` : ''}`,
      );
      return m;
    };

    // Listing first, while the small table holds only the listed client's declarations.
    if (FULL) {
      log('listing: small vs large table…');
      for (const id of ['list1k', 'list1M']) await measure(id, WARMUP_SECONDS);
      for (let round = 0; round < ROUNDS; round++) {
        for (const id of round % 2 === 0 ? ['list1k', 'list1M'] : ['list1M', 'list1k']) await measure(id);
      }
    }

    // ---- the yardstick: main.js as shipped vs the minimal NestJS app; the deadline burst ----
    const burstPeriod = periods[periods.length - 1]!;
    const sessionCookies = await dashboardSessions(
      prod,
      mainUrl,
      poolIds.slice(0, DASHBOARD_CLIENTS),
      poolTokens.slice(0, DASHBOARD_CLIENTS),
      periods[0]!,
    );
    // The dashboard's POSTs: other clients than the pages' (whose pages then stay the same from round to round).
    const browsersStarted = performance.now();
    const browsers = await dashboardBrowsers(prod, mainUrl, poolIds.slice(DASHBOARD_CLIENTS, DASHBOARD_CLIENTS + DASHBOARD_POST_CLIENTS));
    log(
      `${browsers.length} signed-in browsers with their form's CSRF token in ${((performance.now() - browsersStarted) / 1000).toFixed(1)} s`,
    );
    const dashboardPeriods = periods.filter((p) => p !== burstPeriod);
    const yard = await runYardstick({
      minimal: { name: minimal.name, url: minimal.url, pid: minimal.child.pid! },
      shipped: { name: prod.name, url: prod.url, pid: prod.child.pid! },
      twin: FULL && twin ? { name: twin.name, url: twin.url, pid: twin.child.pid! } : undefined,
      only: DASHBOARD_ONLY ? 'dashboard' : undefined,
      poolTokens,
      meTokens,
      burstTokens,
      sessionCookies,
      browsers,
      dashboardPeriods,
      postScript: WRK_POST_SCRIPT,
      rawIds,
      rawBurstIds,
      databaseUrl: mainUrl,
      periods,
      burstPeriod,
      rounds: ROUNDS,
      servicePoolSize: POOL_SIZE,
      postSeconds: SECONDS,
      postConnections: CONNECTIONS,
      script: WRK_SCRIPT,
      acceptEncoding: ACCEPT_ENCODING,
      waitForQuiet,
      measured,
      // Each case's line with main.js's RSS once it is measured: which case grows what the memory case starts from.
      log: (line: string) => log(`${line} [main.js RSS ${rssMbNow(prod.child.pid!).toFixed(0)} MB]`),
    });
    const prodLogLines = prod.stdoutLines;

    const baselineRounds: number[] = [];
    if (FULL) {
      const roundOrder = [
        'baseline',
        'streams',
        'streams304',
        'me',
        'meNoLimiter',
        'meDefault',
        'baseline',
        'baselineSame',
        'post20',
        'raw20',
        'post1000',
        'post1000loaded',
      ];
      log('warm-up…');
      for (const id of new Set(roundOrder))
        await measure(id, ['baseline', 'meDefault'].includes(id) ? SINGLE_CASE_WARMUP_SECONDS : WARMUP_SECONDS);
      for (let round = 0; round < ROUNDS; round++) {
        log(`round ${round + 1}/${ROUNDS}`);
        const before = samples.get('baseline')?.length ?? 0;
        const order = round % 2 === 0 ? roundOrder : roundOrder.map((id) => (id === 'post20' ? 'raw20' : id === 'raw20' ? 'post20' : id));
        for (const id of order) await measure(id);
        baselineRounds.push(
          samples
            .get('baseline')!
            .slice(before)
            .reduce((sum, m, _, all) => sum + m.rps / all.length, 0),
        );
      }
    }

    // ---- memory under mixed load: main.js as shipped (info log, default limits per client) ----
    log(`memory: ${MEMORY_SECONDS} s of mixed load on main.js as shipped (pid ${prod.child.pid})…`);
    const rss: { t: number; mb: number }[] = [];
    const rssBefore = await rssMb(prod.child.pid!);
    const mixedStarted = performance.now();
    const sampler = setInterval(() => {
      rssMb(prod.child.pid!).then(
        (mb) => rss.push({ t: (performance.now() - mixedStarted) / 1000, mb }),
        () => {},
      );
    }, 1000);
    const logLinesBeforeMixed = prod.stdoutLines;
    const mixed = await measured({
      kind: 'http',
      url: prod.url,
      connections: MIXED_CONNECTIONS,
      seconds: MEMORY_SECONDS,
      plan: {
        kind: 'mixed',
        tokens: poolTokens,
        periods,
        etag,
        acceptEncoding: ACCEPT_ENCODING,
        dashboard: { sessionCookies, browsers, periods: dashboardPeriods },
      },
    });
    clearInterval(sampler);
    await sleep(1500); // the last buffered log lines
    const mixedLogLines = prod.stdoutLines - logLinesBeforeMixed;
    const rssAfter = await rssMb(prod.child.pid!);
    const half = MEMORY_SECONDS / 2;
    const firstWindow = Math.max(...rss.filter((s) => s.t <= half).map((s) => s.mb));
    const secondWindow = Math.max(...rss.filter((s) => s.t > half).map((s) => s.mb));
    const growth = secondWindow - firstWindow;
    const memory = {
      process: 'dist/src/main.js, LOG_LEVEL unset, default limits',
      rss_before_mb: rssBefore,
      rss_max_first_window_mb: firstWindow,
      rss_max_second_window_mb: secondWindow,
      rss_after_mb: rssAfter,
      growth_mb: growth,
      log_lines: mixedLogLines,
      mixed: {
        rps: mixed.rps,
        count: mixed.count,
        statuses: mixed.statuses,
        errors: mixed.errors,
        foreign_cores: mixed.foreignCores,
        ...latencyStats(mixed.latencies),
      },
      samples: rss.map((s) => ({ t: Math.round(s.t), mb: Math.round(s.mb * 10) / 10 })),
    };
    log(`log lines written by main.js during the mixed load: ${mixedLogLines} for ${mixed.count} responses`);
    log(
      `RSS ${rssBefore.toFixed(0)} → max ${firstWindow.toFixed(0)} (0–${half} s) → max ${secondWindow.toFixed(0)} (${half}–${MEMORY_SECONDS} s) MB; ${Math.round(mixed.rps)} req/s ${JSON.stringify(mixed.statuses)}`,
    );

    // ---- results ----
    const memoryPass = secondWindow <= 250 && growth <= Math.max(5, firstWindow * 0.05);
    const memoryLine =
      `RSS of main.js as shipped during ${MEMORY_SECONDS} s of mixed load (${MIXED_CONNECTIONS} conn., ${Math.round(mixed.rps)} req/s, ${JSON.stringify(mixed.statuses)}): ` +
      `max ${firstWindow.toFixed(0)} MB (first ${half} s), ${secondWindow.toFixed(0)} MB (next ${half} s), growth ${growth >= 0 ? '+' : ''}${growth.toFixed(1)} MB — ` +
      `target ≤ 250 MB, no growth (≤ 5 %): ${memoryPass ? 'PASS' : 'MISS'} (idle main.js after start: ${startup.main_idle_rss_mb!.toFixed(0)} MB)`;
    const machine = `Machine: nproc ${os.cpus().length}, ${os.cpus()[0]?.model.trim()}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, shared; Node ${process.version}; PostgreSQL ${serverVersion} on 127.0.0.1.`;
    const yardNotes = [
      machine,
      `main.js as a user starts it: ${DEPLOYED_SUMMARY} (as the Dockerfile), LOG_LEVEL unset (info: one JSON line per request on stdout, read from a pipe), default rate limits; ${prodLogLines} log lines by the end of the yardstick section, ${mixedLogLines} for the ${mixed.count} responses of the mixed load.`,
      `The minimal app: ${path.relative(ROOT, MINIMAL_APP)} run from the project's root (the project's NestJS, same settings). GET cases: wrk ${WRK_THREADS} thread × ${WRK_CONNECTIONS} connections, ${YARDSTICK_SECONDS} s, a warm-up run then ${ROUNDS} rounds interleaved with the minimal app; ratio = median of per-round ratios; p50/p99 = median of the rounds' wrk percentiles. streams.json with Accept-Encoding: ${ACCEPT_ENCODING}.`,
      `Dashboard: the overview and the list rotate over the session cookies of ${sessionCookies.length} clients (one declaration each); the form POST (${FORM_LINES} lines) and the CSV upload (${CSV_LINES} lines, multipart) over ${browsers.length} other clients' signed-in browsers (session and CSRF cookies, the form's token), each request new content for a period other than ${burstPeriod} (bench/wrk-dashboard-post.lua, wrk as for the GET cases; a POST counts as answered only by the check page with its lines sealed in it: filing from the dashboard goes through that page). The mixed load adds the same four dashboard requests.`,
      ...(DASHBOARD_ONLY
        ? []
        : [
            `/me: each measurement rotates over the tokens of ${ME_CLIENTS} clients of its own, used by no other case (limits are per client: 600/min); a measurement with any answer other than 200 is INVALID. Mixed load over ${poolTokens.length} clients (60 writes/min each); the burst, then the 20-line POST, over ${burstTokens.length} clients of their own (no other case spends their quotas).`,
            `POST 20 lines: autocannon (bench/load.ts), ${CONNECTIONS} connections, ${SECONDS} s × ${ROUNDS} rounds interleaved with the raw pg loop (${CONNECTIONS} connections, the app's own SQL, one transaction per declaration). Deadline burst: autocannon, exactly ${burstTokens.length} POSTs of ${BURST_LINES} lines (one per client, the first of period ${burstPeriod}), ${BURST_CONCURRENCY} in flight; raw pg: the same rows for ${rawBurstIds.length} other clients, ${BURST_CONCURRENCY} connections.`,
          ]),
      'CPU ms/req: CPU time of the measured process per response (from /proc); machine cores: what the whole machine used meanwhile (service, wrk, PostgreSQL and everyone else), of nproc.',
    ];
    printYardstick(yard.rows, [memoryLine], yardNotes);
    let rows: Row[] = [];
    let notes: string[] = [];
    if (FULL) {
      rows = buildRows(cases, samples, baselineRounds);
      const extra = [
        {
          label: 'start-up to ready, server DB, fresh database (migrations)',
          value: `${Math.round(startup.server_fresh_ms!)} ms`,
          note: `bench entry on another fresh database: ${Math.round(startup.server_fresh_2_ms!)} ms`,
        },
        { label: 'start-up to ready, server DB, restart', value: `${Math.round(startup.server_restart_ms!)} ms` },
        { label: 'start-up to ready, embedded DB, fresh DATA_DIR', value: `${Math.round(startup.embedded_fresh_ms!)} ms` },
        { label: 'start-up to ready, embedded DB, restart', value: `${Math.round(startup.embedded_restart_ms!)} ms` },
      ];
      notes = [
        `Every service process runs with ${DEPLOYED_SUMMARY}, as the Dockerfile sets it.`,
        machine,
        `Each measurement ${SECONDS} s, ${CONNECTIONS} connections (unless said), autocannon, median of ${ROUNDS} interleaved rounds after a ${WARMUP_SECONDS} s warm-up (${SINGLE_CASE_WARMUP_SECONDS} s for the twin and main.js); p50/p99 over every response of the rounds. LOG_LEVEL=warn (no per-request log line) except main.js as shipped.`,
        'RATE LIMITS RAISED: the measured service is bench/serve.ts → createApp(config, db, { rateLimits: 10^9/min }); the limiter still counts every client request as in production (in memory, flushed to PostgreSQL) but never answers 429. "main.js as shipped" is dist/src/main.js unchanged (info log, default limits), its load spread over the pool of clients. "limiter stubbed" is the same process with the limiter\'s store switched to a no-op (bench-only route) to show what the limiter costs.',
        "CPU ms/req: CPU time of the measured Node process, and of the PostgreSQL processes serving the bench's databases plus the server's background processes, per completed request (raw loop: its client side runs in the load process).",
        `Others' CPU: cores (of ${os.cpus().length}) used by processes outside the bench and PostgreSQL during the case's measurements (mean); each measurement first waits up to ${QUIET_MAX_WAIT_MS / 1000} s for the machine to use < ${QUIET_CORES} core.`,
        'Baseline (for information only; the yardstick above is the reference): a twin process (same bench entry, createApp() + a bench-only public route returning {"ok":true}) that serves only that route; the same route in the measured process is shown for information. /me and /declarations rotate over 50 clients\' tokens.',
        `POST: consecutive requests go to distinct (client, period) slots (50 clients × ${periods.length} periods), each a new revision; the raw loop writes the same rows (supersede + declaration + lines) with the app's own SQL, ${CONNECTIONS} connections.`,
      ];
      printTable(rows, extra, notes);
    }
    const result = {
      date: new Date().toISOString(),
      only: FULL ? undefined : 'yardstick',
      service_node_args: SERVICE_NODE_ARGS,
      main_node_args: MAIN_NODE_ARGS,
      duration_s: Math.round((performance.now() - began) / 1000),
      settings: {
        seconds: SECONDS,
        rounds: ROUNDS,
        connections: CONNECTIONS,
        yardstick: {
          wrk_threads: WRK_THREADS,
          wrk_connections: WRK_CONNECTIONS,
          seconds: YARDSTICK_SECONDS,
          me_clients: ME_CLIENTS,
          burst: { clients: burstTokens.length, lines: BURST_LINES, concurrency: BURST_CONCURRENCY },
        },
        big_post_connections: [BIG_POST_CONNECTIONS, BIG_POST_CONNECTIONS_LOADED],
        memory_seconds: MEMORY_SECONDS,
        mixed_connections: MIXED_CONNECTIONS,
      },
      machine: {
        cpus: os.cpus().length,
        model: os.cpus()[0]?.model,
        memory_gib: os.totalmem() / 2 ** 30,
        node: process.version,
        postgres: serverVersion,
      },
      yardstick: { rows: yard.rows, burst: yard.burst, notes: yardNotes, log_lines: prodLogLines },
      notes,
      rows,
      startup,
      memory: { ...memory, target: '≤ 250 MB, growth ≤ max(5 MB, 5 %)', pass: memoryPass },
      table_sizes: { ...tableSizes, fill_seconds: fillSeconds },
    };
    await writeFile(path.join(RESULTS, 'latest.json'), `${JSON.stringify(result, null, 2)}\n`);
    log(`done in ${result.duration_s} s; bench/results/latest.json written`);
  } catch (error) {
    for (const s of services) if (s.output.length) log(`${s.name} output:\n${s.output.slice(-20).join('\n')}`);
    throw error;
  } finally {
    loader.stop();
    await monitor.end().catch(() => {});
    for (const s of services) await stopService(s).catch(() => {});
    await onServer(async (c) => {
      await c.query(`DROP DATABASE IF EXISTS ${mainDb} WITH (FORCE)`);
      await c.query(`DROP DATABASE IF EXISTS ${bigDb} WITH (FORCE)`);
    }).catch((error: unknown) => log(`could not drop the bench databases: ${String(error)}`));
  }
}

async function onDb(url: string, sql: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<{ n: number }>(sql)).rows[0]!.n;
  } finally {
    await client.end();
  }
}

function latencyStats(latencies: number[]) {
  const sorted = [...latencies].sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p99: percentile(sorted, 99) };
}

function buildRows(cases: Record<string, Case>, samples: Map<string, Sample[]>, baselineRounds: number[]): Row[] {
  const row = (id: string): Row => {
    const c = cases[id]!;
    const ms = samples.get(id) ?? [];
    const all = ms.flatMap((m) => m.latencies);
    const unexpected = ms.flatMap((m) =>
      Object.entries(m.statuses)
        .filter(([s]) => !c.expect.includes(s))
        .map(([s, n]) => `${n}× ${s}`),
    );
    const errors = ms.reduce((sum, m) => sum + m.errors, 0);
    return {
      id,
      label: c.label,
      rounds: ms.map((m) => ({
        rps: m.rps,
        count: m.count,
        statuses: m.statuses,
        errors: m.errors,
        foreign_cores: m.foreignCores,
        steal_cores: m.stealCores,
        cpu_ms: m.cpuMs,
        ...latencyStats(m.latencies),
      })),
      rps: median(ms.map((m) => m.rps)),
      foreignCores: ms.reduce((sum, m) => sum + m.foreignCores / ms.length, 0),
      cpuPerRequest: {
        service: ms.reduce((sum, m) => sum + m.cpuMs.service, 0) / Math.max(1, all.length),
        postgres: ms.reduce((sum, m) => sum + m.cpuMs.postgres, 0) / Math.max(1, all.length),
        loader: ms.reduce((sum, m) => sum + m.cpuMs.loader, 0) / Math.max(1, all.length),
      },
      ...latencyStats(all),
      invalid:
        unexpected.length || errors ? `unexpected: ${[...unexpected, ...(errors ? [`${errors} errors`] : [])].join(', ')}` : undefined,
    };
  };
  const versusBaseline = (id: string, min: number): Row => {
    const r = row(id);
    const ratios = r.rounds.map((m, i) => m.rps / baselineRounds[i]!);
    return { ...r, ratio: median(ratios), ratioTo: 'baseline', target: `≥ ${min.toFixed(1)}× baseline`, pass: median(ratios) >= min };
  };
  const baseline = { ...row('baseline'), ratio: 1, ratioTo: 'baseline', note: 'reference' };
  const post20 = row('post20');
  const raw20 = { ...row('raw20'), note: 'reference for POST' };
  const postRatios = post20.rounds.map((m, i) => m.rps / raw20.rounds[i]!.rps);
  const post1000 = row('post1000');
  const list1k = row('list1k');
  const list1M = row('list1M');
  const listRatio = list1M.p50 / list1k.p50;
  const me = versusBaseline('me', 0.5);
  const meDefault = versusBaseline('meDefault', 0.5);
  const meNoLimiter = {
    ...versusBaseline('meNoLimiter', 0.5),
    target: undefined,
    pass: undefined,
    note: "same process as /me above: the limiter's cost",
  };
  return [
    baseline,
    versusBaseline('streams', 1.0),
    versusBaseline('streams304', 1.0),
    me,
    meNoLimiter,
    { ...meDefault, target: undefined, pass: undefined, note: 'dist/src/main.js as shipped' },
    { ...versusBaseline('baselineSame', 1), target: undefined, pass: undefined, note: 'for information' },
    { ...post20, ratio: median(postRatios), ratioTo: 'raw pg', target: '≥ 0.3× raw pg', pass: median(postRatios) >= 0.3 },
    raw20,
    { ...post1000, target: 'p99 < 250 ms', pass: post1000.p99 < 250 },
    { ...row('post1000loaded'), note: 'for information: 4 in flight' },
    { ...list1k, note: 'reference for the large table' },
    { ...list1M, ratio: listRatio, ratioTo: 'p50 vs small table', target: 'p50 ratio ≤ 1.5', pass: listRatio <= 1.5 },
  ];
}

function printTable(
  rows: Row[],
  extra: { label: string; value: string; target?: string; result?: string; note?: string }[],
  notes: string[],
): void {
  const fmt = (n: number, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : '—');
  const lines: string[][] = [['case', 'req/s', 'p50 ms', 'p99 ms', 'ratio', 'target', 'result', 'CPU ms/req app+pg', "others' CPU"]];
  for (const r of rows) {
    lines.push([
      r.label,
      fmt(r.rps, 0),
      fmt(r.p50, 2),
      fmt(r.p99, 1),
      r.ratio === undefined ? '' : `${fmt(r.ratio, 2)}${r.ratioTo === 'baseline' ? '' : ` (${r.ratioTo})`}`,
      r.target ?? r.note ?? '',
      r.invalid ? `INVALID (${r.invalid})` : r.pass === undefined ? '' : r.pass ? 'PASS' : 'MISS',
      r.cpuPerRequest.service || r.cpuPerRequest.postgres ? `${fmt(r.cpuPerRequest.service, 2)} + ${fmt(r.cpuPerRequest.postgres, 2)}` : '',
      fmt(r.foreignCores, 2),
    ]);
  }
  const widths = lines[0]!.map((_, i) => Math.max(...lines.map((l) => l[i]!.length)));
  const out = (cells: string[]) =>
    `| ${cells.map((c, i) => ([1, 2, 3, 7, 8].includes(i) ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join(' | ')} |`;
  const print = (s = '') => process.stdout.write(`${s}\n`);
  print();
  print(out(lines[0]!));
  print(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const l of lines.slice(1)) print(out(l));
  print();
  for (const e of extra)
    print(`- ${e.label}: ${e.value}${e.target ? ` — target ${e.target}: ${e.result}` : ''}${e.note ? ` (${e.note})` : ''}`);
  print();
  for (const n of notes) print(`* ${n}`);
  print();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
