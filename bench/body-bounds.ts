/**
 * `npm run bench:bodies` (after `npm run build`): how long the worst request bodies the limits allow
 * hold the BUILT service's event loop. Starts `dist/src/main.js` on a fresh database of the
 * PostgreSQL server (BENCH_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/test), signs a
 * client in (API token, dashboard session), then sends each body below a few times while a probe
 * asks `GET /health/live` every 5 ms on another connection. For each case it prints the answer,
 * how long the request took, and the probe's longest wait during it: the event-loop block (a quiet
 * probe answers in ~1 ms). Not part of `npm test`: no figure here is asserted (a shared machine is noisy).
 *
 * Environment: BENCH_DATABASE_URL, BENCH_BODY_REPEAT (3 sends per case), BENCH_BODY_TIMEOUT_MS
 * (120000; a case still unanswered then is reported as "> timeout", and the next waits until the
 * service answers again), BENCH_BODY_ONLY / BENCH_BODY_SKIP (`|`-separated parts of case names to
 * run / leave out).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants as zlib, gzipSync } from 'node:zlib';
import pg from 'pg';
import { DEPLOYED_ENV } from './deployed.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const MAIN = path.join(ROOT, 'dist/src/main.js');
const SERVER_URL = process.env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
const REPEAT = Number(process.env.BENCH_BODY_REPEAT || 3);
const TIMEOUT_MS = Number(process.env.BENCH_BODY_TIMEOUT_MS || 120_000);
const listOf = (value: string | undefined) =>
  value
    ? value
        .split('|')
        .map((part) => part.trim())
        .filter(Boolean)
    : [];
const ONLY = listOf(process.env.BENCH_BODY_ONLY);
const SKIP = listOf(process.env.BENCH_BODY_SKIP);
const ADMIN_TOKEN = `bench-${randomBytes(24).toString('hex')}`;
const MIB = 1024 * 1024;

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
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

function send(
  port: number,
  method: string,
  url: string,
  headers: Record<string, string>,
  body?: Buffer,
  timeoutMs = TIMEOUT_MS,
  agent?: http.Agent,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request({
      host: '127.0.0.1',
      port,
      method,
      path: url,
      headers: body ? { ...headers, 'content-length': String(body.length) } : headers,
      agent: agent ?? false,
    });
    const timer = setTimeout(() => req.destroy(new Error('timeout')), timeoutMs);
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        clearTimeout(timer);
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) });
      });
    });
    req.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    req.end(body);
  });
}

/** Asks GET /health/live every 5 ms on its own keep-alive connection; `worst()` is the longest wait since the last call. */
class Probe {
  private running = true;
  private longest = 0;
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  private loop: Promise<void>;

  constructor(private readonly port: number) {
    this.loop = this.run();
  }

  private async run(): Promise<void> {
    while (this.running) {
      const started = performance.now();
      await send(this.port, 'GET', '/health/live', {}, undefined, TIMEOUT_MS * 2, this.agent).catch(() => undefined);
      this.longest = Math.max(this.longest, performance.now() - started);
      await new Promise((r) => setTimeout(r, 5));
    }
  }

  worst(): number {
    const value = this.longest;
    this.longest = 0;
    return value;
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
    this.agent.destroy();
  }
}

interface Case {
  name: string;
  method?: string;
  url: string;
  headers: Record<string, string>;
  body: Buffer;
}

const gzip = (body: Buffer) => gzipSync(body, { level: 9 });
const brotli = (body: Buffer) => brotliCompressSync(body, { params: { [zlib.BROTLI_PARAM_QUALITY]: 11 } });
/** `unit` repeated to `bytes` (cut at a whole unit). */
const fill = (unit: string, bytes: number, prefix = '', suffix = '') =>
  Buffer.from(prefix + unit.repeat(Math.floor((bytes - prefix.length - suffix.length) / unit.length)) + suffix);

