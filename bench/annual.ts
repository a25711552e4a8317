/**
 * The annual export case: `GET /api/v1/admin/years/{year}/export?eco_organism=…` as CSV,
 * 100,000 rows, against psql's `COPY (the same query) TO STDOUT WITH CSV` on the same database, in
 * the same run: the ratio of wall times and the service's RSS while it streams.
 *
 * Alone: `npm run build && BENCH_ONLY=annual node dist/bench/run.js` (or `node dist/bench/annual.js`).
 * BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test), BENCH_ANNUAL_ROWS (100000),
 * BENCH_ROUNDS (3).
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { DEPLOYED_ENV } from './deployed.js';
import { ANNUAL_ROWS } from '../src/exports/annual-export.repository.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const MAIN = path.join(ROOT, 'dist/src/main.js');
const SERVER_URL = process.env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
const ROWS = Number(process.env.BENCH_ANNUAL_ROWS || 100_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS || 3);
const ADMIN_TOKEN = `bench-admin-${randomBytes(24).toString('hex')}`;
/** Rows per client: 50 materials × 1 unit; every row sums an S1 and an S2 line. */
const MATERIALS = 50;

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });

async function rssMb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/^VmRSS:\s+(\d+)\s+kB$/m.exec(status)?.[1]) / 1024;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

export interface AnnualResult {
  rows: number;
  service_ms: number;
  psql_ms: number;
  ratio: number;
  service_bytes: number;
  psql_bytes: number;
  rss_idle_mb: number;
  rss_max_mb: number;
}

export async function runAnnual(): Promise<AnnualResult> {
  const name = `bench_annual_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  const admin = new pg.Client({ connectionString: SERVER_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(SERVER_URL);
  url.pathname = `/${name}`;
  const port = await freePort();
  const child = spawn(process.execPath, [MAIN], {
    env: {
      PATH: process.env.PATH ?? '',
      ...DEPLOYED_ENV,
      DATABASE_URL: url.toString(),
      PORT: String(port),
      HOST: '127.0.0.1',
      ADMIN_TOKEN,
      LOG_LEVEL: 'warn',
      NODE_ENV: 'production',
      CONTACT_EMAIL: 'bench@example.org',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const base = `http://127.0.0.1:${port}`;
  try {
    for (let i = 0; ; i++) {
      if (i > 600) throw new Error('the service did not start');
      if (
        (await fetch(`${base}/health/ready`).then(
          (r) => r.status,
          () => 0,
        )) === 200
      )
        break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const clients = Math.ceil(ROWS / MATERIALS);
    const db = new pg.Client({ connectionString: url.toString() });
    await db.connect();
    await db.query(
      `INSERT INTO clients (client_id, pending_email, pending_company, pending_country, pending_plan, pending_streams,
                            confirmed_email, confirmed_company, confirmed_country, confirmed_plan, confirmed_streams, confirmed_at, first_confirmed_at)
       SELECT 'annual-' || i, 'c' || i || '@example.fr', 'Client ' || i || ' SAS', 'FR', 'business', '{EMB}',
              'c' || i || '@example.fr', 'Client ' || i || ' SAS', 'FR', 'business', '{EMB}', now(), '2024-01-01'
         FROM generate_series(1, $1) AS i`,
      [clients],
    );
    await db.query(`INSERT INTO client_streams (client_id, stream, eco_organism) SELECT client_id, 'EMB', 'Citeo' FROM clients`);
    await db.query(
      `INSERT INTO declarations (client_id, period, revision, status, supersedes, submitted_at, receipt, content_hash)
       SELECT client_id, p, 1, 'current', NULL, now(), 'EPR-' || replace(p, '-', '') || '-R1-' || upper(substr(md5(client_id || p), 1, 8)), md5(client_id || p)
         FROM clients, unnest(ARRAY['2025-S1', '2025-S2']) AS p`,
    );
    await db.query(
      `INSERT INTO declaration_lines (declaration_id, position, stream, material, material_code, unit, quantity)
       SELECT d.id, m, 'EMB', 'Matériau ' || m, NULL, 'uvc', (m * 7 + 1)
         FROM declarations d, generate_series(1, $1) AS m`,
      [MATERIALS],
    );
    await db.query('ANALYZE');
    await db.end();

    const rssIdle = await rssMb(child.pid!);
    let rssMax = rssIdle;
    const service: number[] = [];
    const psql: number[] = [];
    let serviceBytes = 0;
    let psqlBytes = 0;
    const copy = `COPY (${ANNUAL_ROWS.replaceAll('$1', "'2025-S1'").replaceAll('$2', "'2025-S2'").replaceAll('$3', "'Citeo'")}) TO STDOUT WITH CSV HEADER`;
    for (let round = 0; round < ROUNDS; round++) {
      const sampler = setInterval(
        () =>
          rssMb(child.pid!).then(
            (mb) => (rssMax = Math.max(rssMax, mb)),
            () => {},
          ),
        20,
      );
      let started = performance.now();
      const res = await fetch(`${base}/api/v1/admin/years/2025/export?eco_organism=Citeo`, {
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, accept: 'text/csv' },
      });
      serviceBytes = 0;
      for await (const chunk of res.body!) serviceBytes += (chunk as Uint8Array).byteLength;
      service.push(performance.now() - started);
      clearInterval(sampler);

      started = performance.now();
      psqlBytes = await new Promise<number>((resolve, reject) => {
        const p = spawn('psql', [url.toString(), '-X', '-q', '-c', copy], { stdio: ['ignore', 'pipe', 'inherit'] });
        let bytes = 0;
        p.stdout.on('data', (c: Buffer) => (bytes += c.length));
        p.on('error', reject);
        p.on('close', (code) => (code === 0 ? resolve(bytes) : reject(new Error(`psql exited ${code}`))));
      });
      psql.push(performance.now() - started);
    }
    const result: AnnualResult = {
      rows: clients * MATERIALS,
      service_ms: median(service),
      psql_ms: median(psql),
      ratio: median(service) / median(psql),
      service_bytes: serviceBytes,
      psql_bytes: psqlBytes,
      rss_idle_mb: rssIdle,
      rss_max_mb: rssMax,
    };
    process.stdout.write(
      `annual export, ${result.rows} rows (CSV): service ${result.service_ms.toFixed(0)} ms, psql COPY ${result.psql_ms.toFixed(0)} ms, ratio ${result.ratio.toFixed(2)}× ` +
        `(median of ${ROUNDS}); ${(result.service_bytes / 1e6).toFixed(1)} MB vs ${(result.psql_bytes / 1e6).toFixed(1)} MB; RSS ${result.rss_idle_mb.toFixed(0)} → max ${result.rss_max_mb.toFixed(0)} MB\n`,
    );
    return result;
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    const dropper = new pg.Client({ connectionString: SERVER_URL });
    await dropper.connect();
    await dropper.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await dropper.end();
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  runAnnual().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
