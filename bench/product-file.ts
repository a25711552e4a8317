/**
 * `BENCH_ONLY=product-file npm run bench`: her per-product spreadsheet of 1,000 products × 5
 * packaging elements (5,000 rows), as .xlsx and as CSV, uploaded to « Nouvelle déclaration » through
 * the BUILT service with a dashboard session and its CSRF token, up to its check page (read, checked
 * against the catalogue rules, derived, checked as a declaration, rendered with the sealed
 * products). The service runs with the image's settings (bench/deployed.ts) and its
 * inspector on a loopback port, through which the bench forces a full garbage collection and reads
 * process.memoryUsage() (heap used, external, array buffers) after each phase. One request at a
 * time per format, then BENCH_FILE_PARALLEL .xlsx uploads at once (the busy hour: some answered 503
 * with Retry-After past the process's bound on parses at once); prints p50 and p99 per format, the
 * resident memory's peak per phase (VmHWM, reset between phases) and what is left after a forced
 * collection; writes bench/results/product-file.json. Target: p99 < 2 s, RSS < 250 MB.
 *
 * Environment: BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test),
 * BENCH_FILE_UPLOADS (uploads per format, 40), BENCH_FILE_PARALLEL (uploads at once in the last phase, 8),
 * BENCH_FILE_NODE_ARGS (node flags instead of the image's), BENCH_FILE_TRACE=1 (memory after each upload), BENCH_FILE_PROFILE=1 (a sampling heap profile per format).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFile, mkdir, writeFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import * as XLSX from '@e965/xlsx';
import pg from 'pg';
import { DEPLOYED_ENV, DEPLOYED_MALLOC } from './deployed.js';
import { generateToken, hashToken, SESSION_PREFIX } from '../src/common/token-format.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const MAIN = path.join(ROOT, 'dist/src/main.js');
const SERVER_URL = process.env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
const UPLOADS = Number(process.env.BENCH_FILE_UPLOADS || 40);
/** BENCH_FILE_TRACE=1: the service's memory after each sequential upload (no collection forced). */
const TRACE = process.env.BENCH_FILE_TRACE === '1';
/** BENCH_FILE_PROFILE=1: V8's sampling heap profile of each sequential phase, to bench/results/product-file-<format>.heapprofile. */
const PROFILE = process.env.BENCH_FILE_PROFILE === '1';
const PARALLEL = Number(process.env.BENCH_FILE_PARALLEL || 8);
/** BENCH_FILE_NODE_ARGS: node flags for the service instead of the image's NODE_OPTIONS (experiments, e.g. "--max-old-space-size=256"). */
const NODE_ARGS = process.env.BENCH_FILE_NODE_ARGS?.split(' ').filter(Boolean);
const PRODUCTS = 1000;
const ELEMENTS = 5;
const ADMIN_TOKEN = `bench-admin-${randomBytes(24).toString('hex')}`;
const MATERIALS = ['Verre', 'Papier-carton', 'Acier', 'Aluminium', 'Emballages rigides en PE et PP', 'Emballages souples en PE et PP'];
const HEADER = ['produit', 'UVC vendues sur le semestre', 'élément d’emballage', 'matériau', 'poids (g)', 'nombre par UVC'];

