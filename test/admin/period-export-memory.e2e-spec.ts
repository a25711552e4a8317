import { readFileSync } from 'node:fs';
import http from 'node:http';
import { startBackingDatabase, type BackingDatabase } from '../support/backing-database.js';
import { reportFigure, spawnApp, type SpawnedApp } from '../support/spawned-app.js';
import { ADMIN_TOKEN, SERVER_DATABASE_URL } from '../support/test-app.js';

// The built service as its own process, so that its memory is measured alone (not jest's).
let db: BackingDatabase;
let app: SpawnedApp;
beforeAll(async () => {
  db = await startBackingDatabase();
  // The production heap limit, and a small young generation so that RSS follows live memory rather
  // than garbage not yet collected (with the default 16 MB semi-spaces RSS wanders by ~50 MB).
  app = await spawnApp({ DATABASE_URL: db.url, LOG_LEVEL: 'warn', NODE_OPTIONS: '--max-old-space-size=384 --max-semi-space-size=1' });
}, 120_000);
afterAll(async () => {
  await app?.stop();
  await db?.close();
});

const LINES_PER_DECLARATION = 1000;
/** A small period and a large one: the export's memory is judged by how it grows from one to the other. */
const SMALL = { period: '2025-S1', declarations: 10 };
const LARGE = { period: '2025-S2', declarations: 200 };
/**
 * Most the service's peak RSS may grow per line exported, from the small period to the large one.
 * Streaming grows by nothing per line (its buffers are fixed); holding the rows costs over 2 KB a
 * line (hundreds of MB for 100,000 lines). The slope, unlike an absolute bound, does not move when a
 * busy machine adds the same tens of MB of noise to both exports.
 */
const MAX_KB_PER_LINE = 0.5;

/** Resident memory of the service, in MB. */
const rssMb = () => {
  try {
    return Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${app.process.pid}/status`, 'utf8'))![1]) / 1024;
  } catch {
    // The service is gone (out of memory, say): its download fails and says so.
    return Number.NaN;
  }
};

interface Download {
  status: number;
  bytes: number;
  body: Buffer[];
  peakMb: number;
  /** RSS when the reader stopped, once the socket buffers are full, and at the end of its pause. */
  pause: { startMb: number; settledMb: number; endMb: number; exportRunning: boolean | undefined };
}

/**
 * Downloads `path`, sampling the service's RSS. After the first MiB the reader stops for a second:
 * a service that ignored backpressure would go on reading rows and piling them up meanwhile.
 */
function download(path: string): Promise<Download> {
  return new Promise((resolve, reject) => {
    let peakMb = rssMb();
    const sampler = setInterval(() => (peakMb = Math.max(peakMb, rssMb() || 0)), 25);
    const pause: Download['pause'] = { startMb: 0, settledMb: 0, endMb: 0, exportRunning: undefined };
    const req = http.get(`${app.url}${path}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } }, (res) => {
      const body: Buffer[] = [];
      let bytes = 0;
      let paused = false;
      res.on('data', (chunk: Buffer) => {
        body.push(chunk);
        bytes += chunk.length;
        if (!paused && bytes >= 1 << 20) {
          paused = true;
          res.pause();
          pause.startMb = rssMb();
          // Until the kernel's socket buffers (several MB on loopback) are full, the service still writes.
          setTimeout(() => (pause.settledMb = rssMb()), 600);
          setTimeout(async () => {
            pause.endMb = rssMb();
            pause.exportRunning = await exportQueryRunning();
            res.resume();
          }, 1200);
        }
      });
      res.on('end', () => {
        clearInterval(sampler);
        resolve({ status: res.statusCode!, bytes, body, peakMb, pause });
      });
      res.on('error', reject);
    });
    req.on('error', (error) => {
      clearInterval(sampler);
      reject(error);
    });
  });
}

