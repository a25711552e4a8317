/**
 * The yardstick section of `npm run bench`: the service AS A USER STARTS IT
 * (`dist/src/main.js`, LOG_LEVEL unset = info with its line per request, default rate limits)
 * measured against a minimal NestJS app (`../shared/bench/minimal-nest.cjs`: one controller, no
 * global middleware) started in the same run, with wrk (1 thread × 32 connections, 6 s per case);
 * the 20-line POST against the raw pg loop; and the deadline burst. bench/run.ts starts the
 * processes, creates the data and calls `runYardstick`.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { DashboardBrowser, Job, Measurement } from './load.js';

/** wrk: one thread (the machine has two cores, the service needs one), 32 connections. */
export const WRK_THREADS = 1;
export const WRK_CONNECTIONS = Number(process.env.BENCH_WRK_CONNECTIONS || 32);
export const YARDSTICK_SECONDS = Number(process.env.BENCH_YARDSTICK_SECONDS || 6);
/**
 * /me: each measurement (the warm-up and each round) rotates over the tokens of this many clients of
 * its own, used by nothing else in the run, so that none gets near the default 600 requests a minute
 * per client: 500 each at 40,000/s (480 clients for 6 s), and the one request that warms it.
 */
export const ME_CLIENTS = Math.max(200, Math.ceil((YARDSTICK_SECONDS * 40_000) / 500));
/** The dashboard's pages: each measurement rotates over the session cookies of this many clients (each with a declaration). */
export const DASHBOARD_CLIENTS = 200;
/**
 * The dashboard's POSTs (a declaration by form, a 1,000-line CSV upload): each measurement rotates
 * over the signed-in browsers of this many other clients (per-client limit: 60 writes/min).
 */
export const DASHBOARD_POST_CLIENTS = 1000;
/** Lines of the form's declaration (a person types them) and of the uploaded CSV file. */
export const FORM_LINES = 4;
export const CSV_LINES = 1000;
/** The deadline burst: this many clients each submit one declaration of BURST_LINES lines, BURST_CONCURRENCY at a time. */
export const BURST_CLIENTS = Number(process.env.BENCH_BURST_CLIENTS || 2000);
export const BURST_LINES = 200;
export const BURST_CONCURRENCY = 50;

/**
 * Pages answered from prebuilt bytes, before Express, that must answer more than the minimal app's
 * controller (target ≥ 1.2×): the reference files and the site's pages.
 */
export const PREBUILT_PAGES: { path: string; label?: string }[] = [
  { path: '/api/v1/streams.json' },
  // Site pages: the home page, the largest page (streams) and a French one.
  { path: '/', label: 'GET / (site home)' },
  { path: '/streams', label: 'GET /streams (site)' },
  { path: '/fr/obligations', label: 'GET /fr/obligations (site)' },
];

const WRK = process.env.BENCH_WRK || 'wrk';

export interface YardService {
  name: string;
  url: string;
  pid: number;
}

interface WrkResult {
  requests: number;
  duration_us: number;
  errors: { connect: number; read: number; write: number; status: number; timeout: number };
  p50_us: number;
  p90_us: number;
  p99_us: number;
  max_us: number;
  /** The dashboard's POSTs (bench/wrk-dashboard-post.lua): answered by the check page, and anything else. */
  checked?: number;
  other?: number;
}

export interface YardSample {
  rps: number;
  count: number;
  p50: number;
  p99: number;
  /** Responses other than 2xx/3xx, and socket errors and timeouts. */
  bad: number;
  /** The dashboard's POSTs answered by the check page with their lines sealed in it. */
  checked?: number;
  /** CPU time of the measured process per response (ms). */
  serviceCpuMs: number;
  /** Cores the whole machine used meanwhile (of os.cpus().length): the service, wrk, PostgreSQL, others. */
  machineCores: number;
}

export interface YardRow {
  id: string;
  label: string;
  rounds: YardSample[];
  rps: number;
  p50: number;
  p99: number;
  serviceCpuMs: number;
  machineCores: number;
  ratio?: number;
  ratioTo?: string;
  target?: string;
  pass?: boolean;
  invalid?: string;
  note?: string;
}

