/**
 * `BENCH_ONLY=products npm run bench` (or `npm run bench:products`): the derived declaration of a
 * half-year from 10,000 products × 5 packaging elements, through the BUILT service
 * (`GET /api/v1/periods/{period}/derived-declaration`, lines with every product's contribution),
 * against one SQL GROUP BY over the same rows run by psql, in the same run, alternately, on a fresh
 * database of the PostgreSQL server. Prints the medians and their ratio; writes
 * bench/results/products.json.
 *
 * Environment: BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test),
 * BENCH_PRODUCTS (10000), BENCH_ROUNDS (5).
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { DEPLOYED_ENV } from './deployed.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const MAIN = path.join(ROOT, 'dist/src/main.js');
const SERVER_URL = process.env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
const PRODUCTS = Number(process.env.BENCH_PRODUCTS || 10_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS || 5);
const ELEMENTS = 5;
const PERIOD = '2026-S1';
const ADMIN_TOKEN = `bench-admin-${randomBytes(24).toString('hex')}`;
const MATERIALS = ['glass', 'paper_cardboard', 'steel', 'aluminium', 'plastic_pe_pp_rigid', 'plastic_pet_bottle_clear', 'liquid_carton'];

const log = (message: string) => process.stderr.write(`[bench products ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** The GROUP BY psql runs: the lines of the half-year (version in force per product, Σ units × per_unit × grams / 1000 per stream and material). */
const GROUP_BY = `
  WITH sold AS (
    SELECT DISTINCT ON (p.id) v.id AS version_id, v.stream, s.units
      FROM product_sales s JOIN products p ON p.id = s.product_id
      JOIN product_versions v ON v.product_id = p.id AND v.valid_from <= '${PERIOD}'
     WHERE p.client_id = 'bench-products' AND s.period = '${PERIOD}' AND s.units > 0
     ORDER BY p.id, v.valid_from DESC)
  SELECT sold.stream, e.material_code, sum(sold.units * e.per_unit * e.weight_g) / 1000 AS kg, count(DISTINCT sold.version_id) AS products
    FROM sold JOIN product_elements e ON e.version_id = sold.version_id
   GROUP BY sold.stream, e.material_code ORDER BY 1, 2`;

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

