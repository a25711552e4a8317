/**
 * The write path's CPU (`BENCH_ONLY=write-cpu npm run bench`): the service's own CPU per declaration,
 * from /proc, for the yardstick's two write cases — the deadline burst's 200-line declaration and the
 * 20-line POST — so that a change can be compared on a busy machine, where throughput ratios are noise.
 *
 * `dist/src/main.js` as a user starts it (the Dockerfile's settings, bench/deployed.ts; LOG_LEVEL
 * unset: one log line per request, read from a pipe; default rate limits), on a fresh database of the
 * server. Set-up on the bench entry (not measured): BENCH_WRITE_CLIENTS (1,500) confirmed clients with a
 * token each. Warm-up (not measured): a 20-line declaration of every client, then 300 of 200 lines. Then
 * BENCH_WRITE_ROUNDS (5) rounds, each: BENCH_WRITE_REQUESTS (400) 200-line declarations, then as many
 * 20-line ones, each its client's first of its period (as in the burst), BENCH_WRITE_IN_FLIGHT (10) at a
 * time, with the bodies of bench/load.ts (EMB, `uvc`, the six published materials then uncategorised
 * ones); the service's CPU (utime + stime of its process, every thread) divided by the requests (the
 * median of the rounds is printed), and its round trips (bench/count-statements.ts; with
 * BENCH_TRACE_STATEMENTS=1, which statements).
 *
 * BENCH_WRITE_BUILDS: a comma-separated list of project roots whose `dist/src/main.js` to measure,
 * each started at once on the same database, their rounds interleaved (default: this one). A copy of
 * another build: a directory with its `dist/`, and `package.json`, `node_modules`, `views`, `assets`,
 * `reference-data` and `migrations` linked from this one. BENCH_PROFILE=1: V8 CPU profiles of each
 * build's last round, the 200-line and the 20-line case apart, into bench/results/ (bench/profile-window.ts;
 * BENCH_PROFILE=heap: sampling heap profiles, every allocation of the window);
 * with BENCH_PERF=1, `perf record` files of the same windows instead (`perf` on the PATH; the builds run with
 * `--perf-basic-prof`): V8's profiler samples wall time, which a busy machine's waits distort, `perf` the CPU.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { DEPLOYED_ENV } from './deployed.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const SERVE = path.join(ROOT, 'dist/bench/serve.js');
const COUNTER = path.join(ROOT, 'dist/bench/count-statements.js');
const PROFILER = path.join(ROOT, 'dist/bench/profile-window.js');
const RESULTS = path.join(ROOT, 'bench/results');
const SERVER_URL = process.env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
const CLIENTS = Number(process.env.BENCH_WRITE_CLIENTS || 1500);
const REQUESTS = Number(process.env.BENCH_WRITE_REQUESTS || 400);
const ROUNDS = Number(process.env.BENCH_WRITE_ROUNDS || 5);
const IN_FLIGHT = Number(process.env.BENCH_WRITE_IN_FLIGHT || 10);
const BUILDS = (process.env.BENCH_WRITE_BUILDS || ROOT).split(',').map((root) => path.resolve(root));
const PROFILE = ['1', 'heap'].includes(process.env.BENCH_PROFILE ?? '');
const PROFILE_EXTENSION = process.env.BENCH_PROFILE === 'heap' ? 'heapprofile' : 'cpuprofile';
/** BENCH_PERF=1: Linux `perf` samples the service's CPU (every thread, the garbage collector's included) rather than V8's profiler its wall time. */
const PERF = process.env.BENCH_PERF === '1';
/** BENCH_TRACE_STATEMENTS=1: the statements of each measurement, per request (bench/count-statements.ts). */
const TRACE = process.env.BENCH_TRACE_STATEMENTS === '1';
/** More node flags for the measured builds, for experiments (`--trace-gc`, `--max-semi-space-size=16`). */
const NODE_ARGS = (process.env.BENCH_WRITE_NODE_ARGS ?? '').split(' ').filter(Boolean);
const ADMIN_TOKEN = `bench-admin-${randomBytes(24).toString('hex')}`;
/** The six published materials of bench/load.ts's bodies; the other lines are uncategorised materials. */
const MATERIAL_CODES = ['glass', 'paper_cardboard', 'plastic_pet_bottle_clear', 'plastic_pe_pp_rigid', 'steel', 'aluminium'];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const log = (message: string) => process.stderr.write(`[write-cpu ${new Date().toISOString().slice(11, 19)}] ${message}\n`);

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