function multipart(boundary: string, parts: { name: string; filename?: string; content: Buffer | string }[]): Buffer {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const disposition = `form-data; name="${part.name}"${part.filename ? `; filename="${part.filename}"` : ''}`;
    chunks.push(
      Buffer.from(`--${boundary}\r\nContent-Disposition: ${disposition}\r\n${part.filename ? 'Content-Type: text/csv\r\n' : ''}\r\n`),
    );
    chunks.push(Buffer.isBuffer(part.content) ? part.content : Buffer.from(part.content));
    chunks.push(Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(chunks);
}

function cases(auth: { token: string; cookie: string; csrf: string; signInCookie: string; signInCsrf: string }): Case[] {
  const api = { authorization: `Bearer ${auth.token}` };
  const page = { cookie: auth.cookie };
  const form = 'application/x-www-form-urlencoded';
  const csvHeader = 'stream,material,unit,quantity\r\n';
  const line = (i: number, unit: string) => `EMB,Matériau ${i},${unit},${(i * 7.25).toFixed(2)}\r\n`;
  const thousandLines = Buffer.from(csvHeader + Array.from({ length: 500 }, (_, i) => line(i, 'kg') + line(i, 'uvc')).join(''));
  const jsonLines = (n: number) =>
    Buffer.from(
      JSON.stringify({
        period: '2025-S1',
        lines: Array.from({ length: n }, (_, i) => ({
          stream: 'EMB',
          material: `Matériau ${i >> 1}`,
          unit: i % 2 ? 'uvc' : 'kg',
          quantity: i % 2 ? 100 + i : (i * 7.25) / 4,
        })),
      }),
    );
  const newlines = fill('\n', MIB, csvHeader);
  const boundary = 'benchboundary';
  const upload = (content: Buffer) =>
    multipart(boundary, [
      { name: '_csrf', content: auth.csrf },
      { name: 'period', content: '2025-S1' },
      { name: 'file', filename: 'x.csv', content },
    ]);
  const dashboardForm = (lines: number) => {
    const params = new URLSearchParams({ _csrf: auth.csrf, period: '2025-S1', action: 'submit' });
    // One row per material, kg and UVC side by side: two lines a row.
    for (let i = 0; i < lines; i += 2) {
      params.append('stream', 'EMB');
      params.append('material', `Matériau ${i >> 1}`);
      params.append('quantity_kg', String(i + 1));
      params.append('quantity_uvc', String(i + 2));
    }
    return Buffer.from(params.toString());
  };
  const signIn = { cookie: auth.signInCookie, 'content-type': form };
  const list: Case[] = [
    // Forms (public: the e-mail sign-in form; and the dashboard's declaration form).
    {
      name: 'form a=& × 30,000, gzip (127 bytes)',
      url: '/dashboard/sign-in',
      headers: { ...signIn, 'content-encoding': 'gzip' },
      body: gzip(fill('a=&', 90_000)),
    },
    {
      name: 'form a=& × 60,000, gzip',
      url: '/dashboard/sign-in',
      headers: { ...signIn, 'content-encoding': 'gzip' },
      body: gzip(fill('a=&', 180_000)),
    },
    {
      name: 'form a=& to 1 MiB, gzip',
      url: '/dashboard/sign-in',
      headers: { ...signIn, 'content-encoding': 'gzip' },
      body: gzip(fill('a=&', MIB)),
    },
    { name: 'form a=& to 1 MiB, identity', url: '/dashboard/sign-in', headers: signIn, body: fill('a=&', MIB) },
    { name: 'form & to 1 MiB (empty fields), identity', url: '/dashboard/sign-in', headers: signIn, body: fill('&', MIB) },
    {
      name: 'form one field of %41 to 1 MiB',
      url: '/dashboard/sign-in',
      headers: signIn,
      body: fill('%41', MIB, `_csrf=${auth.signInCsrf}&email=`),
    },
    {
      name: 'form 200-line declaration (the largest real form)',
      url: '/dashboard/declarations',
      headers: { ...page, 'content-type': form },
      body: dashboardForm(200),
    },
    // CSV through the API and the dashboard's upload.
    {
      name: 'CSV header + 1,000,000 newlines, gzip',
      url: '/api/v1/declarations?period=2025-S1',
      headers: { ...api, 'content-type': 'text/csv', 'content-encoding': 'gzip' },
      body: gzip(fill('\n', 1_000_000, csvHeader)),
    },
    {
      name: 'CSV header + newlines to 1 MiB, identity',
      url: '/api/v1/declarations?period=2025-S1',
      headers: { ...api, 'content-type': 'text/csv' },
      body: newlines,
    },
    {
      name: 'CSV header + "\\r\\n" to 1 MiB, brotli',
      url: '/api/v1/declarations?period=2025-S1',
      headers: { ...api, 'content-type': 'text/csv', 'content-encoding': 'br' },
      body: brotli(fill('\r\n', MIB, csvHeader)),
    },
    {
      name: 'CSV header + ";;;" rows to 1 MiB',
      url: '/api/v1/declarations?period=2025-S1',
      headers: { ...api, 'content-type': 'text/csv' },
      body: fill(',,,\n', MIB, csvHeader),
    },
    {
      name: 'CSV header of 1 MiB of commas',
      url: '/api/v1/declarations?period=2025-S1',
      headers: { ...api, 'content-type': 'text/csv' },
      body: fill(',', MIB, 'stream,material,unit,quantity'),
    },
    {
      name: 'CSV header of 1 MiB of unknown columns',
      url: '/api/v1/declarations?period=2025-S1',
      headers: { ...api, 'content-type': 'text/csv' },
      body: fill(',x', MIB, 'stream,material,unit,quantity'),
    },
    {
      name: 'CSV 1,000 rows of 250 cells',
      url: '/api/v1/declarations?period=2025-S1',
      headers: { ...api, 'content-type': 'text/csv' },
      body: Buffer.from(csvHeader + `EMB,a,kg,1${',1'.repeat(250)}\n`.repeat(1_000)),
    },
    {
      name: 'CSV one quoted cell of 1 MiB of ""',
      url: '/api/v1/declarations?period=2025-S1',
      headers: { ...api, 'content-type': 'text/csv' },
      body: fill('""', MIB, `${csvHeader}EMB,"`, '",kg,1\n'),
    },
    {
      name: 'CSV 1,000 valid lines (the largest declaration)',
      url: '/api/v1/declarations?period=2025-S1',
      headers: { ...api, 'content-type': 'text/csv' },
      body: thousandLines,
    },
    {
      name: 'CSV 1,001+ lines to 1 MiB (too many lines)',
      url: '/api/v1/declarations?period=2025-S1',
      headers: { ...api, 'content-type': 'text/csv' },
      body: fill('EMB,Verre,kg,1\n', MIB, csvHeader),
    },
    {
      name: 'upload: CSV header + 1,000,000 newlines',
      url: '/dashboard/declarations/upload',
      headers: { ...page, 'content-type': `multipart/form-data; boundary=${boundary}` },
      body: upload(fill('\n', MIB - 400, csvHeader)),
    },
    {
      name: 'upload: multipart of 1 MiB of tiny parts',
      url: '/dashboard/declarations/upload',
      headers: { ...page, 'content-type': `multipart/form-data; boundary=${boundary}` },
      body: fill(`--${boundary}\r\nContent-Disposition: form-data; name="a"\r\n\r\n\r\n`, MIB),
    },
    // JSON.
    {
      name: 'JSON [1,1,…] to 1 MiB',
      url: '/api/v1/declarations',
      headers: { ...api, 'content-type': 'application/json' },
      body: fill('1,', MIB, '{"period":"2025-S1","lines":[', '1]}'),
    },
    {
      name: 'JSON 20,000 nested arrays',
      url: '/api/v1/declarations',
      headers: { ...api, 'content-type': 'application/json' },
      body: Buffer.from(`${'['.repeat(20_000)}${']'.repeat(20_000)}`),
    },
    {
      name: 'JSON 19,999 empty objects',
      url: '/api/v1/declarations',
      headers: { ...api, 'content-type': 'application/json' },
      body: fill('{},', 60_000, '{"period":"2025-S1","lines":[', '{}]}'),
    },
    {
      name: 'JSON lines of 1 MiB of "x" materials',
      url: '/api/v1/declarations',
      headers: { ...api, 'content-type': 'application/json' },
      body: Buffer.from(
        JSON.stringify({
          period: '2025-S1',
          lines: Array.from({ length: 1_000 }, () => ({ stream: 'EMB', material: 'x'.repeat(1_000), unit: 'kg', quantity: 1 })),
        }),
      ),
    },
    {
      name: 'JSON 1,000 valid lines (the largest declaration)',
      url: '/api/v1/declarations',
      headers: { ...api, 'content-type': 'application/json' },
      body: jsonLines(1_000),
    },
    {
      name: 'JSON 9,000 lines (too many lines)',
      url: '/api/v1/declarations',
      headers: { ...api, 'content-type': 'application/json' },
      body: jsonLines(9_000),
    },
    {
      name: 'JSON one string of 1 MiB of \\u00e9',
      url: '/api/v1/declarations',
      headers: { ...api, 'content-type': 'application/json' },
      body: fill('\\u00e9', MIB, '{"period":"', '","lines":[]}'),
    },
    {
      name: 'JSON 1 MiB of spaces, gzip',
      url: '/api/v1/declarations',
      headers: { ...api, 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body: gzip(fill(' ', MIB, '{"period":"2025-S1",', '"lines":[]}')),
    },
  ];
  return list.filter(
    (c) => (ONLY.length === 0 || ONLY.some((part) => c.name.includes(part))) && !SKIP.some((part) => c.name.includes(part)),
  );
}

async function main(): Promise<void> {
  const name = `bench_bodies_${Date.now().toString(36)}`;
  const admin = new pg.Client({ connectionString: SERVER_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(SERVER_URL);
  url.pathname = `/${name}`;
  const port = await freePort();
  const raised = '1000000';
  let child: ChildProcess | undefined;
  try {
    child = spawn(process.execPath, [MAIN], {
      env: {
        ...DEPLOYED_ENV,
        PATH: process.env.PATH,
        DATABASE_URL: url.toString(),
        PORT: String(port),
        HOST: '127.0.0.1',
        ADMIN_TOKEN,
        LOG_LEVEL: 'warn',
        RATE_LIMIT_CLIENT_PER_MINUTE: raised,
        RATE_LIMIT_CLIENT_WRITES_PER_MINUTE: raised,
        RATE_LIMIT_AUTH_FAILURES_PER_MINUTE: raised,
        RATE_LIMIT_SIGN_IN_PER_MINUTE: raised,
        SMTP_URL: 'smtp://127.0.0.1:9',
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    // Interrupted: a service busy with a body cannot run its SIGTERM handler.
    for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => (child?.kill('SIGKILL'), process.exit(130)));
    for (let i = 0; ; i++) {
      const ok = await send(port, 'GET', '/health/ready', {})
        .then((r) => r.status === 200)
        .catch(() => false);
      if (ok) break;
      if (i > 300) throw new Error('the service did not start');
      await new Promise((r) => setTimeout(r, 100));
    }
    const json = { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' };
    const post = (p: string, body: unknown) => send(port, 'POST', p, json, Buffer.from(JSON.stringify(body)));
    await post('/api/v1/admin/clients', {
      client_id: 'bench-bodies',
      email: 'bench@example.fr',
      company: 'Bench SAS',
      country: 'FR',
      plan: 'business',
      streams: ['EMB'],
      idus: ['FR000000_01ABCD'],
    });
    await post('/api/v1/admin/clients/bench-bodies/confirm', {});
    const token = JSON.parse((await post('/api/v1/admin/clients/bench-bodies/tokens', { name: 'bench' })).body.toString()).token as string;
    const link = new URL(JSON.parse((await post('/api/v1/admin/clients/bench-bodies/sign-in-links', {})).body.toString()).url as string);
    // A cookie jar: the last value set for each name, a cleared one dropped.
    const jar = new Map<string, string>();
    const cookiesOf = (answer: Answer) => {
      for (const set of answer.headers['set-cookie'] ?? []) {
        const [name, value] = set.split(';')[0]!.split('=') as [string, string];
        if (value === '') jar.delete(name);
        else jar.set(name, value);
      }
      return [...jar].map(([name, value]) => `${name}=${value}`).join('; ');
    };
    const csrfOf = (answer: Answer) => /name="_csrf" value="([^"]+)"/.exec(answer.body.toString())![1]!;
    const linkPage = await send(port, 'GET', `${link.pathname}${link.search}`, {});
    const signInCookie = cookiesOf(linkPage);
    const signInCsrf = csrfOf(linkPage);
    const signedIn = await send(
      port,
      'POST',
      '/dashboard/sign-in/link',
      { cookie: signInCookie, 'content-type': 'application/x-www-form-urlencoded' },
      Buffer.from(new URLSearchParams({ _csrf: signInCsrf, token: link.searchParams.get('token')! }).toString()),
    );
    const session = cookiesOf(signedIn);
    const tokensPage = await send(port, 'GET', '/dashboard/tokens', { cookie: session });
    const cookie = cookiesOf(tokensPage);
    const auth = { token, cookie, csrf: csrfOf(tokensPage), signInCookie, signInCsrf };

    const probe = new Probe(port);
    await new Promise((r) => setTimeout(r, 500));
    const quiet = probe.worst();
    console.log(`probe alone: longest wait ${quiet.toFixed(1)} ms`);
    console.log(
      `${'case'.padEnd(52)} ${'wire'.padStart(9)}  status  ${'request (max)'.padStart(13)}  ${'event-loop block (max probe wait)'}`,
    );
    let worstCase = { name: '', block: 0 };
    for (const c of cases(auth)) {
      let status = 0;
      let longest = 0;
      let block = 0;
      for (let i = 0; i < REPEAT; i++) {
        probe.worst();
        const started = performance.now();
        const answer = await send(port, c.method ?? 'POST', c.url, { ...c.headers }, c.body).catch((error: Error) => ({
          status: -1,
          headers: {},
          body: Buffer.from(error.message),
        }));
        longest = Math.max(longest, performance.now() - started);
        // Let the probe's request in flight come back.
        await new Promise((r) => setTimeout(r, 30));
        block = Math.max(block, probe.worst());
        status = answer.status;
        if (status === -1) {
          // Still at work on the body: wait until it answers again before the next case.
          await send(port, 'GET', '/health/live', {}, undefined, 30 * 60_000).catch(() => undefined);
          break;
        }
      }
      if (block > worstCase.block) worstCase = { name: c.name, block };
      const shown = status === -1 ? `> ${TIMEOUT_MS / 1000} s` : `${longest.toFixed(0)} ms`;
      console.log(
        `${c.name.padEnd(52)} ${String(c.body.length).padStart(9)}  ${String(status).padStart(6)}  ${shown.padStart(13)}  ${block.toFixed(0)} ms`,
      );
    }
    await probe.stop();
    console.log(`worst event-loop block: ${worstCase.block.toFixed(0)} ms (${worstCase.name})`);
  } finally {
    child?.kill('SIGTERM');
    await new Promise((r) => (child && child.exitCode === null ? child.once('exit', r) : r(undefined)));
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