const log = (message: string) => process.stderr.write(`[bench product-file ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const quantile = (values: number[], q: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.ceil(q * values.length) - 1)]!;

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

/** The rows of the file: product i's units on its first row only, its 5 elements below. */
function rows(): (string | number)[][] {
  return Array.from({ length: PRODUCTS }, (_, i) =>
    Array.from({ length: ELEMENTS }, (_, e) => [
      e === 0 ? `Produit ${String(i).padStart(4, '0')}` : '',
      e === 0 ? 1 + ((i * 97) % 50_000) : '',
      `élément ${e + 1}`,
      MATERIALS[(i + e) % MATERIALS.length]!,
      Number(`${1 + ((i * 7 + e * 13) % 900)}.${(i * 31 + e) % 10}`),
      1 + ((i + e) % 4),
    ]),
  ).flat();
}

async function rssKiB(pid: number, field: 'VmRSS' | 'VmHWM'): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
}

/** Resets the process's peak resident memory (VmHWM) to its current one (Linux: `5` to clear_refs). */
async function resetPeak(pid: number): Promise<void> {
  await writeFile(`/proc/${pid}/clear_refs`, '5').catch(() => undefined);
}

const MB = (bytes: number) => Math.round(bytes / 1024 / 1024);

/** The service's inspector (loopback only): a full collection, then its memory as the process sees it. */
class Inspector {
  private id = 0;
  private readonly waiting = new Map<number, (result: unknown) => void>();
  private constructor(private readonly socket: WebSocket) {
    socket.addEventListener('message', (event) => {
      const message = JSON.parse(String(event.data)) as { id?: number; result?: unknown };
      if (message.id !== undefined) this.waiting.get(message.id)?.(message.result);
    });
  }
  static async open(port: number): Promise<Inspector> {
    const [target] = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as { webSocketDebuggerUrl: string }[];
    const socket = new WebSocket(target!.webSocketDebuggerUrl);
    await new Promise((resolve, reject) => {
      socket.addEventListener('open', resolve, { once: true });
      socket.addEventListener('error', reject, { once: true });
    });
    return new Inspector(socket);
  }
  private call(method: string, params: Record<string, unknown> = {}): Promise<unknown> {
    const id = ++this.id;
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      this.socket.send(JSON.stringify({ id, method, params }));
    });
  }
  /** After a forced full collection: RSS, heap used, external and array buffers, in MB. */
  async settled(): Promise<{ rss_mb: number; heap_used_mb: number; external_mb: number; array_buffers_mb: number }> {
    await this.call('HeapProfiler.collectGarbage');
    await sleep(200);
    await this.call('HeapProfiler.collectGarbage');
    const result = (await this.call('Runtime.evaluate', { expression: 'JSON.stringify(process.memoryUsage())', returnByValue: true })) as {
      result: { value: string };
    };
    const usage = JSON.parse(result.result.value) as NodeJS.MemoryUsage;
    return {
      rss_mb: MB(usage.rss),
      heap_used_mb: MB(usage.heapUsed),
      external_mb: MB(usage.external),
      array_buffers_mb: MB(usage.arrayBuffers),
    };
  }
  /** process.memoryUsage() as it is (no collection), in MB. */
  async now(): Promise<Record<string, number>> {
    const result = (await this.call('Runtime.evaluate', { expression: 'JSON.stringify(process.memoryUsage())', returnByValue: true })) as {
      result: { value: string };
    };
    return Object.fromEntries(Object.entries(JSON.parse(result.result.value) as Record<string, number>).map(([k, v]) => [k, MB(v)]));
  }
  /** Starts V8's sampling heap profiler, counting what collections free too (where a request's garbage comes from). */
  async startSampling(): Promise<void> {
    await this.call('HeapProfiler.startSampling', {
      samplingInterval: 32 * 1024,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true,
    });
  }
  async stopSampling(): Promise<unknown> {
    return ((await this.call('HeapProfiler.stopSampling')) as { profile: unknown }).profile;
  }
  close(): void {
    this.socket.close();
  }
}

export async function runProductFileBench(): Promise<void> {
  const name = `bench_file_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  const admin = new pg.Client({ connectionString: SERVER_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(SERVER_URL);
  url.pathname = `/${name}`;
  const port = await freePort();
  const inspectPort = await freePort();
  const base = `http://127.0.0.1:${port}`;
  let child: ChildProcess | undefined;
  try {
    child = spawn(process.execPath, [...(NODE_ARGS ?? []), `--inspect=127.0.0.1:${inspectPort}`, MAIN], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        ...(NODE_ARGS ? DEPLOYED_MALLOC : DEPLOYED_ENV),
        DATABASE_URL: url.toString(),
        PORT: String(port),
        HOST: '127.0.0.1',
        LOG_LEVEL: 'warn',
        ADMIN_TOKEN,
        RATE_LIMIT_CLIENT_PER_MINUTE: '1000000',
        RATE_LIMIT_CLIENT_WRITES_PER_MINUTE: '1000000',
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    for (let waited = 0; ; waited += 50) {
      if (waited > 120_000) throw new Error('the service did not start in 120 s');
      try {
        if ((await fetch(`${base}/health/ready`)).status === 200) break;
      } catch {
        // not listening yet
      }
      await sleep(50);
    }
    const clientId = 'bench-file';
    const created = await fetch(`${base}/api/v1/admin/clients`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        client_id: clientId,
        email: 'bench@example.fr',
        company: 'Bench SAS',
        country: 'FR',
        plan: 'business',
        streams: ['EMB'],
        idus: ['FR000000_01ABCD'],
      }),
    });
    if (created.status !== 201) throw new Error(`create client: ${created.status}`);
    await fetch(`${base}/api/v1/admin/clients/${clientId}/confirm`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: '{}',
    });
    const secret = generateToken(SESSION_PREFIX);
    const db = new pg.Client({ connectionString: url.toString() });
    await db.connect();
    await db.query(`INSERT INTO dashboard_sessions (client_id, session_hash, expires_at) VALUES ($1, $2, now() + interval '12 hours')`, [
      clientId,
      hashToken(secret),
    ]);
    await db.end();
    const page = await fetch(`${base}/dashboard/declarations/new`, { headers: { cookie: `epr_session=${secret}` } });
    const csrf = /name="_csrf" value="([^"]+)"/.exec(await page.text())?.[1];
    if (page.status !== 200 || !csrf) throw new Error(`the new declaration page: ${page.status}, no CSRF token`);
    const cookie = [`epr_session=${secret}`, ...page.headers.getSetCookie().map((c) => c.slice(0, c.indexOf(';')))].join('; ');

    const table = rows();
    const workbook = XLSX.utils.book_new();
    XLSX.utils.book_append_sheet(workbook, XLSX.utils.aoa_to_sheet([HEADER, ...table]), 'Produits');
    const files = {
      xlsx: XLSX.write(workbook, { type: 'buffer', bookType: 'xlsx', compression: true }) as Buffer,
      csv: Buffer.from(
        [HEADER, ...table]
          .map((row) => row.map((cell) => (typeof cell === 'number' ? String(cell).replace('.', ',') : cell)).join(';'))
          .join('\r\n'),
      ),
    };
    const pid = child.pid!;
    const inspector = await Inspector.open(inspectPort);
    const upload = async (format: string, bytes: Buffer) => {
      const form = new FormData();
      form.append('_csrf', csrf);
      form.append('period', '2026-S1');
      form.append('file', new Blob([bytes]), `produits.${format}`);
      const started = performance.now();
      const res = await fetch(`${base}/dashboard/declarations/product-file`, { method: 'POST', body: form, headers: { cookie } });
      const html = await res.text();
      const ms = performance.now() - started;
      if (res.status === 503 && res.headers.get('retry-after')) return { ms, busy: true };
      if (res.status !== 200 || !html.includes('name="pending"'))
        throw new Error(`${format}: ${res.status} ${html.slice(html.indexOf('<main'), html.indexOf('<main') + 600)}`);
      return { ms, busy: false };
    };
    const before = { rss_kib: await rssKiB(pid, 'VmRSS'), settled: await inspector.settled() };
    log(`before: RSS ${Math.round(before.rss_kib / 1024)} MB, after a full collection ${JSON.stringify(before.settled)}`);
    type Phase = { bytes: number; uploads: number; p50_ms: number; p99_ms: number; max_ms: number; peak_rss_mb: number; busy_503?: number };
    const results: Record<string, Phase & { settled: Awaited<ReturnType<Inspector['settled']>> }> = {};
    for (const [format, bytes] of Object.entries(files)) {
      await resetPeak(pid);
      if (PROFILE) await inspector.startSampling();
      const times: number[] = [];
      for (let i = 0; i < UPLOADS + 2; i++) {
        const { ms } = await upload(format, bytes);
        if (TRACE) log(`${format} ${i}: ${Math.round(ms)} ms ${JSON.stringify(await inspector.now())}`);
        // The first two warm the service up.
        if (i >= 2) times.push(ms);
      }
      const peak = MB((await rssKiB(pid, 'VmHWM')) * 1024);
      if (PROFILE) {
        await mkdir(path.join(ROOT, 'bench/results'), { recursive: true });
        await writeFile(
          path.join(ROOT, `bench/results/product-file-${format}.heapprofile`),
          JSON.stringify(await inspector.stopSampling()),
        );
      }
      results[format] = {
        bytes: bytes.length,
        uploads: times.length,
        p50_ms: Math.round(quantile(times, 0.5)),
        p99_ms: Math.round(quantile(times, 0.99)),
        max_ms: Math.round(Math.max(...times)),
        peak_rss_mb: peak,
        settled: await inspector.settled(),
      };
      log(`${format} (${bytes.length.toLocaleString('en')} bytes): ${JSON.stringify(results[format])}`);
    }
    {
      await resetPeak(pid);
      const times: number[] = [];
      let busy = 0;
      const rounds = Math.max(1, Math.ceil(UPLOADS / PARALLEL));
      for (let round = 0; round < rounds; round++) {
        const answers = await Promise.all(Array.from({ length: PARALLEL }, () => upload('xlsx', files.xlsx)));
        for (const answer of answers)
          if (answer.busy) busy++;
          else times.push(answer.ms);
      }
      const key = `xlsx_${PARALLEL}_at_once`;
      results[key] = {
        bytes: files.xlsx.length,
        uploads: rounds * PARALLEL,
        p50_ms: Math.round(quantile(times, 0.5)),
        p99_ms: Math.round(quantile(times, 0.99)),
        max_ms: Math.round(Math.max(...times)),
        peak_rss_mb: MB((await rssKiB(pid, 'VmHWM')) * 1024),
        busy_503: busy,
        settled: await inspector.settled(),
      };
      log(`${key}: ${JSON.stringify(results[key])}`);
    }
    inspector.close();
    const summary = {
      products: PRODUCTS,
      rows: PRODUCTS * ELEMENTS,
      node_args: NODE_ARGS,
      before_rss_mb: MB(before.rss_kib * 1024),
      before_settled: before.settled,
      results,
      target_p99_ms: 2000,
      target_rss_mb: 250,
    };
    process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
    await mkdir(path.join(ROOT, 'bench/results'), { recursive: true });
    await writeFile(path.join(ROOT, 'bench/results/product-file.json'), `${JSON.stringify(summary, null, 2)}\n`);
  } finally {
    child?.kill('SIGTERM');
    await sleep(500);
    const admin2 = new pg.Client({ connectionString: SERVER_URL });
    await admin2.connect();
    await admin2.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => undefined);
    await admin2.end();
  }
}