/** Half-years from 2022-S1 to the last one that started at least two days ago. */
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

interface Service {
  url: string;
  child: ChildProcess;
  tail: string[];
}

async function start(script: string, env: Record<string, string>, nodeArgs: string[] = []): Promise<Service> {
  const port = await freePort();
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(
      ([key]) => !/^(PORT|HOST|DATABASE_URL|DATA_DIR|ADMIN_TOKEN|LOG_LEVEL|NODE_OPTIONS|MALLOC_\w+|RATE_LIMIT_\w+)$/.test(key),
    ),
  );
  const child = spawn(process.execPath, [...nodeArgs, script], {
    cwd: path.resolve(path.dirname(script), '../..'),
    env: {
      ...inherited,
      ...env,
      ...DEPLOYED_ENV,
      PORT: String(port),
      HOST: '127.0.0.1',
      ADMIN_TOKEN,
    },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  const service: Service = { url: `http://127.0.0.1:${port}`, child, tail: [] };
  child.stdout!.resume();
  child.stderr!.on('data', (chunk: Buffer) => service.tail.push(chunk.toString('utf8')));
  for (const began = performance.now(); ; await sleep(50)) {
    if (child.exitCode !== null) throw new Error(`${script} stopped:\n${service.tail.join('')}`);
    if (performance.now() - began > 180_000) throw new Error(`${script} not ready after 180 s`);
    try {
      const res = await fetch(`${service.url}/health/ready`);
      await res.arrayBuffer();
      if (res.status === 200) return service;
    } catch {
      // not listening yet
    }
  }
}

async function stop(service: Service): Promise<void> {
  if (service.child.exitCode !== null || service.child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => service.child.once('exit', () => resolve()));
  service.child.kill('SIGTERM');
  const timer = setTimeout(() => service.child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}

/** Sends `message` to the service's preloads and waits for the answer that has `key`. */
function ask<T>(service: Service, message: unknown, key: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const answer = (m: Record<string, unknown>) => {
      if (!(key in m)) return;
      clearTimeout(timer);
      service.child.off('message', answer);
      resolve(m[key] as T);
    };
    const timer = setTimeout(() => reject(new Error(`no ${key} from the service`)), 30_000);
    service.child.on('message', answer);
    service.child.send(message as string);
  });
}

/** The service's round trips to PostgreSQL so far (bench/count-statements.ts). */
const statements = (service: Service) => ask<number>(service, 'statements', 'statements');