const HZ = 100;

async function processCpuMs(pid: number): Promise<number> {
  const text = await readFile(`/proc/${pid}/stat`, 'utf8');
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * (1000 / HZ);
}

async function machineBusyMs(): Promise<number> {
  const stat = await readFile('/proc/stat', 'utf8');
  const [user, nice, system, , , irq, softirq] = stat.slice(0, stat.indexOf('\n')).trim().split(/\s+/).slice(1).map(Number);
  return (user! + nice! + system! + irq! + softirq!) * (1000 / HZ);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length ? sorted[Math.ceil(sorted.length / 2) - 1]! : NaN;
}

/**
 * One wrk run of `script` on `url`, rotating over `headerSets` (written to a file: tokens never go
 * on a command line); `scriptArgs` follow the file's name; `env` is added to wrk's environment.
 */
async function runWrk(
  url: string,
  headerSets: Record<string, string>[],
  seconds: number,
  script: string,
  scriptArgs: string[] = [],
  env: Record<string, string> = {},
): Promise<WrkResult> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'epr-bench-wrk-'));
  const file = path.join(dir, 'headers.txt');
  try {
    const sets = headerSets.length ? headerSets : [{}];
    await writeFile(
      file,
      `${sets
        .map((h) =>
          Object.entries(h)
            .map(([k, v]) => `${k}: ${v}`)
            .join('\t'),
        )
        .join('\n')}\n`,
      { mode: 0o600 },
    );
    const child = spawn(
      WRK,
      [`-t${WRK_THREADS}`, `-c${WRK_CONNECTIONS}`, `-d${seconds}s`, '--timeout', '30s', '-s', script, url, '--', file, ...scriptArgs],
      { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } },
    );
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    const code = await new Promise<number | null>((resolve, reject) => {
      child.once('error', reject);
      child.once('exit', resolve);
    });
    const line = out.split('\n').find((l) => l.startsWith('WRK_RESULT '));
    if (code !== 0 || !line) throw new Error(`wrk failed (${code}); is it installed (apt-get install wrk)?\n${out}`);
    return JSON.parse(line.slice('WRK_RESULT '.length)) as WrkResult;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * One GET of `url` with each header set, 8 at a time; each must answer 200 (a 503, the database's pool
 * busy on a loaded machine, is tried again after a second, up to 10 times).
 */
async function warm(url: string, headerSets: Record<string, string>[]): Promise<void> {
  const queue = [...headerSets];
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      for (let headers = queue.shift(); headers !== undefined; headers = queue.shift()) {
        for (let attempt = 1; ; attempt++) {
          const res = await fetch(url, { headers });
          await res.arrayBuffer();
          if (res.status === 200) break;
          if (res.status !== 503 || attempt === 10) throw new Error(`warming ${url}: ${res.status}`);
          await new Promise((resolve) => setTimeout(resolve, 1000));
        }
      }
    }),
  );
}