function databaseUrl(name: string): string {
  const url = new URL(SERVER_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

async function onServer(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: SERVER_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

async function call(base: string, method: string, url: string, token: string, body?: unknown): Promise<{ status: number; text: string }> {
  const res = await fetch(`${base}${url}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, text: await res.text() };
}

async function expectStatus(promise: Promise<{ status: number; text: string }>, status: number, what: string): Promise<string> {
  const res = await promise;
  if (res.status !== status) throw new Error(`${what}: expected ${status}, got ${res.status}: ${res.text.slice(0, 500)}`);
  return res.text;
}

/** A deterministic catalogue: product i has 5 elements of varying material, grams with 3 decimals and count per unit. */
function product(i: number) {
  return {
    reference: `P-${String(i).padStart(6, '0')}`,
    name: `Produit ${i}`,
    stream: 'EMB',
    valid_from: PERIOD,
    elements: Array.from({ length: ELEMENTS }, (_, e) => ({
      material: MATERIALS[(i + e) % MATERIALS.length],
      weight_g: Number(`${1 + ((i * 7 + e * 13) % 900)}.${String((i * 31 + e) % 1000).padStart(3, '0')}`),
      per_unit: 1 + ((i + e) % 4),
    })),
  };
}

function psqlMs(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    execFile(
      'psql',
      ['-X', '-q', '-A', '-t', '-v', 'ON_ERROR_STOP=1', url, '-c', GROUP_BY],
      { maxBuffer: 16 * 1024 * 1024 },
      (error, stdout) => {
        if (error) return reject(error);
        if (!stdout.trim()) return reject(new Error('psql returned no lines'));
        resolve(performance.now() - started);
      },
    );
  });
}

export async function runProductsBench(): Promise<void> {
  const name = `bench_products_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  await onServer(`CREATE DATABASE ${name}`);
  const url = databaseUrl(name);
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  let child: ChildProcess | undefined;
  try {
    child = spawn(process.execPath, [MAIN], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        ...DEPLOYED_ENV,
        DATABASE_URL: url,
        PORT: String(port),
        HOST: '127.0.0.1',
        LOG_LEVEL: 'warn',
        ADMIN_TOKEN,
        RATE_LIMIT_CLIENT_PER_MINUTE: '1000000',
        RATE_LIMIT_CLIENT_WRITES_PER_MINUTE: '1000000',
        RATE_LIMIT_OPERATOR_PER_MINUTE: '1000000',
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
    const clientId = 'bench-products';
    await expectStatus(
      call(base, 'POST', '/api/v1/admin/clients', ADMIN_TOKEN, {
        client_id: clientId,
        email: 'bench@example.fr',
        company: 'Bench SAS',
        country: 'FR',
        plan: 'business',
        streams: ['EMB'],
        idus: ['FR000000_01ABCD'],
      }),
      201,
      'create client',
    );
    await expectStatus(call(base, 'POST', `/api/v1/admin/clients/${clientId}/confirm`, ADMIN_TOKEN, {}), 200, 'confirm');
    const token = (
      JSON.parse(await expectStatus(call(base, 'POST', `/api/v1/admin/clients/${clientId}/tokens`, ADMIN_TOKEN, {}), 201, 'token')) as {
        token: string;
      }
    ).token;

    log(`loading ${PRODUCTS} products × ${ELEMENTS} elements and their sales through the API`);
    const loadStarted = performance.now();
    for (let from = 0; from < PRODUCTS; from += 1000) {
      const batch = Array.from({ length: Math.min(1000, PRODUCTS - from) }, (_, k) => product(from + k));
      await expectStatus(call(base, 'POST', '/api/v1/products', token, { products: batch }), 201, `products ${from}`);
    }
    const sales = Array.from({ length: PRODUCTS }, (_, i) => ({ reference: product(i).reference, units: 1 + ((i * 97) % 50_000) }));
    for (let from = 0; from < PRODUCTS; from += 10_000) {
      await expectStatus(
        call(base, 'POST', `/api/v1/sales?period=${PERIOD}`, token, { sales: sales.slice(from, from + 10_000) }),
        200,
        'sales',
      );
    }
    const loadMs = performance.now() - loadStarted;
    log(`loaded in ${Math.round(loadMs)} ms`);

    // Warm both paths once, then alternate.
    const warm = JSON.parse(
      await expectStatus(call(base, 'GET', `/api/v1/periods/${PERIOD}/derived-declaration`, token), 200, 'preview'),
    ) as { lines: unknown[]; products: number };
    if (warm.products !== PRODUCTS) throw new Error(`the preview counts ${warm.products} products, not ${PRODUCTS}`);
    await psqlMs(url);
    const service: number[] = [];
    const psql: number[] = [];
    let bytes = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const started = performance.now();
      bytes = (await expectStatus(call(base, 'GET', `/api/v1/periods/${PERIOD}/derived-declaration`, token), 200, 'preview')).length;
      service.push(performance.now() - started);
      psql.push(await psqlMs(url));
    }
    const result = {
      products: PRODUCTS,
      elements: PRODUCTS * ELEMENTS,
      lines: warm.lines.length,
      rounds: ROUNDS,
      service_ms_median: median(service),
      psql_ms_median: median(psql),
      ratio: median(service) / median(psql),
      response_bytes: bytes,
      load_ms: loadMs,
      service_ms: service,
      psql_ms: psql,
    };
    process.stdout.write(
      `\n| case | median ms | \n|---|---|\n| GET derived-declaration (${PRODUCTS} products × ${ELEMENTS} elements, with contributions, ${(bytes / 1e6).toFixed(1)} MB) | ${result.service_ms_median.toFixed(1)} |\n| psql: one GROUP BY over the same rows (process start included) | ${result.psql_ms_median.toFixed(1)} |\n\nratio service / psql: ${result.ratio.toFixed(2)}×\n\n`,
    );
    await mkdir(path.join(ROOT, 'bench/results'), { recursive: true });
    await writeFile(path.join(ROOT, 'bench/results/products.json'), `${JSON.stringify(result, null, 2)}\n`);
  } finally {
    if (child && child.exitCode === null) {
      const exited = new Promise((resolve) => child!.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    await onServer(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  runProductsBench().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
