/**
 * The load generator of `bench/run.ts`, in a process of its own (forked with an IPC channel):
 * HTTP load through autocannon, and the raw `pg` transaction loop that POST is compared with.
 * Each job answers with every response's latency (ms, float), so that run.ts computes exact
 * percentiles (autocannon's own histogram rounds to whole milliseconds).
 */
import { createHash, randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';
import pg from 'pg';

/** What a client sends: GETs (optionally rotating bearer tokens), declarations, or a mix. */
export type Plan =
  | { kind: 'get'; path: string; headers?: Record<string, string>; tokens?: string[] }
  | { kind: 'post'; tokens: string[]; periods: string[]; lines: number }
  | { kind: 'mixed'; tokens: string[]; periods: string[]; etag: string; acceptEncoding: string; dashboard?: MixedDashboard };

/** A signed-in browser of the dashboard: its `Cookie` header (session and CSRF cookies) and its form's CSRF token. */
export interface DashboardBrowser {
  cookie: string;
  csrf: string;
}

/**
 * The dashboard's share of the mixed load: the overview and the declarations list over
 * `sessionCookies`, a 4-line declaration by form and a 1,000-line CSV upload over `browsers`.
 */
export interface MixedDashboard {
  sessionCookies: string[];
  browsers: DashboardBrowser[];
  periods: string[];
}

export interface HttpJob {
  kind: 'http';
  url: string;
  connections: number;
  seconds: number;
  plan: Plan;
  /** Send exactly this many requests (then `seconds` is ignored): the deadline burst. */
  amount?: number;
}

/** Declarations inserted straight with `pg`, one transaction each, `connections` at a time. */
export interface RawJob {
  kind: 'raw';
  databaseUrl: string;
  connections: number;
  seconds: number;
  clientIds: string[];
  periods: string[];
  lines: number;
  /** Commit exactly this many transactions, one slot each (then `seconds` is ignored), and close the connections. */
  amount?: number;
}

export type Job = HttpJob | RawJob;

export interface Measurement {
  /** Completed requests (or transactions). */
  count: number;
  seconds: number;
  rps: number;
  statuses: Record<string, number>;
  /** Connection errors and timeouts (autocannon), failed transactions (raw). */
  errors: number;
  /** Every latency in ms. */
  latencies: number[];
}

// ---- declarations ----------------------------------------------------------------------------

/** The streams data's EMB material codes (material_category is filled for these), then free text. */
const MATERIAL_CODES = [
  'glass',
  'paper_cardboard',
  'plastic_pet_bottle_clear',
  'plastic_pe_pp_rigid',
  'plastic_ps',
  'plastic_pvc',
  'plastic_complex',
  'steel',
  'aluminium',
  'liquid_carton',
  'plastic_pet_tray',
  'other',
];

interface Line {
  stream: string;
  material: string;
  code: string | null;
  unit: string;
  quantity: string;
}

/** `n` distinct lines of stream EMB, counts of sales units (uvc: a kg line would need its uvc companion); line 0's quantity is `first` (so every body is new content). */
function declarationLines(n: number, first: number): Line[] {
  return Array.from({ length: n }, (_, i) => ({
    stream: 'EMB',
    material: i < MATERIAL_CODES.length ? MATERIAL_CODES[i]! : `Bench material ${String(i + 1).padStart(4, '0')}`,
    code: i < MATERIAL_CODES.length ? MATERIAL_CODES[i]! : null,
    unit: 'uvc',
    quantity: i === 0 ? String(first) : `${(i * 37) % 5000}`,
  }));
}

/** A body builder: the JSON of lines 1… is made once; each call only writes the period and line 0. */
function declarationBodies(lines: number): (period: string, sequence: number) => string {
  const rest = declarationLines(lines, 0)
    .slice(1)
    .map((l) => `,{"stream":"${l.stream}","material":"${l.material}","unit":"${l.unit}","quantity":${l.quantity}}`)
    .join('');
  return (period, sequence) =>
    `{"period":"${period}","lines":[{"stream":"EMB","material":"glass","unit":"uvc","quantity":${sequence}}${rest}]}`;
}

/** Increases for the life of this process: every declaration sent has content of its own. */
let sequence = 1;

// ---- HTTP ------------------------------------------------------------------------------------

type Request = autocannon.Request;

function rotating<T>(values: T[]): () => T {
  let i = 0;
  return () => values[i++ % values.length]!;
}

function getRequest(path: string, headers: Record<string, string>, tokens?: string[], cookies?: string[]): Request {
  if (cookies?.length) {
    const cookie = rotating(cookies);
    return { method: 'GET', path, setupRequest: (req) => ({ ...req, headers: { ...headers, cookie: cookie() } }) };
  }
  if (!tokens?.length) return { method: 'GET', path, headers };
  const token = rotating(tokens);
  return { method: 'GET', path, setupRequest: (req) => ({ ...req, headers: { ...headers, authorization: `Bearer ${token()}` } }) };
}

/**
 * POSTs spread over (client, period) slots: request k goes to client k mod T, period
 * ⌊k / T⌋ mod P, so that concurrent requests never wait on one (client, period) lock.
 */
function postRequest(tokens: string[], periods: string[], lines: number): Request {
  const body = declarationBodies(lines);
  let k = 0;
  return {
    method: 'POST',
    path: '/api/v1/declarations',
    setupRequest: (req) => {
      const slot = k++;
      const token = tokens[slot % tokens.length]!;
      const period = periods[Math.floor(slot / tokens.length) % periods.length]!;
      return { ...req, headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: body(period, sequence++) };
    },
  };
}

const BOUNDARY = '----epr-bench-boundary-7MA4YWxkTrZu0gW';

/**
 * The dashboard's POSTs as a browser sends them (the same as bench/wrk-dashboard-post.lua): a
 * declaration by form (urlencoded) or a CSV file (multipart), each new content, spread over the
 * browsers and then the periods.
 */
function dashboardPost(kind: 'form' | 'csv', browsers: DashboardBrowser[], periods: string[], lines: number): Request {
  const rest = declarationLines(lines, 0)
    .slice(1)
    .map((l) =>
      kind === 'form'
        ? `&stream=EMB&material=${encodeURIComponent(l.material)}&quantity_uvc=${l.quantity}`
        : `EMB,${l.material},uvc,${l.quantity}\r\n`,
    )
    .join('');
  let k = 0;
  return {
    method: 'POST',
    path: kind === 'form' ? '/dashboard/declarations' : '/dashboard/declarations/upload',
    setupRequest: (req) => {
      const slot = k++;
      const browser = browsers[slot % browsers.length]!;
      const period = periods[Math.floor(slot / browsers.length) % periods.length]!;
      const first = sequence++;
      const body =
        kind === 'form'
          ? `_csrf=${encodeURIComponent(browser.csrf)}&action=submit&period=${period}&stream=EMB&material=glass&quantity_uvc=${first}${rest}`
          : `--${BOUNDARY}\r\nContent-Disposition: form-data; name="_csrf"\r\n\r\n${browser.csrf}\r\n` +
            `--${BOUNDARY}\r\nContent-Disposition: form-data; name="period"\r\n\r\n${period}\r\n` +
            `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="declaration.csv"\r\nContent-Type: text/csv\r\n\r\n` +
            `stream,material,unit,quantity\r\nEMB,glass,uvc,${first}\r\n${rest}\r\n--${BOUNDARY}--\r\n`;
      const contentType = kind === 'form' ? 'application/x-www-form-urlencoded' : `multipart/form-data; boundary=${BOUNDARY}`;
      return { ...req, headers: { cookie: browser.cookie, 'content-type': contentType }, body };
    },
  };
}

function requestsOf(plan: Plan): Request[] {
  switch (plan.kind) {
    case 'get':
      return [getRequest(plan.path, plan.headers ?? {}, plan.tokens)];
    case 'post':
      return [postRequest(plan.tokens, plan.periods, plan.lines)];
    case 'mixed': {
      const accept = { 'accept-encoding': plan.acceptEncoding };
      return [
        getRequest('/api/v1/streams.json', accept),
        getRequest('/api/v1/streams.json', { ...accept, 'if-none-match': plan.etag }),
        getRequest('/api/v1/me', {}, plan.tokens),
        getRequest('/api/v1/declarations', {}, plan.tokens),
        postRequest(plan.tokens, plan.periods, 20),
        ...(plan.dashboard
          ? [
              getRequest('/dashboard', accept, undefined, plan.dashboard.sessionCookies),
              getRequest('/dashboard/declarations', accept, undefined, plan.dashboard.sessionCookies),
              dashboardPost('form', plan.dashboard.browsers, plan.dashboard.periods, 4),
              dashboardPost('csv', plan.dashboard.browsers, plan.dashboard.periods, 1000),
            ]
          : []),
      ];
    }
  }
}

function runHttp(job: HttpJob): Promise<Measurement> {
  return new Promise((resolve, reject) => {
    const latencies: number[] = [];
    const statuses: Record<string, number> = {};
    const instance = autocannon(
      {
        url: job.url,
        connections: job.connections,
        ...(job.amount === undefined ? { duration: job.seconds } : { amount: job.amount }),
        timeout: 30,
        requests: requestsOf(job.plan),
      },
      (error, result) => {
        if (error) return reject(error instanceof Error ? error : new Error(String(error)));
        const seconds = result.duration;
        resolve({
          count: latencies.length,
          seconds,
          rps: latencies.length / seconds,
          statuses,
          errors: result.errors + result.timeouts,
          latencies,
        });
      },
    );
    instance.on('response', (_client: unknown, status: number, _bytes: number, ms: number) => {
      latencies.push(Math.round(ms * 1000) / 1000);
      statuses[status] = (statuses[status] ?? 0) + 1;
    });
  });
}

// ---- raw pg ----------------------------------------------------------------------------------

const BASE32 = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/**
 * The rows a new revision writes, with nothing else: supersede the current revision (if any),
 * insert the declaration and its lines (the app's own unnest statement), commit. Worker w only
 * uses slots ≡ w (mod connections), so two transactions never race for one (client, period).
 */
/** Kept open between jobs, so that the server processes serving them live as long as the bench (run.ts counts their CPU). */
const pools = new Map<string, pg.Pool>();

async function runRaw(job: RawJob): Promise<Measurement> {
  const key = `${job.databaseUrl}#${job.connections}`;
  const pool = pools.get(key) ?? new pg.Pool({ connectionString: job.databaseUrl, max: job.connections, idleTimeoutMillis: 0 });
  pools.set(key, pool);
  const lines = declarationLines(job.lines, 0);
  const streams = lines.map((l) => l.stream);
  const materials = lines.map((l) => l.material);
  const codes = lines.map((l) => l.code);
  const units = lines.map((l) => l.unit);
  const body = declarationBodies(job.lines);
  const latencies: number[] = [];
  let errors = 0;
  // Connected before the clock starts (the app's pool is open before it is measured, too).
  const clients = await Promise.all(Array.from({ length: job.connections }, () => pool.connect()));
  const started = performance.now();
  const deadline = started + job.seconds * 1000;
  const slots = job.clientIds.length * job.periods.length;
  // Duration: worker w takes slots w, w + connections, … until the deadline. Amount: the workers
  // take slots 0, 1, 2, … in turn until `amount` were taken.
  let taken = 0;
  const firstSlot = (worker: number) => (job.amount === undefined ? worker : taken++);
  const nextSlot = (slot: number) => (job.amount === undefined ? (slot + job.connections) % slots : taken++);
  const more = (slot: number) => (job.amount === undefined ? performance.now() < deadline : slot < job.amount);
  await Promise.all(
    clients.map(async (client, worker) => {
      try {
        for (let slot = firstSlot(worker); more(slot); slot = nextSlot(slot)) {
          const clientId = job.clientIds[slot % job.clientIds.length]!;
          const period = job.periods[Math.floor(slot / job.clientIds.length) % job.periods.length]!;
          const first = sequence++;
          const t0 = performance.now();
          try {
            await client.query('BEGIN');
            const { rows } = await client.query<{ id: string; revision: number }>(
              `UPDATE declarations SET status = 'superseded' WHERE client_id = $1 AND period = $2 AND status = 'current' RETURNING id, revision`,
              [clientId, period],
            );
            const revision = (rows[0]?.revision ?? 0) + 1;
            const receipt = `EPR-${period.replace('-', '')}-R${revision}-${Array.from(randomBytes(8), (b) => BASE32[b % 32]).join('')}`;
            const hash = createHash('sha256').update(body(period, first)).digest('hex');
            const inserted = await client.query<{ id: string }>(
              `INSERT INTO declarations (client_id, period, revision, status, supersedes, submitted_at, receipt, content_hash)
               VALUES ($1, $2, $3, 'current', $4, clock_timestamp(), $5, $6) RETURNING id`,
              [clientId, period, revision, rows[0]?.id ?? null, receipt, hash],
            );
            await client.query(
              `INSERT INTO declaration_lines (declaration_id, position, stream, material, material_code, unit, quantity)
               SELECT $1, l.position - 1, l.stream, l.material, l.material_code, l.unit, l.quantity
                 FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::numeric[])
                      WITH ORDINALITY AS l (stream, material, material_code, unit, quantity, position)`,
              [inserted.rows[0]!.id, streams, materials, codes, units, [String(first), ...lines.slice(1).map((l) => l.quantity)]],
            );
            await client.query('COMMIT');
            latencies.push(Math.round((performance.now() - t0) * 1000) / 1000);
          } catch (error) {
            errors++;
            await client.query('ROLLBACK').catch(() => {});
            if (errors === 1) console.error('raw transaction failed:', error);
          }
        }
      } finally {
        client.release();
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  if (job.amount !== undefined) {
    pools.delete(key);
    await pool.end();
  }
  return {
    count: latencies.length,
    seconds,
    rps: latencies.length / seconds,
    statuses: { committed: latencies.length },
    errors,
    latencies,
  };
}

// ---- IPC -------------------------------------------------------------------------------------

process.on('message', (message: { id: number; job: Job }) => {
  const work = message.job.kind === 'http' ? runHttp(message.job) : runRaw(message.job);
  work.then(
    (result) => process.send!({ id: message.id, result }),
    (error: unknown) => process.send!({ id: message.id, error: error instanceof Error ? (error.stack ?? error.message) : String(error) }),
  );
});
process.on('disconnect', () => process.exit(0));