export interface YardContext {
  minimal: YardService;
  shipped: YardService;
  /** For information: the twin of bench/serve.ts (warn, raised limits) serving GET /bench/baseline. */
  twin?: YardService;
  /** One token each of BURST_CLIENTS confirmed clients (the dashboard's and the mixed load spread over them). */
  poolTokens: string[];
  /** One token each of ME_CLIENTS × (rounds + 1) other confirmed clients: /me's only. */
  meTokens: string[];
  /**
   * One token each of BURST_CLIENTS other clients: the burst's (one declaration each), then the 20-line
   * POST's (a few each within the minute); no other case spends their quotas before them.
   */
  burstTokens: string[];
  /** The `Cookie` header of a dashboard session of each of DASHBOARD_CLIENTS of those clients. */
  sessionCookies: string[];
  /** Signed-in browsers (session and CSRF cookies, the form's token) of DASHBOARD_POST_CLIENTS other clients. */
  browsers: DashboardBrowser[];
  /** The periods the dashboard's POSTs go to (not the burst's). */
  dashboardPeriods: string[];
  /** bench/wrk-dashboard-post.lua */
  postScript: string;
  /** `dashboard` (BENCH_ONLY=dashboard): the minimal app and the dashboard's cases only: no other page, no burst, no API POST. */
  only?: 'dashboard';
  rawIds: string[];
  rawBurstIds: string[];
  databaseUrl: string;
  periods: string[];
  burstPeriod: string;
  rounds: number;
  /** The service's connection pool (POOL_SIZE): the raw burst is also run on that many connections, for information. */
  servicePoolSize: number;
  postSeconds: number;
  postConnections: number;
  script: string;
  acceptEncoding: string;
  /** Waits until the machine is quiet (bench/run.ts). */
  waitForQuiet: () => Promise<unknown>;
  /** Runs a job in the load process (autocannon or the raw loop), with the CPU use of the measured service. */
  measured: (job: Job) => Promise<Measurement & { cpuMs: { service: number } }>;
  log: (message: string) => void;
}

interface WrkCase {
  id: string;
  label: string;
  service: YardService;
  path: string;
  headers: () => Record<string, string>[];
  target?: number;
  note?: string;
  /** A dashboard POST (bench/wrk-dashboard-post.lua) instead of a GET. */
  post?: { kind: 'form' | 'csv'; lines: number };
  /** Sends each header set once before the measurement (not measured): what a client that comes back has already done. */
  warm?: boolean;
}

export interface YardResult {
  rows: YardRow[];
  /** Absent with `only`. */
  burst?: { app: YardRow; raw: YardRow; ratio: number; declarationsPerSecond: number; rawPerSecond: number };
}

