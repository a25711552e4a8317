/**
 * The deadline hour (`BENCH_ONLY=deadline npm run bench`): producers signing in and filing through
 * the dashboard while ERPs post through the API, against `dist/src/main.js` as a user starts it
 * (the Dockerfile's settings: bench/deployed.ts; LOG_LEVEL unset, default rate limits) behind a proxy
 * (`TRUST_PROXY=loopback`, each producer and ERP its own `X-Forwarded-For` address, as they reach a
 * deployed service). See docs/benchmarks.md.
 *
 * Set-up (not measured) on the bench entry (bench/serve.ts, operator limit raised), then stopped:
 * BENCH_DEADLINE_PRODUCERS clients created and confirmed through the admin API, a sign-in link each
 * (the operator's invitation), and BENCH_DEADLINE_ERPS other clients with an API token each.
 *
 * Measured: the producers arrive as a Poisson process over BENCH_DEADLINE_SECONDS (the hour
 * compressed: 2,000 arrivals in 120 s is 30× an hour of 2,000), each a browser of its own that
 * opens its link, continues (signs in), views the overview, opens the declaration page, uploads its
 * file (BENCH_DEADLINE_FILE: `xlsx`, the default, her per-product file of BENCH_DEADLINE_PRODUCTS
 * products as she keeps it; `product-csv`, the same as a `;` CSV; `mixed`, half of each; `csv`, a
 * BENCH_DEADLINE_LINES-line declaration CSV), reads the check page, declares by name and reads the confirmation,
 * with an exponential pause of mean BENCH_DEADLINE_THINK_MS between two steps (a person's half a
 * minute, compressed likewise). Meanwhile the ERPs post 20-line declarations at BENCH_DEADLINE_ERP_RATE
 * per second, spread over their clients. Reported: p50/p99 per step, errors, the service's and
 * PostgreSQL's CPU per filing, the service's RSS every second, and its round trips to PostgreSQL
 * (bench/count-statements.ts) per request.
 *
 * Also measured in the same run, on the same process: the write path alone (`POST /api/v1/declarations`,
 * 20 lines, sequential) with its round trips per request, and the uploads to their check page (the
 * 1,000-line CSV, the hour's per-product file as .xlsx and as CSV) against the floor of reading the
 * same file (csv-parse, SheetJS) and checking each line or row in this process.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import * as XLSX from '@e965/xlsx';
import { parse as parseCsv } from 'csv-parse/sync';
import pg from 'pg';
import { DEPLOYED_ENV } from './deployed.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const MAIN = path.join(ROOT, 'dist/src/main.js');
const SERVE = path.join(ROOT, 'dist/bench/serve.js');
const COUNTER = path.join(ROOT, 'dist/bench/count-statements.js');
const RESULTS = path.join(ROOT, 'bench/results');
const SERVER_URL = process.env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
/** BENCH_DEADLINE_FLOORS_ONLY=1: only the uploads against their floor (no write path, no hour); BENCH_DEADLINE_FLOOR_KIND picks one kind (`product-csv`) or case (`product-csv:334`). */
const FLOORS_ONLY = process.env.BENCH_DEADLINE_FLOORS_ONLY === '1';
const PRODUCERS = FLOORS_ONLY ? 0 : Number(process.env.BENCH_DEADLINE_PRODUCERS || 2000);
const ARRIVAL_SECONDS = Number(process.env.BENCH_DEADLINE_SECONDS || 120);
const LINES = Number(process.env.BENCH_DEADLINE_LINES || 200);
const FILE_KINDS = ['xlsx', 'product-csv', 'mixed', 'csv'] as const;
type FileKind = (typeof FILE_KINDS)[number];
const FILE = (process.env.BENCH_DEADLINE_FILE || 'xlsx') as FileKind;
if (!FILE_KINDS.includes(FILE)) throw new Error(`BENCH_DEADLINE_FILE: one of ${FILE_KINDS.join(', ')}`);
const PRODUCTS = Number(process.env.BENCH_DEADLINE_PRODUCTS || 50);
/**
 * The uploads measured against their floor: the 1,000-line CSV; the hour's per-product file as .xlsx and
 * as CSV; and a per-product file of about 1,000 rows (334 products × 3 elements), the line CSV's size.
 */
const FLOOR_CASES: [Exclude<FileKind, 'mixed'>, number][] = (
  [
    ['csv', 1000],
    ['xlsx', PRODUCTS],
    ['product-csv', PRODUCTS],
    ['xlsx', 334],
    ['product-csv', 334],
  ] as [Exclude<FileKind, 'mixed'>, number][]
).filter(([kind, size]) => [undefined, kind, `${kind}:${size}`].includes(process.env.BENCH_DEADLINE_FLOOR_KIND));
/** Uploads of each round of an upload against its floor, and the rounds (the service's and the floor's interleaved). */
const FLOOR_UPLOADS = Number(process.env.BENCH_DEADLINE_FLOOR_UPLOADS || 60);
const FLOOR_ROUNDS = Number(process.env.BENCH_DEADLINE_FLOOR_ROUNDS || 5);
const THINK_MS = Number(process.env.BENCH_DEADLINE_THINK_MS || 1000);
const ERPS = FLOORS_ONLY ? 0 : Number(process.env.BENCH_DEADLINE_ERPS || 200);
const ERP_RATE = Number(process.env.BENCH_DEADLINE_ERP_RATE || 10);
const PROFILE = process.env.BENCH_PROFILE === '1';
/** Extra node flags for the measured service (diagnosis, as in run.ts: e.g. "--max-semi-space-size=16"). */
const EXTRA_NODE_ARGS = (process.env.BENCH_MAIN_NODE_ARGS ?? '').split(' ').filter(Boolean);
const ADMIN_TOKEN = `bench-admin-${randomBytes(24).toString('hex')}`;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const log = (message: string) => process.stderr.write(`[deadline ${new Date().toISOString().slice(11, 19)}] ${message}\n`);