/** utime + stime of a process, in ms (10 ms ticks). */
async function cpuMsOf(pid: number): Promise<number> {
  const text = await readFile(`/proc/${pid}/stat`, 'utf8');
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** `perf record` of process `pid` into `file` until the function it gives is called (and has waited for it to write). */
async function perfRecord(pid: number, file: string): Promise<() => Promise<void>> {
  const perf = spawn('perf', ['record', '-e', 'cpu-clock', '-F', '999', '-g', '-p', String(pid), '-o', file], { stdio: 'ignore' });
  await sleep(500);
  return async () => {
    const exited = new Promise((resolve) => perf.once('exit', resolve));
    perf.kill('SIGINT');
    await exited;
  };
}

const loadAverage = async () => (await readFile('/proc/loadavg', 'utf8')).split(' ').slice(0, 3).join(' ');

const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

function post(base: string, url: string, headers: Record<string, string>, body: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${base}${url}`, { method: 'POST', headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function admin(base: string, url: string, body: unknown): Promise<Record<string, unknown>> {
  const res = await post(base, url, { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' }, JSON.stringify(body));
  if (res.status >= 300) throw new Error(`POST ${url}: ${res.status} ${res.body.slice(0, 300)}`);
  return JSON.parse(res.body) as Record<string, unknown>;
}

/** bench/load.ts's bodies: lines 1… made once, line 0's quantity `sequence` (new content every time). */
function declarationBodies(lines: number): (period: string, sequence: number) => string {
  let rest = '';
  for (let i = 1; i < lines; i++) {
    const material = i < MATERIAL_CODES.length ? MATERIAL_CODES[i]! : `Bench material ${String(i + 1).padStart(4, '0')}`;
    rest += `,{"stream":"EMB","material":"${material}","unit":"uvc","quantity":${(i * 37) % 5000}}`;
  }
  return (period, sequence) =>
    `{"period":"${period}","lines":[{"stream":"EMB","material":"glass","unit":"uvc","quantity":${sequence}}${rest}]}`;
}

let sequence = 1;

type Measured = Awaited<ReturnType<typeof measure>> & { load?: string };

/** The statements sent between two traces, per request, by their first 70 characters (the most frequent first). */
function traceSince(before: [string, number][], after: [string, number][], requests: number): Record<string, number> {
  const earlier = new Map(before);
  return Object.fromEntries(
    after
      .map(([text, count]) => [text, (count - (earlier.get(text) ?? 0)) / requests] as const)
      .filter(([, perRequest]) => perRequest > 0)
      .sort((a, b) => b[1] - a[1]),
  );
}

/** A client's token and a period it has not declared yet. */
interface Slot {
  token: string;
  period: string;
}

/** One declaration of `lines` lines in each slot, IN_FLIGHT at a time; the service's CPU per request. */
async function measure(service: Service, slots: Slot[], lines: number, profile?: string) {
  const body = declarationBodies(lines);
  const pid = service.child.pid!;
  const perf = profile && PERF ? await perfRecord(pid, profile.replace(/\.\w+$/, '.perf.data')) : undefined;
  if (profile && !PERF) await ask(service, { profile: 'start' }, 'profiling');
  const s0 = await statements(service);
  const t0 = TRACE ? await ask<[string, number][]>(service, 'trace', 'trace') : [];
  const c0 = await cpuMsOf(pid);
  const began = performance.now();
  const statuses: Record<string, number> = {};
  let next = 0;
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      for (let k = next++; k < slots.length; k = next++) {
        const res = await post(
          service.url,
          '/api/v1/declarations',
          { authorization: `Bearer ${slots[k]!.token}`, 'content-type': 'application/json' },
          body(slots[k]!.period, sequence++),
        );
        statuses[res.status] = (statuses[res.status] ?? 0) + 1;
        if (res.status !== 201 && statuses[res.status] === 1) log(`${res.status}: ${res.body.slice(0, 300)}`);
      }
    }),
  );
  const seconds = (performance.now() - began) / 1000;
  const cpuMs = (await cpuMsOf(pid)) - c0;
  const roundTrips = (await statements(service)) - s0;
  const trace = TRACE ? traceSince(t0, await ask<[string, number][]>(service, 'trace', 'trace'), slots.length) : undefined;
  if (profile && !PERF) await ask(service, { profile: 'stop', file: profile }, 'profiled');
  await perf?.();
  return {
    requests: slots.length,
    statuses,
    cpu_ms_per_request: Number((cpuMs / slots.length).toFixed(3)),
    round_trips_per_request: Number((roundTrips / slots.length).toFixed(2)),
    per_second: Number((slots.length / seconds).toFixed(1)),
    ...(trace ? { statements: trace } : {}),
  };
}

export async function runWriteCpu(): Promise<void> {
  await mkdir(RESULTS, { recursive: true });
  const tag = `bench_writecpu_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  const url = new URL(SERVER_URL);
  url.pathname = `/${tag}`;
  const databaseUrl = url.toString();
  const monitor = new pg.Client({ connectionString: SERVER_URL });
  await monitor.connect();
  await monitor.query(`CREATE DATABASE ${tag}`);
  const services: Service[] = [];
  const periods = declarablePeriods();
  try {
    const setup = await start(SERVE, { DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn' });
    services.push(setup);
    const ids = Array.from({ length: CLIENTS }, (_, i) => `write-${String(i).padStart(5, '0')}`);
    const tokens: string[] = [];
    const queue = [...ids];
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        for (let id = queue.shift(); id; id = queue.shift()) {
          const client = { client_id: id, email: `${id}@example.fr`, company: `${id} SAS`, country: 'FR', plan: 'business' };
          await admin(setup.url, '/api/v1/admin/clients', { ...client, streams: ['EMB'], idus: ['FR000000_01ABCD'] });
          await admin(setup.url, `/api/v1/admin/clients/${id}/confirm`, {});
          tokens.push((await admin(setup.url, `/api/v1/admin/clients/${id}/tokens`, { name: 'erp' })).token as string);
        }
      }),
    );
    await stop(setup);
    services.pop();
    await monitor.query('VACUUM ANALYZE').catch(() => {});
    log(`${CLIENTS} clients with a token each; load average ${await loadAverage()}`);

    // Every declaration is its client's first of its period, as in the burst and in the yardstick's 20-line
    // case: (client, period) slots taken in turn, the clients of one period one after another (no two
    // requests in flight wait on one period's lock; a client's writes are far from 60 a minute).
    const slots = periods.toReversed().flatMap((period) => tokens.map((token) => ({ token, period })));
    const take = (count: number) => {
      if (slots.length < count) throw new Error(`not enough (client, period) slots: raise BENCH_WRITE_CLIENTS`);
      return slots.splice(0, count);
    };
    const measured: Service[] = [];
    for (const build of BUILDS) {
      const nodeArgs = [
        '--import',
        COUNTER,
        ...(PROFILE ? ['--import', PROFILER] : []),
        ...(PERF ? ['--perf-basic-prof'] : []),
        ...NODE_ARGS,
      ];
      const service = await start(path.join(build, 'dist/src/main.js'), { DATABASE_URL: databaseUrl }, nodeArgs);
      services.push(service);
      measured.push(service);
      log(`${build}: pid ${service.child.pid}`);
      // Warm-up: a 20-line declaration of every client (each token then known to the process, as the
      // yardstick's clients are after its burst), then 300 of 200 lines: the optimising compiler's work done before the rounds.
      await measure(service, take(tokens.length), 20);
      await measure(service, take(300), 200);
    }
    const results = BUILDS.map(() => ({ burst200: [] as Measured[], post20: [] as Measured[] }));
    for (let round = 0; round < ROUNDS; round++) {
      for (const [b, service] of measured.entries()) {
        const load = await loadAverage();
        const profile = (lines: number) =>
          (PROFILE || PERF) && round === ROUNDS - 1 ? path.join(RESULTS, `write-cpu-${b}-${lines}-lines.${PROFILE_EXTENSION}`) : undefined;
        const burst = await measure(service, take(REQUESTS), 200, profile(200));
        const twenty = await measure(service, take(REQUESTS), 20, profile(20));
        results[b]!.burst200.push({ ...burst, load });
        results[b]!.post20.push({ ...twenty, load });
        log(`round ${round + 1}, ${BUILDS[b]}: 200 lines ${JSON.stringify(burst)}; 20 lines ${JSON.stringify(twenty)}; load ${load}`);
      }
    }
    const summary = BUILDS.map((build, b) => ({
      build,
      cpu_ms_per_200_line: results[b]!.burst200.map((r) => r.cpu_ms_per_request),
      cpu_ms_per_20_line: results[b]!.post20.map((r) => r.cpu_ms_per_request),
      rounds: results[b],
    }));
    const median = (values: number[]) => values.toSorted((a, b) => a - b)[values.length >> 1]!;
    for (const s of summary)
      process.stdout.write(
        `${s.build}: CPU ms per 200-line declaration ${median(s.cpu_ms_per_200_line)} (${s.cpu_ms_per_200_line.join(', ')}); per 20-line ${median(s.cpu_ms_per_20_line)} (${s.cpu_ms_per_20_line.join(', ')})\n`,
      );
    await writeFile(
      path.join(RESULTS, 'write-cpu.json'),
      `${JSON.stringify({ clients: CLIENTS, in_flight: IN_FLIGHT, summary }, null, 2)}\n`,
    );
  } finally {
    for (const service of services.reverse()) await stop(service).catch(() => {});
    await monitor.query(`DROP DATABASE IF EXISTS ${tag} WITH (FORCE)`).catch(() => {});
    await monitor.end();
  }
}