export async function runYardstick(ctx: YardContext): Promise<YardResult> {
  const { log } = ctx;
  let meWindow = 0;
  /** The next ME_CLIENTS clients of ctx.meTokens: no client is used twice in the run. */
  const nextMeTokens = () => {
    const tokens = ctx.meTokens.slice(meWindow++ * ME_CLIENTS, meWindow * ME_CLIENTS);
    if (tokens.length < ME_CLIENTS) throw new Error(`/me: ${ctx.meTokens.length} clients' tokens, ${meWindow * ME_CLIENTS} needed`);
    return tokens;
  };
  const encoded = () => [{ 'Accept-Encoding': ctx.acceptEncoding }];
  const wrkCases: WrkCase[] = [
    {
      id: 'minimal',
      label: 'minimal NestJS app: GET /api/v1/hello',
      service: ctx.minimal,
      path: '/api/v1/hello',
      headers: () => [{}],
      note: 'the yardstick',
    },
    ...PREBUILT_PAGES.map((page) => ({
      id: `page ${page.path}`,
      label: page.label ?? `GET ${page.path}`,
      service: ctx.shipped,
      path: page.path,
      headers: encoded,
      target: 1.2,
    })),
    {
      id: 'me',
      label: `GET /api/v1/me (${ME_CLIENTS} clients' tokens)`,
      service: ctx.shipped,
      path: '/api/v1/me',
      headers: () => nextMeTokens().map((t) => ({ Authorization: `Bearer ${t}` })),
      target: 0.8,
      // Its clients' tokens kept and quotas counted: a measurement measures the answers of returning clients.
      warm: true,
    },
    {
      id: 'dashboard overview',
      label: `GET /dashboard (${ctx.sessionCookies.length} clients' sessions)`,
      service: ctx.shipped,
      path: '/dashboard',
      headers: () => ctx.sessionCookies.map((cookie) => ({ Cookie: cookie, 'Accept-Encoding': ctx.acceptEncoding })),
      target: 0.2,
    },
    {
      id: 'dashboard declarations',
      label: `GET /dashboard/declarations (${ctx.sessionCookies.length} clients' sessions)`,
      service: ctx.shipped,
      path: '/dashboard/declarations',
      headers: () => ctx.sessionCookies.map((cookie) => ({ Cookie: cookie, 'Accept-Encoding': ctx.acceptEncoding })),
      target: 0.2,
    },
    {
      id: 'dashboard form',
      label: `POST /dashboard/declarations: a ${FORM_LINES}-line declaration by form (${ctx.browsers.length} browsers, session + CSRF)`,
      service: ctx.shipped,
      path: '/dashboard/declarations',
      headers: () => ctx.browsers.map((b) => ({ Cookie: b.cookie, _csrf: b.csrf })),
      post: { kind: 'form', lines: FORM_LINES },
    },
    {
      id: 'dashboard csv',
      label: `POST /dashboard/declarations/upload: a ${CSV_LINES.toLocaleString('en')}-line CSV file (${ctx.browsers.length} browsers, session + CSRF)`,
      service: ctx.shipped,
      path: '/dashboard/declarations/upload',
      headers: () => ctx.browsers.map((b) => ({ Cookie: b.cookie, _csrf: b.csrf })),
      post: { kind: 'csv', lines: CSV_LINES },
    },
    ...(ctx.twin
      ? [
          {
            id: 'twin',
            label: 'twin (bench/serve.ts, warn, raised limits): GET /bench/baseline',
            service: ctx.twin,
            path: '/bench/baseline',
            headers: () => [{}],
            note: 'for information',
          },
        ]
      : []),
  ];

  const cases = ctx.only === 'dashboard' ? wrkCases.filter((c) => c.id === 'minimal' || c.id.startsWith('dashboard ')) : wrkCases;
  /** Line 0's quantity of the dashboard's POSTs: each run its own range, so that every request is new content. */
  let postRun = 0;
  /**
   * One wrk run of a case. A warm-up run checks every answer (bench/wrk.lua with WRK_EVERY_ANSWER=1:
   * any answer but 200 is `bad`); a measured run of a GET case leaves answers to wrk (no Lua per
   * answer, which would cost wrk more for the service's 20-header answers than for the minimal
   * app's) and counts as `bad` those of status 400 or more. The dashboard's POSTs are always checked.
   */
  const measureWrk = async (c: WrkCase, seconds: number, warmUp = false): Promise<YardSample> => {
    await ctx.waitForQuiet();
    const headerSets = c.headers();
    if (c.warm) await warm(`${c.service.url}${c.path}`, headerSets);
    const cpu0 = await processCpuMs(c.service.pid);
    const busy0 = await machineBusyMs();
    const t0 = performance.now();
    const r = c.post
      ? await runWrk(`${c.service.url}${c.path}`, headerSets, seconds, ctx.postScript, [
          c.post.kind,
          ctx.dashboardPeriods.join(','),
          String(c.post.lines),
          String(++postRun * 10_000_000),
        ])
      : await runWrk(`${c.service.url}${c.path}`, headerSets, seconds, ctx.script, [], warmUp ? { WRK_EVERY_ANSWER: '1' } : {});
    const busy1 = await machineBusyMs();
    const cpu1 = await processCpuMs(c.service.pid);
    const wallMs = performance.now() - t0;
    const sample: YardSample = {
      rps: r.requests / (r.duration_us / 1e6),
      count: r.requests,
      p50: r.p50_us / 1000,
      p99: r.p99_us / 1000,
      // `other`: every answer but the one measured (bench/wrk.lua when it checks every answer: not 200), wrk's status errors included.
      bad:
        (c.post || warmUp ? (r.other ?? r.errors.status) : r.errors.status) +
        r.errors.connect +
        r.errors.read +
        r.errors.write +
        r.errors.timeout,
      ...(c.post ? { checked: r.checked ?? 0 } : {}),
      serviceCpuMs: (cpu1 - cpu0) / Math.max(1, r.requests),
      machineCores: (busy1 - busy0) / wallMs,
    };
    log(
      `${warmUp ? 'warm-up ' : ''}${c.label}: ${Math.round(sample.rps)} req/s, p50 ${sample.p50.toFixed(2)} p99 ${sample.p99.toFixed(1)} ms` +
        `${sample.bad ? `, ${sample.bad} bad (${warmUp || c.post ? 'not 200' : 'status 400 or more'}, socket errors, or a POST not answered by its check page)` : ''}${c.post ? ` (${sample.checked} check pages)` : ''}; ${sample.serviceCpuMs.toFixed(3)} CPU ms/req; machine ${sample.machineCores.toFixed(2)} cores`,
    );
    return sample;
  };

  // ---- GET cases against the minimal app (wrk), interleaved round by round ----
  log(`yardstick: wrk ${WRK_THREADS} thread × ${WRK_CONNECTIONS} connections, ${YARDSTICK_SECONDS} s per case, ${ctx.rounds} rounds`);
  const warmUps = new Map<string, YardSample>();
  for (const c of cases) warmUps.set(c.id, await measureWrk(c, YARDSTICK_SECONDS, true));
  const wrkSamples = new Map<string, YardSample[]>(cases.map((c) => [c.id, []]));
  for (let round = 0; round < ctx.rounds; round++) {
    log(`yardstick round ${round + 1}/${ctx.rounds}`);
    for (const c of round % 2 === 0 ? cases : [...cases].reverse()) wrkSamples.get(c.id)!.push(await measureWrk(c, YARDSTICK_SECONDS));
  }
  const fromWrk = (c: WrkCase): YardRow => {
    const rounds = wrkSamples.get(c.id)!;
    const minimal = wrkSamples.get('minimal')!;
    const ratio = median(rounds.map((s, i) => s.rps / minimal[i]!.rps));
    const bad = rounds.reduce((sum, s) => sum + s.bad, warmUps.get(c.id)!.bad);
    return {
      id: c.id,
      label: c.label,
      rounds,
      rps: median(rounds.map((s) => s.rps)),
      p50: median(rounds.map((s) => s.p50)),
      p99: median(rounds.map((s) => s.p99)),
      serviceCpuMs: median(rounds.map((s) => s.serviceCpuMs)),
      machineCores: median(rounds.map((s) => s.machineCores)),
      ratio,
      ratioTo: 'minimal',
      target: c.target === undefined ? undefined : `≥ ${c.target.toFixed(1)}× minimal`,
      pass: c.target === undefined ? undefined : ratio >= c.target,
      invalid: bad ? `${bad} answers not 200 (warm-up), of status 400 or more (rounds), or socket errors` : undefined,
      note: c.note,
    };
  };
  if (ctx.only === 'dashboard') return { rows: cases.map(fromWrk) };

  // ---- the deadline burst (first declarations of its period), then the same rows by raw pg ----
  const burstJob = (lines: number): Job => ({
    kind: 'http',
    url: ctx.shipped.url,
    connections: BURST_CONCURRENCY,
    seconds: 0,
    amount: ctx.burstTokens.length,
    plan: { kind: 'post', tokens: ctx.burstTokens, periods: [ctx.burstPeriod], lines },
  });
  log(`deadline burst: ${ctx.burstTokens.length} clients × 1 declaration of ${BURST_LINES} lines, ${BURST_CONCURRENCY} at a time…`);
  await ctx.waitForQuiet();
  const burstApp = await ctx.measured(burstJob(BURST_LINES));
  log(
    `burst through the service: ${burstApp.count} in ${burstApp.seconds.toFixed(1)} s (${(burstApp.count / burstApp.seconds).toFixed(1)}/s), statuses ${JSON.stringify(burstApp.statuses)}`,
  );
  await ctx.waitForQuiet();
  const burstRaw = await ctx.measured({
    kind: 'raw',
    databaseUrl: ctx.databaseUrl,
    connections: BURST_CONCURRENCY,
    seconds: 0,
    amount: ctx.rawBurstIds.length,
    clientIds: ctx.rawBurstIds,
    periods: [ctx.burstPeriod],
    lines: BURST_LINES,
  });
  log(
    `burst by raw pg: ${burstRaw.count} in ${burstRaw.seconds.toFixed(1)} s (${(burstRaw.count / burstRaw.seconds).toFixed(1)}/s), ${burstRaw.errors} errors`,
  );
  // For information: the same rows again (new revisions) on as many connections as the service's pool holds.
  await ctx.waitForQuiet();
  const burstRawPool = await ctx.measured({
    kind: 'raw',
    databaseUrl: ctx.databaseUrl,
    connections: ctx.servicePoolSize,
    seconds: 0,
    amount: ctx.rawBurstIds.length,
    clientIds: ctx.rawBurstIds,
    periods: [ctx.burstPeriod],
    lines: BURST_LINES,
  });
  log(
    `burst by raw pg on ${ctx.servicePoolSize} connections: ${burstRawPool.count} in ${burstRawPool.seconds.toFixed(1)} s (${(burstRawPool.count / burstRawPool.seconds).toFixed(1)}/s)`,
  );

  // ---- POST 20 lines through the service as shipped vs the raw pg loop, interleaved ----
  const postJob = (seconds: number): Job => ({
    kind: 'http',
    url: ctx.shipped.url,
    connections: ctx.postConnections,
    seconds,
    plan: { kind: 'post', tokens: ctx.burstTokens, periods: ctx.periods.filter((p) => p !== ctx.burstPeriod), lines: 20 },
  });
  const rawJob = (seconds: number): Job => ({
    kind: 'raw',
    databaseUrl: ctx.databaseUrl,
    connections: ctx.postConnections,
    seconds,
    clientIds: ctx.rawIds,
    periods: ctx.periods,
    lines: 20,
  });
  const postSamples: { app: Measurement[]; raw: Measurement[]; appCpuMs: number[] } = { app: [], raw: [], appCpuMs: [] };
  const logPost = (what: string, m: Measurement) =>
    log(`${what}: ${Math.round(m.rps)}/s, statuses ${JSON.stringify(m.statuses)}${m.errors ? `, ${m.errors} errors` : ''}`);
  await ctx.waitForQuiet();
  logPost('warm-up POST 20 lines (main.js)', await ctx.measured(postJob(4)));
  await ctx.waitForQuiet();
  logPost('warm-up raw 20 lines', await ctx.measured(rawJob(4)));
  for (let round = 0; round < ctx.rounds; round++) {
    for (const which of round % 2 === 0 ? (['app', 'raw'] as const) : (['raw', 'app'] as const)) {
      await ctx.waitForQuiet();
      const m = await ctx.measured(which === 'app' ? postJob(ctx.postSeconds) : rawJob(ctx.postSeconds));
      postSamples[which].push(m);
      if (which === 'app') postSamples.appCpuMs.push(m.cpuMs.service / Math.max(1, m.count));
      logPost(which === 'app' ? 'POST 20 lines (main.js)' : 'raw pg 20 lines', m);
    }
  }

  // ---- rows ----
  const fromMeasurements = (id: string, label: string, ms: Measurement[], cpuMs: number[], expect: string): YardRow => {
    const latencies = ms.flatMap((m) => m.latencies).sort((a, b) => a - b);
    const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.max(0, Math.ceil((p / 100) * latencies.length) - 1))] ?? NaN;
    const unexpected = ms.flatMap((m) =>
      Object.entries(m.statuses)
        .filter(([s]) => s !== expect)
        .map(([s, n]) => `${n}× ${s}`),
    );
    const errors = ms.reduce((sum, m) => sum + m.errors, 0);
    return {
      id,
      label,
      rounds: ms.map((m, i) => ({
        rps: m.rps,
        count: m.count,
        p50: NaN,
        p99: NaN,
        bad: m.errors,
        serviceCpuMs: cpuMs[i] ?? NaN,
        machineCores: NaN,
      })),
      rps: median(ms.map((m) => m.rps)),
      p50: pct(50),
      p99: pct(99),
      serviceCpuMs: cpuMs.length ? median(cpuMs) : NaN,
      machineCores: NaN,
      invalid:
        unexpected.length || errors ? `unexpected: ${[...unexpected, ...(errors ? [`${errors} errors`] : [])].join(', ')}` : undefined,
    };
  };
  const post = fromMeasurements('post20', 'POST /api/v1/declarations, 20 lines (main.js)', postSamples.app, postSamples.appCpuMs, '201');
  const raw = {
    ...fromMeasurements('raw20', 'raw pg transaction, same rows (20 lines)', postSamples.raw, [], 'committed'),
    note: 'reference for POST',
  };
  const postRatio = median(postSamples.app.map((m, i) => m.rps / postSamples.raw[i]!.rps));
  const burstAppRow = fromMeasurements(
    'burst',
    `deadline burst: ${burstApp.count} × ${BURST_LINES}-line declarations, ${BURST_CONCURRENCY} at a time (main.js)`,
    [burstApp],
    [burstApp.cpuMs.service / Math.max(1, burstApp.count)],
    '201',
  );
  const burstRawRow = {
    ...fromMeasurements(
      'burstRaw',
      `raw pg, same rows (${burstRaw.count} × ${BURST_LINES} lines, ${BURST_CONCURRENCY} connections)`,
      [burstRaw],
      [],
      'committed',
    ),
    note: 'reference for the burst',
  };
  const burstRawPoolRow = {
    ...fromMeasurements(
      'burstRawPool',
      `raw pg, the same declarations again (new revisions), ${ctx.servicePoolSize} connections (the service's pool size)`,
      [burstRawPool],
      [],
      'committed',
    ),
    note: 'for information',
  };
  const burstRatio = burstApp.rps / burstRaw.rps;
  const rows: YardRow[] = [
    ...cases.map(fromWrk),
    { ...post, ratio: postRatio, ratioTo: 'raw pg', target: '≥ 0.4× raw pg', pass: postRatio >= 0.4 },
    raw,
    { ...burstAppRow, ratio: burstRatio, ratioTo: 'raw pg', target: '≥ 0.35× raw pg', pass: burstRatio >= 0.35 },
    burstRawRow,
    { ...burstRawPoolRow, ratio: burstApp.rps / burstRawPool.rps, ratioTo: 'service vs this' },
  ];
  return {
    rows,
    burst: { app: burstAppRow, raw: burstRawRow, ratio: burstRatio, declarationsPerSecond: burstApp.rps, rawPerSecond: burstRaw.rps },
  };
}