/** A seeded generator (mulberry32): the same arrivals and pauses in every run. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const exponential = (rand: () => number, mean: number) => -Math.log(1 - rand()) * mean;

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
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

// ---- processes -------------------------------------------------------------------------------

interface Service {
  url: string;
  child: ChildProcess;
  lines: number;
  tail: string[];
}

function cleanEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  const appVariables =
    /^(PORT|HOST|DATABASE_URL|DATA_DIR|ADMIN_TOKEN|PUBLIC_BASE_URL|REFERENCE_BASE_URL|CLIENT_BASE_URL|LOG_LEVEL|MIGRATIONS_RUN|BENCH_SERVE|NODE_OPTIONS|MALLOC_\w+|RATE_LIMIT_\w+|TRUST_PROXY|SMTP_URL)$/;
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined && !appVariables.test(key)) env[key] = value;
  return env;
}

async function start(script: string, env: Record<string, string>, nodeArgs: string[] = []): Promise<Service> {
  const port = await freePort();
  const child = spawn(process.execPath, [...nodeArgs, script], {
    cwd: ROOT,
    env: {
      ...cleanEnv(),
      ...env,
      ...DEPLOYED_ENV,
      PORT: String(port),
      HOST: '127.0.0.1',
      ADMIN_TOKEN,
    },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  const service: Service = { url: `http://127.0.0.1:${port}`, child, lines: 0, tail: [] };
  child.stdout!.on('data', (chunk: Buffer) => {
    for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) service.lines++;
  });
  child.stderr!.on('data', (chunk: Buffer) => service.tail.push(chunk.toString('utf8')));
  for (const began = performance.now(); ;) {
    if (child.exitCode !== null) throw new Error(`${script} stopped:\n${service.tail.join('')}`);
    if (performance.now() - began > 180_000) throw new Error(`${script} not ready after 180 s`);
    try {
      const res = await fetch(`${service.url}/health/ready`);
      await res.arrayBuffer();
      if (res.status === 200) return service;
    } catch {
      // not listening yet
    }
    await sleep(50);
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

/** Asks the service's preload (bench/count-statements.ts) for `what`: its answer is the message that has it. */
function ask<T>(service: Service, what: 'statements' | 'trace'): Promise<T> {
  return new Promise((resolve, reject) => {
    const answer = (m: Record<string, unknown>) => {
      if (!(what in m)) return;
      clearTimeout(timer);
      service.child.off('message', answer);
      resolve(m[what] as T);
    };
    const timer = setTimeout(() => {
      service.child.off('message', answer);
      reject(new Error(`no ${what} from the service`));
    }, 5000);
    service.child.on('message', answer);
    service.child.send(what);
  });
}

/** The service's round trips to PostgreSQL so far. */
const statements = (service: Service) => ask<number>(service, 'statements');

// ---- CPU and memory from /proc ---------------------------------------------------------------

const HZ = 100;

async function cpuMsOf(pid: number): Promise<number> {
  const text = await readFile(`/proc/${pid}/stat`, 'utf8');
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * (1000 / HZ);
}

/** CPU time of every thread of a process so far, in ms at nanosecond resolution (`/proc/<pid>/task/<tid>/schedstat`), where `/proc/<pid>/stat` counts 10 ms ticks. */
async function threadsCpuMs(pid: number): Promise<number> {
  let ns = 0;
  for (const tid of await readdir(`/proc/${pid}/task`)) {
    const text = await readFile(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').catch(() => '0');
    ns += Number(text.split(' ')[0]);
  }
  return ns / 1e6;
}

async function rssMb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/^VmRSS:\s+(\d+)\s+kB$/m.exec(status)?.[1]) / 1024;
}

/**
 * PostgreSQL's CPU for one database: its backends (pg_stat_activity), followed every second so that
 * a backend that ends between two samples loses at most a second; a backend first seen after the
 * start counts from zero. The server's background processes are shared with every other database
 * of the machine and are left out.
 */
class PostgresCpu {
  private readonly first = new Map<number, number>();
  private readonly last = new Map<number, number>();
  private timer?: NodeJS.Timeout;
  constructor(
    private readonly monitor: pg.Client,
    private readonly database: string,
  ) {}

  private async sample(initial: boolean): Promise<void> {
    const { rows } = await this.monitor.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = $1', [this.database]);
    for (const { pid } of rows) {
      try {
        const ms = await cpuMsOf(pid);
        if (!this.first.has(pid)) this.first.set(pid, initial ? ms : 0);
        this.last.set(pid, ms);
      } catch {
        // ended
      }
    }
  }

  async start(): Promise<void> {
    this.first.clear();
    this.last.clear();
    await this.sample(true);
    this.timer = setInterval(() => void this.sample(false).catch(() => {}), 1000);
  }

  async stop(): Promise<number> {
    clearInterval(this.timer);
    await this.sample(false);
    let total = 0;
    for (const [pid, ms] of this.last) total += ms - (this.first.get(pid) ?? 0);
    return total;
  }
}

async function loadAverage(): Promise<string> {
  return (await readFile('/proc/loadavg', 'utf8')).split(' ').slice(0, 3).join(' ');
}

// ---- HTTP ------------------------------------------------------------------------------------

const agent = new http.Agent({ keepAlive: true, maxSockets: 512 });

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  ms: number;
}

/**
 * Requests sent again because the server closed their kept-alive connection as they were written on it
 * (ECONNRESET on a reused socket: the race Node's documentation describes, which browsers retry too).
 */
let resent = 0;

async function request(
  base: string,
  method: string,
  url: string,
  headers: Record<string, string>,
  body?: string | Buffer,
): Promise<Answer> {
  try {
    return await requestOnce(base, method, url, headers, body);
  } catch (error) {
    if (!(error as { resend?: boolean }).resend) throw error;
    resent++;
    return requestOnce(base, method, url, headers, body);
  }
}

