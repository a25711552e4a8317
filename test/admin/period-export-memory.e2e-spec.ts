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
    `SELECT 1 FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND query LIKE '%JOIN declaration_lines l ON l.declaration_id = d.id%'`,
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