/** On a server: whether the export's query is still open (its cursor waiting for the reader). PGlite has one session: undefined. */
async function exportQueryRunning(): Promise<boolean | undefined> {
  if (!SERVER_DATABASE_URL) return undefined;
  const { rows } = await db.pool.query(
    // This file's database only (other runs of the suite may share the server), and words from the statement's
    // first lines: pg_stat_activity keeps only the first 1 kB of a statement (track_activity_query_size).
    `SELECT 1 FROM pg_stat_activity
      WHERE pid <> pg_backend_pid() AND datname = current_database() AND query LIKE '%trim_scale(l.quantity)::text AS quantity%'`,
  );
  return rows.length === 1;
}

/** Confirmed clients with one current declaration of LINES_PER_DECLARATION lines each in `period`, filled by SQL. */
async function fill(period: string, declarations: number): Promise<void> {
  await db.pool.query(
    `INSERT INTO clients (client_id, confirmed_email, confirmed_company, confirmed_country, confirmed_plan, confirmed_streams, confirmed_idus, confirmed_at)
     SELECT 'bulk-' || c, 'bulk' || c || '@example.fr', 'Bulk ' || c || ' SAS', 'FR', 'business', '{EMB}', '{FR000000_01ABCD}', now()
       FROM generate_series(1, $1::int) AS c ON CONFLICT DO NOTHING`,
    [declarations],
  );
  await db.pool.query(
    `INSERT INTO declarations (id, client_id, period, revision, status, supersedes, submitted_at, receipt, content_hash)
     SELECT md5($2 || '/' || c)::uuid, 'bulk-' || c, $2, 1, 'current', NULL, now(), 'EPR-BULK-' || $2 || '-' || c, 'x'
       FROM generate_series(1, $1::int) AS c`,
    [declarations, period],
  );
  await db.pool.query(
    `INSERT INTO declaration_lines (declaration_id, position, stream, material, material_code, unit, quantity)
     SELECT md5($3 || '/' || c)::uuid, p, 'EMB', 'Matériau numéro ' || p, NULL, 'kg', p + 0.125
       FROM generate_series(1, $1::int) AS c, generate_series(0, $2::int - 1) AS p`,
    [declarations, LINES_PER_DECLARATION, period],
  );
}

/** Both exports of a period, checked whole; their peak RSS above `baselineMb`. */
async function exportPeriod(period: string, declarations: number, baselineMb: number) {
  const json = await download(`/api/v1/admin/periods/${period}/export`);
  expect(json.status).toBe(200);
  const parsed = JSON.parse(Buffer.concat(json.body).toString('utf8')) as { declarations: Array<{ lines: unknown[] }> };
  expect(parsed.declarations).toHaveLength(declarations);
  expect(parsed.declarations.reduce((n, d) => n + d.lines.length, 0)).toBe(declarations * LINES_PER_DECLARATION);
  const csv = await download(`/api/v1/admin/periods/${period}/export.csv`);
  expect(csv.status).toBe(200);
  expect(Buffer.concat(csv.body).toString('utf8').trimEnd().split('\n')).toHaveLength(declarations * LINES_PER_DECLARATION + 1);
  return { json, csv, lines: declarations * LINES_PER_DECLARATION, growthMb: Math.max(json.peakMb, csv.peakMb) - baselineMb };
}

