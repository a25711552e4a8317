/**
 * Prometheus metrics (METRICS_PORT, docs/operations.md): read after traffic, on their own port only.
 */
import { randomUUID } from 'node:crypto';
import { periodLockKey } from '../src/declarations/declarations.repository.js';
import { createClientWithToken } from './support/factories.js';
import { ADMIN_TOKEN, freePort, SERVER_DATABASE_URL, startTestApp, type TestApp } from './support/test-app.js';

let t: TestApp;
let metricsPort: number;
beforeAll(async () => {
  metricsPort = await freePort();
  // An SMTP server that is not there: every e-mail fails.
  const noSmtp = await freePort();
  t = await startTestApp({
    env: { METRICS_PORT: String(metricsPort), SMTP_URL: `smtp://127.0.0.1:${noSmtp}` },
    queryTimeouts: { statementMs: 1_000, queryMs: 3_000 },
  });
}, 60_000);
afterAll(async () => {
  await t?.close();
});

const scrape = async () => {
  const res = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return res.text();
};

/** The value of one sample, by its name and labels as written. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

const duration = (method: string, route: string, status: number) =>
  `epr_http_request_duration_seconds_count{method="${method}",route="${route}",status="${status}"}`;

it('counts requests by route template and status, the pool, timeouts, failed e-mails and the process, on METRICS_PORT only', async () => {
  const { token, clientId } = await createClientWithToken(t);
  const auth = { authorization: `Bearer ${token}` };
  for (let i = 0; i < 3; i++) expect((await fetch(`${t.url}/api/v1/declarations`, { headers: auth })).status).toBe(200);
  const unknown = randomUUID();
  expect((await fetch(`${t.url}/api/v1/declarations/${unknown}`, { headers: auth })).status).toBe(404);
  expect((await fetch(`${t.url}/no/such/${unknown}`)).status).toBe(404);
  expect((await fetch(`${t.url}/api/v1/streams.json`)).status).toBe(200);
  // Never on the public port.
  expect((await fetch(`${t.url}/metrics`)).status).toBe(404);

  // A sign-in link to e-mail, with no SMTP server to take it: queued (201), its first attempt fails
  // after the answer and it waits for the next one (30 s later by default).
  const mailed = await fetch(`${t.url}/api/v1/admin/clients/${clientId}/sign-in-links`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ send: true }),
  });
  expect(mailed.status).toBe(201);
  const attempted = (text: string) => sample(text, 'epr_mail_failed_total') === 1 && sample(text, 'epr_mail_queued') === 1;
  for (let i = 0; i < 100 && !attempted(await scrape()); i++) await new Promise((r) => setTimeout(r, 100));

  // On the server: a declaration waiting on its (client, period) lock, held here, past the 1 s
  // statement timeout: 503. (On the embedded database, an open transaction holds back every other
  // connection, and the request fails waiting for one instead.)
  if (SERVER_DATABASE_URL) {
    const holder = await t.pool.connect();
    await holder.query('BEGIN');
    await holder.query('SELECT pg_advisory_xact_lock($1)', [periodLockKey(clientId, '2026-S1')]);
    const blocked = await fetch(`${t.url}/api/v1/declarations`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ period: '2026-S1', lines: [{ stream: 'EMB', material: 'glass', unit: 'uvc', quantity: 1 }] }),
    });
    await holder.query('ROLLBACK');
    holder.release();
    expect(blocked.status).toBe(503);
  }

  const text = await scrape();
  expect(sample(text, duration('GET', '/api/v1/declarations', 200))).toBe(3);
  expect(sample(text, duration('GET', '/api/v1/declarations/:id', 404))).toBe(1);
  // /no/such/… and /metrics on the public port.
  expect(sample(text, duration('GET', '(unmatched)', 404))).toBe(2);
  expect(sample(text, duration('GET', '(public files)', 200))).toBe(1);
  // A latency histogram: cumulative buckets, the last one holding every request, and their sum.
  const buckets = text
    .split('\n')
    .filter((l) => l.startsWith('epr_http_request_duration_seconds_bucket{method="GET",route="/api/v1/declarations",status="200",'));
  expect(buckets).toHaveLength(14);
  const counts = buckets.map((l) => Number(l.split(' ')[1]));
  expect(counts).toEqual([...counts].sort((a, b) => a - b));
  expect(buckets.at(-1)).toMatch(/le="\+Inf"\} 3$/);
  expect(sample(text, 'epr_http_request_duration_seconds_sum{method="GET",route="/api/v1/declarations",status="200"}')).toBeGreaterThan(0);
  // No path, token or identifier is ever a label.
  expect(text).not.toContain(unknown);
  expect(text).not.toContain(token);
  expect(text).not.toContain(clientId);

  expect(sample(text, 'epr_db_pool_max')).toBe(10);
  expect(sample(text, 'epr_db_pool_connections')).toBeGreaterThan(0);
  expect(sample(text, 'epr_db_pool_waiting')).toBe(0);
  expect(sample(text, 'epr_db_query_timeouts_total{kind="statement"}')).toBe(SERVER_DATABASE_URL ? 1 : 0);
  expect(sample(text, 'epr_db_query_timeouts_total{kind="query"}')).toBe(0);
  if (SERVER_DATABASE_URL) expect(sample(text, duration('POST', '/api/v1/declarations', 503))).toBe(1);
  expect(sample(text, 'epr_mail_failed_total')).toBe(1);
  expect(sample(text, 'epr_mail_sent_total')).toBe(0);
  expect(sample(text, 'epr_mail_queued')).toBe(1);
  // Node's own: event-loop lag, heap, resident memory.
  expect(sample(text, 'nodejs_eventloop_lag_seconds')).toBeGreaterThanOrEqual(0);
  expect(sample(text, 'nodejs_heap_size_used_bytes')).toBeGreaterThan(0);
  expect(sample(text, 'process_resident_memory_bytes')).toBeGreaterThan(0);

  // Only GET /metrics.
  expect((await fetch(`http://127.0.0.1:${metricsPort}/`)).status).toBe(404);
}, 60_000);