function requestOnce(base: string, method: string, url: string, headers: Record<string, string>, body?: string | Buffer): Promise<Answer> {
  const began = performance.now();
  return new Promise((resolve, reject) => {
    const req = http.request(`${base}${url}`, { method, headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({
          status: res.statusCode!,
          headers: res.headers,
          body: Buffer.concat(chunks).toString('utf8'),
          ms: performance.now() - began,
        }),
      );
      res.on('error', reject);
    });
    req.setTimeout(60_000, () => req.destroy(new Error('timeout after 60 s')));
    req.on('error', (error: NodeJS.ErrnoException) =>
      reject(req.reusedSocket && error.code === 'ECONNRESET' ? Object.assign(error, { resend: true }) : error),
    );
    req.end(body);
  });
}

async function admin(base: string, method: string, url: string, body?: unknown): Promise<Record<string, unknown>> {
  const res = await request(
    base,
    method,
    url,
    { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body === undefined ? undefined : JSON.stringify(body),
  );
  if (res.status >= 300) throw new Error(`${method} ${url}: ${res.status} ${res.body.slice(0, 300)}`);
  return res.body ? (JSON.parse(res.body) as Record<string, unknown>) : {};
}

const unescapeHtml = (s: string) =>
  s.replace(
    /&(amp|lt|gt|quot|#39|#x27|#34);/g,
    (_, e: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'", '#x27': "'", '#34': '"' })[e]!,
  );

function hidden(html: string, name: string): string | undefined {
  const found = new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1];
  return found === undefined ? undefined : unescapeHtml(found);
}

/** A browser's cookies: what Set-Cookie gave it, sent back on every request. */
class Jar {
  private readonly cookies = new Map<string, string>();
  take(headers: http.IncomingHttpHeaders): void {
    for (const line of headers['set-cookie'] ?? []) {
      const pair = line.slice(0, line.indexOf(';'));
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq);
      const value = pair.slice(eq + 1);
      if (value === '' || /max-age=0|expires=thu, 01 jan 1970/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }
  header(): string {
    return [...this.cookies].map(([n, v]) => `${n}=${v}`).join('; ');
  }
}

const form = (fields: Record<string, string>) =>
  Object.entries(fields)
    .map(([k, v]) => `${k}=${encodeURIComponent(v)}`)
    .join('&');

const BOUNDARY = '----epr-deadline-boundary-3fQ9x';

function multipart(fields: Record<string, string>, file: { name: string; content: string | Buffer; type?: string }): Buffer {
  let head = '';
  for (const [k, v] of Object.entries(fields)) head += `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`;
  head += `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="${file.name}"\r\nContent-Type: ${file.type ?? 'text/csv'}\r\n\r\n`;
  return Buffer.concat([Buffer.from(head), Buffer.from(file.content), Buffer.from(`\r\n--${BOUNDARY}--\r\n`)]);
}

const MATERIALS = ['glass', 'paper_cardboard', 'plastic_pet_bottle_clear', 'plastic_pe_pp_rigid', 'steel', 'aluminium'];

/** A declaration file of `n` lines as a producer's spreadsheet saves it (English headers, comma): line 0's quantity is `first`. */
function declarationCsv(n: number, first: number): string {
  const rows = ['stream,material,unit,quantity'];
  for (let i = 0; i < n; i++) {
    const material = i < MATERIALS.length ? MATERIALS[i]! : `Bench material ${String(i + 1).padStart(4, '0')}`;
    rows.push(`EMB,${material},uvc,${i === 0 ? first : (i * 37) % 5000}`);
  }
  return `${rows.join('\r\n')}\r\n`;
}

function declarationJson(n: number, period: string, first: number): string {
  const lines = [];
  for (let i = 0; i < n; i++) {
    const material = i < MATERIALS.length ? MATERIALS[i]! : `Bench material ${String(i + 1).padStart(4, '0')}`;
    lines.push({ stream: 'EMB', material, unit: 'uvc', quantity: i === 0 ? first : (i * 37) % 5000 });
  }
  return JSON.stringify({ period, lines });
}

/** Her per-product file's header (the French template's) and the materials as she names them (the catalogue's French names). */
const PRODUCT_HEADER = ['produit', 'UVC vendues sur le semestre', 'élément d’emballage', 'matériau', 'poids (g)', 'nombre par UVC'];
const PRODUCT_MATERIALS = [
  'Verre',
  'Papier-carton',
  'Acier',
  'Aluminium',
  'Emballages rigides en PE et PP',
  'Emballages souples en PE et PP',
];
const ELEMENTS = ['boîte', 'film', 'étiquette'];

/** Producer `seed`'s per-product file: PRODUCTS products × 3 packaging elements, its units on each product's first row. */
function productRows(seed: number, products = PRODUCTS): (string | number)[][] {
  return Array.from({ length: products }, (_, i) =>
    ELEMENTS.map((element, e) => [
      e === 0 ? `Produit ${String(i).padStart(4, '0')}` : '',
      e === 0 ? 1 + ((i * 97 + seed) % 50_000) : '',
      element,
      PRODUCT_MATERIALS[(i + e) % PRODUCT_MATERIALS.length]!,
      Number(`${1 + ((i * 7 + e * 13 + seed) % 900)}.${(i * 31 + e) % 10}`),
      1 + ((i + e) % 4),
    ]),
  ).flat();
}

type UploadFile = { route: string; name: string; type: string; content: string | Buffer };
const XLSX_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

/**
 * Producer `seed`'s file of `kind` (mixed: even producers .xlsx, odd ones CSV) and the route it is uploaded to;
 * `size` its lines (the line CSV) or its products (a per-product file).
 */
function uploadFile(kind: FileKind, seed: number, size = kind === 'csv' ? LINES : PRODUCTS): UploadFile {
  if (kind === 'csv')
    return { route: '/dashboard/declarations/upload', name: 'declaration.csv', type: 'text/csv', content: declarationCsv(size, seed) };
  if (kind === 'mixed') return uploadFile(seed % 2 === 0 ? 'xlsx' : 'product-csv', seed);
  const table = [PRODUCT_HEADER, ...productRows(seed, size)];
  if (kind === 'product-csv') {
    // As a French spreadsheet saves it: `;`, decimal commas.
    const text = table.map((row) => row.map((cell) => (typeof cell === 'number' ? String(cell).replace('.', ',') : cell)).join(';'));
    return { route: '/dashboard/declarations/product-file', name: 'produits.csv', type: 'text/csv', content: `${text.join('\r\n')}\r\n` };
  }
  const workbook = XLSX.utils.book_new();
  XLSX.utils.book_append_sheet(workbook, XLSX.utils.aoa_to_sheet(table), 'Produits');
  const content = XLSX.write(workbook, { type: 'buffer', bookType: 'xlsx', compression: true }) as Buffer;
  return { route: '/dashboard/declarations/product-file', name: 'produits.xlsx', type: XLSX_TYPE, content };
}

const addressOf = (n: number) => `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;

// ---- the producer's journey ------------------------------------------------------------------

const STEPS = ['link', 'sign_in', 'overview', 'declaration_page', 'upload_to_check', 'file', 'confirmation'] as const;
type Step = (typeof STEPS)[number];

interface Tally {
  latencies: Record<Step | 'erp_post', number[]>;
  errors: { step: string; what: string }[];
  filed: number;
}

async function journey(base: string, i: number, linkUrl: string, period: string, tally: Tally, pause: () => Promise<void>): Promise<void> {
  const jar = new Jar();
  const ip = addressOf(i + 1);
  let step: Step = 'link';
  const go = async (s: Step, method: string, url: string, expect: number, body?: string | Buffer, type?: string): Promise<Answer> => {
    step = s;
    const headers: Record<string, string> = { 'x-forwarded-for': ip, 'accept-encoding': 'identity' };
    const cookie = jar.header();
    if (cookie) headers.cookie = cookie;
    if (type) headers['content-type'] = type;
    const res = await request(base, method, url, headers, body);
    jar.take(res.headers);
    if (res.status !== expect) throw new Error(`${res.status}, expected ${expect}: ${res.body.slice(0, 200).replace(/\s+/g, ' ')}`);
    tally.latencies[s].push(res.ms);
    return res;
  };
  try {
    const token = new URL(linkUrl).searchParams.get('token')!;
    const linkPage = await go('link', 'GET', `/dashboard/sign-in/link?token=${token}`, 200);
    await pause();
    await go(
      'sign_in',
      'POST',
      '/dashboard/sign-in/link',
      303,
      form({ _csrf: hidden(linkPage.body, '_csrf') ?? '', token }),
      'application/x-www-form-urlencoded',
    );
    await go('overview', 'GET', '/dashboard', 200);
    await pause();
    const page = await go('declaration_page', 'GET', '/dashboard/declarations/new', 200);
    await pause();
    const file = uploadFile(FILE, i + 1);
    const check = await go(
      'upload_to_check',
      'POST',
      file.route,
      200,
      multipart({ _csrf: hidden(page.body, '_csrf') ?? '', period }, file),
      `multipart/form-data; boundary=${BOUNDARY}`,
    );
    const pending = hidden(check.body, 'pending');
    const seal = hidden(check.body, 'seal');
    if (!pending || !seal) throw new Error('the check page has no pending declaration');
    await pause();
    const filed = await go(
      'file',
      'POST',
      '/dashboard/declarations/file',
      303,
      form({ _csrf: hidden(check.body, '_csrf') ?? '', pending, seal, name: `Producer ${i + 1}`, action: 'file' }),
      'application/x-www-form-urlencoded',
    );
    const location = filed.headers.location ?? '';
    if (!/result=filed$/.test(location)) throw new Error(`filed to ${location}`);
    await go('confirmation', 'GET', location, 200);
    tally.filed++;
  } catch (error) {
    tally.errors.push({ step, what: error instanceof Error ? error.message : String(error) });
  }
}

// ---- main ------------------------------------------------------------------------------------

export async function runDeadline(): Promise<void> {
  await mkdir(RESULTS, { recursive: true });
  const tag = `bench_deadline_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  const url = new URL(SERVER_URL);
  url.pathname = `/${tag}`;
  const databaseUrl = url.toString();
  const monitor = new pg.Client({ connectionString: SERVER_URL });
  await monitor.connect();
  await monitor.query(`CREATE DATABASE ${tag}`);
  const services: Service[] = [];
  const periods = declarablePeriods();
  const period = periods.at(-1)!;
  try {
    // ---- set-up, on the bench entry (operator limit raised), not measured ----
    const setup = await start(SERVE, { DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn' });
    services.push(setup);
    const setupStarted = performance.now();
    // More than the hour's: each signs in first for an upload against its floor.
    const producers = Array.from({ length: PRODUCERS + FLOOR_CASES.length }, (_, i) => `deadline-${String(i).padStart(5, '0')}`);
    const spare = producers.splice(PRODUCERS);
    const erps = Array.from({ length: ERPS }, (_, i) => `erp-${String(i).padStart(4, '0')}`);
    const links = new Map<string, string>();
    const tokens: string[] = [];
    const queue = [...[...producers, ...spare].map((id) => ({ id, erp: false })), ...erps.map((id) => ({ id, erp: true }))];
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        for (let next = queue.shift(); next; next = queue.shift()) {
          const { id, erp } = next;
          await admin(setup.url, 'POST', '/api/v1/admin/clients', {
            client_id: id,
            email: `${id}@example.fr`,
            company: `${id} SAS`,
            country: 'FR',
            plan: 'business',
            streams: ['EMB'],
            idus: ['FR000000_01ABCD'],
          });
          await admin(setup.url, 'POST', `/api/v1/admin/clients/${id}/confirm`, {});
          if (erp) tokens.push((await admin(setup.url, 'POST', `/api/v1/admin/clients/${id}/tokens`, { name: 'erp' })).token as string);
          else links.set(id, (await admin(setup.url, 'POST', `/api/v1/admin/clients/${id}/sign-in-links`, {})).url as string);
        }
      }),
    );
    log(
      `${PRODUCERS} producers with a sign-in link and ${ERPS} ERP clients with a token, through the admin API, in ${((performance.now() - setupStarted) / 1000).toFixed(1)} s`,
    );
    await stop(setup);
    services.pop();
    await monitor.query(`VACUUM ANALYZE`).catch(() => {});

    // ---- main.js as a user starts it, behind a proxy on loopback ----
    const nodeArgs = ['--import', COUNTER, ...(PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${RESULTS}`] : []), ...EXTRA_NODE_ARGS];
    // The floors' uploads are more than a client's writes a minute: they run on a process of their own with the client's limits raised.
    const raised: Record<string, string> = { RATE_LIMIT_CLIENT_PER_MINUTE: '100000', RATE_LIMIT_CLIENT_WRITES_PER_MINUTE: '100000' };
    const service = await start(MAIN, { DATABASE_URL: databaseUrl, TRUST_PROXY: 'loopback', ...(FLOORS_ONLY ? raised : {}) }, nodeArgs);
    services.push(service);
    const pid = service.child.pid!;
    const idleRss = await rssMb(pid);
    log(`main.js ready (pid ${pid}), idle RSS ${idleRss.toFixed(0)} MB; load average ${await loadAverage()}`);
    const postgres = new PostgresCpu(monitor, tag);
    const erpPeriods = periods.slice(-4);
    let erpSequence = 1;
    const erpPost = async (k: number, tally: Tally) => {
      try {
        const res = await request(
          service.url,
          'POST',
          '/api/v1/declarations',
          {
            authorization: `Bearer ${tokens[k % tokens.length]!}`,
            'content-type': 'application/json',
            'x-forwarded-for': addressOf(100_000 + (k % tokens.length)),
          },
          declarationJson(20, erpPeriods[Math.floor(k / tokens.length) % erpPeriods.length]!, erpSequence++),
        );
        if (res.status !== 201) throw new Error(`${res.status}: ${res.body.slice(0, 200)}`);
        tally.latencies.erp_post.push(res.ms);
      } catch (error) {
        tally.errors.push({ step: 'erp_post', what: error instanceof Error ? error.message : String(error) });
      }
    };
    const newTally = (): Tally => ({
      latencies: Object.fromEntries([...STEPS, 'erp_post'].map((s) => [s, []])) as unknown as Tally['latencies'],
      errors: [],
      filed: 0,
    });

    if (FLOORS_ONLY) {
      const uploads = [];
      for (const [kind, size] of FLOOR_CASES)
        uploads.push(await uploadVersusFloor(service, pid, links.get(spare.pop()!)!, periods.at(-2)!, kind, size));
      const load = await loadAverage();
      for (const upload of uploads)
        process.stdout.write(
          `${upload.file}: service ${upload.service_cpu_ms.toFixed(2)} ms of CPU per upload, floor ${upload.floor_cpu_ms.toFixed(2)} ms: ${upload.ratio.toFixed(1)}× (rounds ${upload.rounds.map((r) => r.ratio.toFixed(1)).join(', ')}); p50 ${upload.p50_ms.toFixed(1)} ms; page ${upload.check_page_bytes} bytes; ${upload.round_trips_per_upload.toFixed(2)} round trips; the declaration page ${upload.declaration_page_cpu_ms.toFixed(2)} ms\n`,
        );
      process.stdout.write(`load average ${load}\n`);
      await writeFile(
        path.join(RESULTS, 'deadline-floors.json'),
        `${JSON.stringify({ date: new Date().toISOString(), load_average: load, uploads }, null, 2)}\n`,
      );
      return;
    }

    // ---- the write path alone: 20-line POSTs one at a time, round trips per request ----
    const writes = newTally();
    for (let k = 0; k < 100; k++) await erpPost(k, writes); // warm-up
    const writeCount = 400;
    const s0 = await statements(service);
    const c0 = await cpuMsOf(pid);
    await postgres.start();
    const w0 = performance.now();
    const measuredWrites = newTally();
    for (let k = 100; k < 100 + writeCount; k++) await erpPost(k, measuredWrites);
    const writeSeconds = (performance.now() - w0) / 1000;
    const writePgMs = await postgres.stop();
    const writeCpuMs = (await cpuMsOf(pid)) - c0;
    const writeStatements = (await statements(service)) - s0;
    const writeSorted = [...measuredWrites.latencies.erp_post].sort((a, b) => a - b);
    const writePath = {
      requests: writeCount,
      errors: measuredWrites.errors.length + writes.errors.length,
      round_trips_per_request: writeStatements / writeCount,
      service_cpu_ms_per_request: writeCpuMs / writeCount,
      postgres_cpu_ms_per_request: writePgMs / writeCount,
      per_second: writeCount / writeSeconds,
      p50_ms: percentile(writeSorted, 50),
      p99_ms: percentile(writeSorted, 99),
    };
    log(`write path, one at a time: ${JSON.stringify(writePath)}`);

    // ---- the uploads against their floor (csv-parse or SheetJS + the rules, here), each by one of the spare producers ----
    const uploads: Record<string, Awaited<ReturnType<typeof uploadVersusFloor>>> = {};
    const floors = await start(MAIN, { DATABASE_URL: databaseUrl, TRUST_PROXY: 'loopback', ...raised }, nodeArgs);
    services.push(floors);
    for (const [kind, size] of FLOOR_CASES) {
      const upload = await uploadVersusFloor(floors, floors.child.pid!, links.get(spare.pop()!)!, periods.at(-2)!, kind, size);
      uploads[upload.file] = upload;
      log(`upload to its check page against its floor: ${JSON.stringify(upload)}`);
    }
    await stop(floors);
    services.pop();

    // ---- the deadline hour ----
    const tally = newTally();
    const rand = random(46);
    const pause = async () => {
      await sleep(exponential(rand, THINK_MS));
    };
    const rss: { t: number; mb: number }[] = [];
    const heap: { t: number; heapUsed: number; heapTotal: number; external: number; arrayBuffers: number }[] = [];
    const began = performance.now();
    const onMemory = (m: { memory?: NodeJS.MemoryUsage }) => {
      if (m.memory) heap.push({ t: (performance.now() - began) / 1000, ...m.memory });
    };
    service.child.on('message', onMemory);
    const sampler = setInterval(() => {
      rssMb(pid).then(
        (mb) => rss.push({ t: (performance.now() - began) / 1000, mb }),
        () => {},
      );
      // Every 5 s: the V8 heap and the memory outside it (bench/count-statements.ts).
      if (rss.length % 5 === 0) service.child.send('memory');
    }, 1000);
    const load0 = await loadAverage();
    const s1 = await statements(service);
    const c1 = await cpuMsOf(pid);
    await postgres.start();
    const journeys: Promise<void>[] = [];
    // The ERPs: ERP_RATE posts a second, evenly, until the last producer has arrived.
    let erpDone = false;
    const erpLoop = (async () => {
      const inFlight: Promise<void>[] = [];
      for (let k = 0; !erpDone; k++) {
        inFlight.push(erpPost(100 + writeCount + k, tally));
        await sleep(1000 / ERP_RATE);
      }
      await Promise.all(inFlight);
    })();
    let at = 0;
    const producerLinks = producers.map((id) => links.get(id)!);
    for (let i = 0; i < PRODUCERS; i++) {
      at += exponential(rand, (ARRIVAL_SECONDS * 1000) / PRODUCERS);
      const wait = began + at - performance.now();
      if (wait > 0) await sleep(wait);
      journeys.push(journey(service.url, i, producerLinks[i]!, period, tally, pause));
    }
    const arrivedSeconds = (performance.now() - began) / 1000;
    erpDone = true;
    await Promise.all(journeys);
    await erpLoop;
    const seconds = (performance.now() - began) / 1000;
    clearInterval(sampler);
    service.child.off('message', onMemory);
    const pgMs = await postgres.stop();
    const cpuMs = (await cpuMsOf(pid)) - c1;
    const roundTrips = (await statements(service)) - s1;
    const load1 = await loadAverage();
    // BENCH_TRACE_STATEMENTS=1: which statements the service sent, most frequent first (bench/count-statements.ts).
    const trace = process.env.BENCH_TRACE_STATEMENTS === '1' ? await ask<unknown>(service, 'trace') : undefined;
    const erpCount = tally.latencies.erp_post.length;
    const requests = tally.filed * STEPS.length + erpCount;
    const steps = Object.fromEntries(
      [...STEPS, 'erp_post'].map((s) => {
        const sorted = [...tally.latencies[s as Step]].sort((a, b) => a - b);
        return [s, { count: sorted.length, p50_ms: percentile(sorted, 50), p99_ms: percentile(sorted, 99), max_ms: sorted.at(-1) }];
      }),
    );
    const half = seconds / 2;
    const result = {
      date: new Date().toISOString(),
      machine: `nproc ${os.cpus().length}, ${os.cpus()[0]?.model.trim()}, Node ${process.version}`,
      load_average: { before: load0, after: load1 },
      settings: {
        image_env: DEPLOYED_ENV,
        log_level: 'unset (info)',
        trust_proxy: 'loopback, an X-Forwarded-For address per producer and per ERP',
        producers: PRODUCERS,
        arrival_seconds: ARRIVAL_SECONDS,
        arrival: 'Poisson (exponential gaps, seeded)',
        think_ms_mean: THINK_MS,
        file: FILE === 'csv' ? `${LINES}-line CSV` : `per-product file, ${PRODUCTS} products × ${ELEMENTS.length} elements, ${FILE}`,
        erps: ERPS,
        erp_rate_per_s: ERP_RATE,
        erp_lines: 20,
        period,
      },
      write_path: writePath,
      uploads,
      deadline: {
        seconds,
        arrived_in_seconds: arrivedSeconds,
        filed: tally.filed,
        erp_posts: erpCount,
        errors: tally.errors.length,
        resent_after_connection_reset: resent,
        first_errors: tally.errors.slice(0, 10),
        steps,
        service_cpu_ms: cpuMs,
        postgres_cpu_ms: pgMs,
        /** Everything the service did over the run, the ERPs' posts included, per filing; and with the ERPs' share (at the write path's cost) taken out. */
        service_cpu_ms_per_filing: cpuMs / Math.max(1, tally.filed),
        service_cpu_ms_per_filing_without_erps: (cpuMs - erpCount * writePath.service_cpu_ms_per_request) / Math.max(1, tally.filed),
        postgres_cpu_ms_per_filing: pgMs / Math.max(1, tally.filed),
        postgres_cpu_ms_per_filing_without_erps: (pgMs - erpCount * writePath.postgres_cpu_ms_per_request) / Math.max(1, tally.filed),
        service_cores: cpuMs / 1000 / seconds,
        round_trips: roundTrips,
        round_trips_per_request: roundTrips / Math.max(1, requests),
        round_trips_per_filing_without_erps: (roundTrips - erpCount * writePath.round_trips_per_request) / Math.max(1, tally.filed),
        rss_idle_mb: idleRss,
        rss_max_first_half_mb: Math.max(...rss.filter((s) => s.t <= half).map((s) => s.mb)),
        rss_max_second_half_mb: Math.max(...rss.filter((s) => s.t > half).map((s) => s.mb)),
        rss_samples: rss.map((s) => [Math.round(s.t), Math.round(s.mb)]),
        statements_since_start: trace,
        /** MB: [s, heap used, heap total, external (array buffers included), array buffers]. */
        memory_samples: heap.map((h) =>
          [h.t, h.heapUsed, h.heapTotal, h.external, h.arrayBuffers].map((v) => Math.round(v > 1e4 ? v / 2 ** 20 : v)),
        ),
      },
    };
    await writeFile(path.join(RESULTS, 'deadline.json'), `${JSON.stringify(result, null, 2)}\n`);
    print(result);
  } catch (error) {
    for (const s of services) log(`service output:\n${s.tail.join('').slice(-3000)}`);
    throw error;
  } finally {
    for (const s of services) await stop(s).catch(() => {});
    await monitor.query(`DROP DATABASE IF EXISTS ${tag} WITH (FORCE)`).catch((e: unknown) => log(`could not drop ${tag}: ${String(e)}`));
    await monitor.end();
  }
}

/**
 * An upload to its check page against its floor, by one signed-in producer, one at a time, each file with
 * its own figures: FLOOR_ROUNDS rounds (BENCH_DEADLINE_FLOOR_ROUNDS, 5) of FLOOR_UPLOADS uploads
 * (BENCH_DEADLINE_FLOOR_UPLOADS, 60) after 10 of warm-up, each upload followed by the floor of the same
 * file: read in this process (csv-parse for a CSV, SheetJS for an .xlsx) and each line or row checked as
 * the service's rules check it, three times over, after a warm-up of every file read twice. The service's
 * CPU is its threads' over the round (schedstat: nanoseconds, where /proc/<pid>/stat counts 10 ms ticks),
 * the floor's this process's (process.cpuUsage). The ratio is the median of the rounds' ratios: a machine
 * that slows down for a moment slows the upload and the floor beside it alike.
 * The 1,000-line CSV: stream and unit known, material non-empty, quantity a non-negative decimal. The
 * per-product file: a product named on its first row with its units a whole number, a material of the
 * catalogue, a weight a decimal, a count per unit a whole number.
 */
async function uploadVersusFloor(
  service: Service,
  pid: number,
  link: string,
  period: string,
  kind: Exclude<FileKind, 'mixed'>,
  size: number,
) {
  const jar = new Jar();
  const token = new URL(link).searchParams.get('token')!;
  const headers = () => ({ cookie: jar.header(), 'x-forwarded-for': '10.250.0.1' });
  const linkPage = await request(service.url, 'GET', `/dashboard/sign-in/link?token=${token}`, headers());
  jar.take(linkPage.headers);
  const signIn = await request(
    service.url,
    'POST',
    '/dashboard/sign-in/link',
    { ...headers(), 'content-type': 'application/x-www-form-urlencoded' },
    form({ _csrf: hidden(linkPage.body, '_csrf') ?? '', token }),
  );
  jar.take(signIn.headers);
  const page = await request(service.url, 'GET', '/dashboard/declarations/new', headers());
  jar.take(page.headers);
  const csrf = hidden(page.body, '_csrf') ?? '';
  const files = Array.from({ length: 10 + FLOOR_UPLOADS }, (_, k) => uploadFile(kind, k + 1, size));
  const send = async (file: UploadFile) => {
    const res = await request(
      service.url,
      'POST',
      file.route,
      { ...headers(), 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
      multipart({ _csrf: csrf, period }, file),
    );
    if (res.status !== 200 || !res.body.includes('name="pending"'))
      throw new Error(
        `upload: ${res.status} ${res.body
          .replace(/<[^>]*>/g, ' ')
          .replace(/\s+/g, ' ')
          .slice(0, 600)}`,
      );
    return res;
  };
  const floorOnce = kind === 'csv' ? floorOfLines : (content: string | Buffer) => floorOfProducts(content, size);
  const measured = files.slice(10);
  for (const file of files.slice(0, 10)) await send(file);
  for (const file of [...files, ...files]) floorOnce(file.content);
  const s0 = await statements(service);
  const latencies: number[] = [];
  const rounds: { service_cpu_ms: number; floor_cpu_ms: number; ratio: number }[] = [];
  let pageBytes = 0;
  let lastPage = '';
  for (let round = 0; round < FLOOR_ROUNDS; round++) {
    const c0 = await threadsCpuMs(pid);
    let floorUs = 0;
    for (const file of measured) {
      const res = await send(file);
      latencies.push(res.ms);
      pageBytes = Buffer.byteLength(res.body);
      lastPage = res.body;
      const f0 = process.cpuUsage();
      for (let k = 0; k < 3; k++) floorOnce(file.content);
      const used = process.cpuUsage(f0);
      floorUs += used.user + used.system;
    }
    const serviceMs = ((await threadsCpuMs(pid)) - c0) / measured.length;
    const floorMs = floorUs / 1000 / (3 * measured.length);
    rounds.push({ service_cpu_ms: serviceMs, floor_cpu_ms: floorMs, ratio: serviceMs / floorMs });
  }
  const roundTrips = ((await statements(service)) - s0) / (FLOOR_ROUNDS * measured.length);
  // The last check page, to read what it holds.
  await writeFile(path.join(RESULTS, `check-page-${kind}-${size}.html`), lastPage);
  // The same session's declaration page (GET): what any dashboard request costs, to tell an upload's own work from it.
  for (let k = 0; k < 10; k++) await request(service.url, 'GET', '/dashboard/declarations/new', headers());
  const g0 = await cpuMsOf(pid);
  for (let k = 0; k < FLOOR_UPLOADS; k++) await request(service.url, 'GET', '/dashboard/declarations/new', headers());
  const pageMs = ((await cpuMsOf(pid)) - g0) / FLOOR_UPLOADS;
  const median = (values: number[]) => values.toSorted((a, b) => a - b)[values.length >> 1]!;
  const serviceMs = median(rounds.map((r) => r.service_cpu_ms));
  const floorMs = median(rounds.map((r) => r.floor_cpu_ms));
  const sorted = latencies.sort((a, b) => a - b);
  return {
    file:
      kind === 'csv'
        ? `${size.toLocaleString('en')}-line CSV`
        : `${size} products × ${ELEMENTS.length} elements, ${kind === 'xlsx' ? '.xlsx' : 'CSV'}`,
    bytes: Buffer.byteLength(files[0]!.content),
    service_cpu_ms: serviceMs,
    floor_cpu_ms: floorMs,
    ratio: median(rounds.map((r) => r.ratio)),
    rounds,
    target: '≤ 4× the floor',
    p50_ms: percentile(sorted, 50),
    p99_ms: percentile(sorted, 99),
    check_page_bytes: pageBytes,
    round_trips_per_upload: roundTrips,
    declaration_page_cpu_ms: pageMs,
  };
}

const FLOOR_STREAMS = new Set(['EMB']);
const FLOOR_UNITS = new Set(['kg', 'uvc']);

function floorOfLines(content: string | Buffer): void {
  const rows = parseCsv(content, { columns: true, skip_empty_lines: true, bom: true }) as Record<string, string>[];
  let valid = 0;
  for (const row of rows) {
    if (
      FLOOR_STREAMS.has(row.stream!) &&
      FLOOR_UNITS.has(row.unit!) &&
      row.material!.trim() !== '' &&
      /^\d+(\.\d+)?$/.test(row.quantity!) &&
      Number.isFinite(Number(row.quantity))
    )
      valid++;
  }
  if (valid !== rows.length) throw new Error(`floor: ${valid} valid lines of ${rows.length}`);
}

const FLOOR_MATERIALS = new Set(PRODUCT_MATERIALS);

function floorOfProducts(content: string | Buffer, expected: number): void {
  let rows: unknown[][];
  if (typeof content === 'string') rows = parseCsv(content, { delimiter: ';', relax_column_count: true, bom: true }) as string[][];
  else {
    const workbook = XLSX.read(content, { type: 'buffer', dense: true, cellFormula: false, cellHTML: false, cellText: false, sheets: 0 });
    rows = XLSX.utils.sheet_to_json<unknown[]>(workbook.Sheets[workbook.SheetNames[0]!]!, { header: 1, raw: true, defval: '' });
  }
  const whole = (cell: unknown) => (typeof cell === 'number' ? Number.isInteger(cell) && cell > 0 : /^\d+$/.test(String(cell)));
  const decimal = (cell: unknown) => (typeof cell === 'number' ? cell > 0 : /^\d+(,\d+)?$/.test(String(cell)));
  let products = 0;
  let elements = 0;
  for (const row of rows.slice(1)) {
    const [product, units, , material, weight, perUnit] = row;
    if (product !== '') {
      if (!whole(units)) throw new Error(`floor: units ${String(units)}`);
      products++;
    }
    if (products > 0 && FLOOR_MATERIALS.has(String(material)) && decimal(weight) && whole(perUnit)) elements++;
  }
  if (products !== expected || elements !== rows.length - 1) throw new Error(`floor: ${products} products, ${elements} valid rows`);
}

function print(result: {
  load_average: { before: string; after: string };
  write_path: Record<string, number>;
  uploads: Record<string, Record<string, unknown>>;
  deadline: Record<string, unknown> & { steps: Record<string, { count: number; p50_ms: number; p99_ms: number }> };
}): void {
  const d = result.deadline;
  const out = (s = '') => process.stdout.write(`${s}\n`);
  const f = (n: unknown, digits = 1) => (typeof n === 'number' && Number.isFinite(n) ? n.toFixed(digits) : '—');
  out();
  out(
    `The deadline hour: ${PRODUCERS} producers arriving over ${ARRIVAL_SECONDS} s (Poisson), pauses of mean ${THINK_MS} ms, ${FILE === 'csv' ? `${LINES}-line CSV` : `per-product file of ${PRODUCTS} products (${FILE})`}; ERPs ${ERP_RATE}/s of 20 lines over ${ERPS} clients`,
  );
  out(`load average before ${result.load_average.before}, after ${result.load_average.after}`);
  out();
  out('| step | count | p50 ms | p99 ms | target | result |');
  out('|---|---|---|---|---|---|');
  for (const [step, s] of Object.entries(d.steps)) {
    const target = step === 'upload_to_check' ? 1000 : step === 'erp_post' || step === 'file' || step === 'sign_in' ? undefined : 300;
    out(
      `| ${step} | ${s.count} | ${f(s.p50_ms)} | ${f(s.p99_ms)} | ${target ? `p99 < ${target} ms` : '(stated)'} | ${target ? (s.p99_ms < target ? 'PASS' : 'MISS') : ''} |`,
    );
  }
  out();
  out(
    `filed ${String(d.filed)}, ERP posts ${String(d.erp_posts)}, errors ${String(d.errors)} (target 0: ${d.errors === 0 ? 'PASS' : 'MISS'}); ${f(d.seconds)} s; ${String(d.resent_after_connection_reset)} sent again on a new connection after a reset kept-alive one`,
  );
  out(
    `service CPU per filing ${f(d.service_cpu_ms_per_filing)} ms (${f(d.service_cpu_ms_per_filing_without_erps)} without the ERPs' share); PostgreSQL ${f(d.postgres_cpu_ms_per_filing)} ms (${f(d.postgres_cpu_ms_per_filing_without_erps)}); service ${f(d.service_cores, 2)} cores`,
  );
  out(
    `round trips to PostgreSQL: ${f(d.round_trips_per_request, 2)} per request, ${f(d.round_trips_per_filing_without_erps, 1)} per filing (7 requests)`,
  );
  out(
    `RSS idle ${f(d.rss_idle_mb, 0)} MB, max ${f(d.rss_max_first_half_mb, 0)} MB (first half), ${f(d.rss_max_second_half_mb, 0)} MB (second half): target < 250 MB flat: ${(d.rss_max_second_half_mb as number) < 250 && (d.rss_max_first_half_mb as number) < 250 ? 'PASS' : 'MISS'}`,
  );
  const memory = (d.memory_samples as number[][]) ?? [];
  if (memory.length)
    out(
      `of which (every 5 s): V8 heap used max ${Math.max(...memory.map((m) => m[1]!))} MB of max ${Math.max(...memory.map((m) => m[2]!))} MB allocated; outside the heap (external, array buffers included) max ${Math.max(...memory.map((m) => m[3]!))} MB`,
    );
  out(`write path alone (20 lines, one at a time): ${JSON.stringify(result.write_path)}`);
  for (const upload of Object.values(result.uploads))
    out(
      `${String(upload.file)} to its check page: service ${f(upload.service_cpu_ms, 2)} ms of CPU per upload, floor ${f(upload.floor_cpu_ms, 2)} ms: ${f(upload.ratio)}× (target ≤ 4×: ${(upload.ratio as number) <= 4 ? 'PASS' : 'MISS'}; rounds ${(upload.rounds as { ratio: number }[]).map((r) => f(r.ratio)).join(', ')}); p50 ${f(upload.p50_ms)} ms, p99 ${f(upload.p99_ms)} ms; page ${String(upload.check_page_bytes)} bytes`,
    );
  out();
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  runDeadline().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