it(`streams a period in memory that does not grow with its size (${SMALL.declarations * LINES_PER_DECLARATION} and ${LARGE.declarations * LINES_PER_DECLARATION} lines)`, async () => {
  await fill(SMALL.period, SMALL.declarations);
  await fill(LARGE.period, LARGE.declarations);

  // Warm up (code paths, pools, the JIT) on an empty period, then take the baseline.
  for (let i = 0; i < 3; i++)
    expect(
      (await fetch(`${app.url}/api/v1/admin/periods/2024-S1/export`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).status,
    ).toBe(200);
  await new Promise((resolve) => setTimeout(resolve, 200));
  const baselineMb = rssMb();

  const small = await exportPeriod(SMALL.period, SMALL.declarations, baselineMb);
  const large = await exportPeriod(LARGE.period, LARGE.declarations, baselineMb);
  expect(large.json.bytes).toBeGreaterThan(16 * 2 ** 20);
  for (const { pause } of [large.json, large.csv]) {
    // While nobody reads, the service waits: on a server, the query's cursor is still open a second later
    // (the small period fits in the socket buffers). Its RSS stops growing once the buffers are full:
    // printed, not asserted, as that moment depends on the machine's speed.
    if (pause.exportRunning !== undefined) expect(pause.exportRunning).toBe(true);
  }
  const kbPerLine = ((large.growthMb - small.growthMb) * 1024) / (large.lines - small.lines);
  reportFigure(
    [small, large]
      .map(
        (e) =>
          `export of ${e.lines} lines: JSON ${(e.json.bytes / 2 ** 20).toFixed(1)} MiB, CSV ${(e.csv.bytes / 2 ** 20).toFixed(1)} MiB; ` +
          `service RSS +${e.growthMb.toFixed(0)} MB at its peak over ${baselineMb.toFixed(0)} MB; while the reader paused: ` +
          [e.json, e.csv]
            .map(({ pause: p }) => `${p.startMb.toFixed(0)} → ${p.settledMb.toFixed(0)} → ${p.endMb.toFixed(0)} MB`)
            .join(' (JSON), ') +
          ' (CSV)',
      )
      .join('\n') + `\ngrowth per line from the small period to the large one: ${kbPerLine.toFixed(3)} KB (bound ${MAX_KB_PER_LINE})`,
  );
  expect(kbPerLine).toBeLessThan(MAX_KB_PER_LINE);
}, 180_000);

const ELEMENTS_PER_PRODUCT = 5;
/** With `detail=products`: one declaration derived from a few products, and one derived from many. */
const FEW = { period: '2023-S1', products: 100 };
const MANY = { period: '2023-S2', products: 20_000 };

/** One client whose current declaration of `period` was derived from `products` products of ELEMENTS_PER_PRODUCT elements each, filled by SQL. */
async function fillDerived(period: string, products: number): Promise<void> {
  const clientId = `derived-${period.toLowerCase()}`;
  const params = [period, clientId, products];
  await db.pool.query(
    `INSERT INTO clients (client_id, confirmed_email, confirmed_company, confirmed_country, confirmed_plan, confirmed_streams, confirmed_idus, confirmed_at)
     VALUES ($1, $1 || '@example.fr', 'Catalogue SAS', 'FR', 'business', '{EMB}', '{FR000000_01ABCD}', now())`,
    [clientId],
  );
  await db.pool.query(
    `INSERT INTO declarations (id, client_id, period, revision, status, supersedes, submitted_at, receipt, content_hash)
     VALUES (md5('derived/' || $1::text)::uuid, $2, $1, 1, 'current', NULL, now(), 'EPR-DERIVED-' || $1::text, 'x')`,
    [period, clientId],
  );
  await db.pool.query(
    `INSERT INTO declaration_lines (declaration_id, position, stream, material, material_code, unit, quantity)
     VALUES (md5('derived/' || $1::text)::uuid, 0, 'EMB', 'glass', 'glass', 'kg', 1)`,
    [period],
  );
  await db.pool.query(
    `INSERT INTO products (id, client_id, reference) SELECT md5($1::text || '/p/' || n)::uuid, $2::text, 'REF-' || lpad(n::text, 6, '0') FROM generate_series(1, $3::int) AS n`,
    params,
  );
  await db.pool.query(
    `INSERT INTO product_versions (id, product_id, valid_from, name, stream, gtin, content_hash)
     SELECT md5($1::text || '/v/' || n)::uuid, md5($1::text || '/p/' || n)::uuid, $1, 'Produit numéro ' || n, 'EMB', NULL, 'x' FROM generate_series(1, $2::int) AS n`,
    [period, products],
  );
  await db.pool.query(
    `INSERT INTO product_elements (version_id, position, material_code, weight_g, per_unit)
     SELECT md5($1::text || '/v/' || n)::uuid, e, (ARRAY['glass', 'paper_cardboard', 'aluminium', 'steel', 'plastic_pet_tray'])[e + 1], 10.125 + e, 1
       FROM generate_series(1, $2::int) AS n, generate_series(0, $3::int - 1) AS e`,
    [period, products, ELEMENTS_PER_PRODUCT],
  );
  await db.pool.query(
    `INSERT INTO declaration_derivations (declaration_id, client_id, period, products) VALUES (md5('derived/' || $1::text)::uuid, $2, $1, $3::int)`,
    params,
  );
  await db.pool.query(
    `INSERT INTO declaration_derivation_contributions (declaration_id, version_id, stream, material_code, units, elements, kg)
     SELECT md5('derived/' || $1::text)::uuid, v.id, 'EMB', e.material_code, 100, 100, 1
       FROM product_versions v JOIN product_elements e ON e.version_id = v.id WHERE v.valid_from = $1`,
    [period],
  );
}

/** Both exports of a period with `detail=products`, checked whole; their peak RSS above `baselineMb`. */
async function exportDetail(period: string, products: number, baselineMb: number) {
  const json = await download(`/api/v1/admin/periods/${period}/export?detail=products`);
  expect(json.status).toBe(200);
  const parsed = JSON.parse(Buffer.concat(json.body).toString('utf8')) as {
    declarations: Array<{ products: Array<{ elements: unknown[] }> }>;
  };
  expect(parsed.declarations).toHaveLength(1);
  expect(parsed.declarations[0]!.products).toHaveLength(products);
  expect(parsed.declarations[0]!.products.every((p) => p.elements.length === ELEMENTS_PER_PRODUCT)).toBe(true);
  const csv = await download(`/api/v1/admin/periods/${period}/export.csv?detail=products`);
  expect(csv.status).toBe(200);
  expect(Buffer.concat(csv.body).toString('utf8').trimEnd().split('\n')).toHaveLength(products * ELEMENTS_PER_PRODUCT + 1);
  return { json, csv, elements: products * ELEMENTS_PER_PRODUCT, growthMb: Math.max(json.peakMb, csv.peakMb) - baselineMb };
}

it(`with detail=products, streams a declaration derived from many products one product at a time (${FEW.products * ELEMENTS_PER_PRODUCT} and ${MANY.products * ELEMENTS_PER_PRODUCT} elements)`, async () => {
  await fillDerived(FEW.period, FEW.products);
  await fillDerived(MANY.period, MANY.products);
  for (let i = 0; i < 3; i++)
    expect(
      (
        await fetch(`${app.url}/api/v1/admin/periods/2024-S1/export?detail=products`, {
          headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
        })
      ).status,
    ).toBe(200);
  await new Promise((resolve) => setTimeout(resolve, 200));
  const baselineMb = rssMb();

  const few = await exportDetail(FEW.period, FEW.products, baselineMb);
  const many = await exportDetail(MANY.period, MANY.products, baselineMb);
  const kbPerElement = ((many.growthMb - few.growthMb) * 1024) / (many.elements - few.elements);
  reportFigure(
    [few, many]
      .map(
        (e) =>
          `export with detail=products of one declaration of ${e.elements} product elements: JSON ${(e.json.bytes / 2 ** 20).toFixed(1)} MiB, ` +
          `CSV ${(e.csv.bytes / 2 ** 20).toFixed(1)} MiB; service RSS +${e.growthMb.toFixed(0)} MB at its peak over ${baselineMb.toFixed(0)} MB`,
      )
      .join('\n') + `\ngrowth per element: ${kbPerElement.toFixed(3)} KB (bound ${MAX_KB_PER_LINE})`,
  );
  expect(kbPerElement).toBeLessThan(MAX_KB_PER_LINE);
}, 180_000);