export function printYardstick(rows: YardRow[], extra: string[], notes: string[]): void {
  const fmt = (n: number, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : '—');
  const lines: string[][] = [['case', 'req/s', 'p50 ms', 'p99 ms', 'ratio', 'target', 'result', 'CPU ms/req (process)', 'machine cores']];
  for (const r of rows) {
    lines.push([
      r.label,
      fmt(r.rps, r.rps < 100 ? 1 : 0),
      fmt(r.p50, 2),
      fmt(r.p99, 1),
      r.ratio === undefined ? '' : `${fmt(r.ratio, r.ratio < 0.1 ? 4 : 2)}${r.ratioTo === 'minimal' ? '' : ` (${r.ratioTo})`}`,
      r.target ?? r.note ?? '',
      r.invalid ? `INVALID (${r.invalid})` : r.pass === undefined ? '' : r.pass ? 'PASS' : 'MISS',
      fmt(r.serviceCpuMs, 3),
      fmt(r.machineCores, 2),
    ]);
  }
  const widths = lines[0]!.map((_, i) => Math.max(...lines.map((l) => l[i]!.length)));
  const out = (cells: string[]) =>
    `| ${cells.map((c, i) => ([1, 2, 3, 7, 8].includes(i) ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join(' | ')} |`;
  const print = (s = '') => process.stdout.write(`${s}\n`);
  print();
  print('Yardstick: dist/src/main.js as shipped vs a minimal NestJS app');
  print(out(lines[0]!));
  print(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const l of lines.slice(1)) print(out(l));
  print();
  for (const e of extra) print(`- ${e}`);
  print();
  for (const n of notes) print(`* ${n}`);
  print();
}
