/**
 * Three replicas (the built service, as processes) on one PostgreSQL server behind Debian's nginx
 * with the repository's proxy settings (deploy/nginx/proxy.conf): a deadline burst through the
 * proxy, one replica SIGKILLed in the middle of it. Every acknowledged declaration is stored once,
 * every refused one is filed when sent again at once with its Idempotency-Key (the dead replica's
 * claims are taken over as soon as its advisory lock is freed), and sessions, rate limits and
 * revocations hold on the survivors. Needs the server (DATABASE_URL) and /usr/sbin/nginx (.ci/run
 * installs it); skipped without them.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { REPO_ROOT } from '../src/common/repo-root.js';
import { startBackingDatabase, type BackingDatabase } from './support/backing-database.js';
import { signedIn } from './support/dashboard-browser.js';
import { createClientWithToken } from './support/factories.js';
import { reportFigure, spawnApp, type SpawnedApp } from './support/spawned-app.js';
import { ADMIN_TOKEN, freePort, SERVER_DATABASE_URL, type TestApp } from './support/test-app.js';

const NGINX = '/usr/sbin/nginx';
const CLIENTS = 24;
const POSTS_PER_CLIENT = 5;
const LINES = 100;
/** Per client and minute: above what the burst sends (5, and a resend or two), low enough to reach below. */
const WRITES_PER_MINUTE = 10;
/** Resends of a refused POST answered 409, one a second (its Retry-After), before the test gives up. */
const RESEND_RETRIES = 5;

const asTestApp = (url: string) => ({ url }) as TestApp;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Debian's nginx on a loopback port, in front of the given ports, with deploy/nginx/proxy.conf. */
async function startNginx(ports: number[]): Promise<{ url: string; process: ChildProcess; stop(): Promise<void> }> {
  const dir = await mkdtemp(path.join(tmpdir(), 'epr-nginx-'));
  // nginx's workers (another user when started as root) write their temporary files here.
  await chmod(dir, 0o755);
  const port = await freePort();
  const conf = path.join(dir, 'nginx.conf');
  await writeFile(
    conf,
    `worker_processes 1;
daemon off;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  upstream api {
${ports.map((p) => `    server 127.0.0.1:${p} max_fails=1 fail_timeout=10s;`).join('\n')}
    keepalive 32;
  }
  server {
    listen 127.0.0.1:${port};
    include ${path.join(REPO_ROOT, 'deploy/nginx/proxy.conf')};
  }
}
`,
  );
  const child = spawn(NGINX, ['-p', dir, '-c', conf, '-e', path.join(dir, 'error.log')], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`nginx exited with ${child.exitCode}: ${output}`);
    if (
      await fetch(`${url}/health/live`).then(
        (r) => r.ok,
        () => false,
      )
    )
      break;
    if (i > 100) throw new Error(`nginx did not answer: ${output}`);
    await sleep(100);
  }
  return {
    url,
    process: child,
    async stop() {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await once(child, 'exit');
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}

interface Sent {
  token: string;
  key: string;
  body: unknown;
  status: number;
  id?: string;
}

async function post(url: string, token: string, body: unknown, key?: string): Promise<{ status: number; id?: string }> {
  const res = await fetch(`${url}/api/v1/declarations`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...(key ? { 'idempotency-key': key } : {}) },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await res.text();
  return { status: res.status, id: res.status < 300 ? (JSON.parse(text) as { id: string }).id : undefined };
}

const run = SERVER_DATABASE_URL && existsSync(NGINX) ? describe : describe.skip;

run('three replicas behind nginx, one killed in the middle of a deadline burst', () => {
  let db: BackingDatabase;
  let replicas: SpawnedApp[] = [];
  let proxy: Awaited<ReturnType<typeof startNginx>>;

  beforeAll(async () => {
    db = await startBackingDatabase();
    const env = { DATABASE_URL: db.url, TRUST_PROXY: 'loopback', RATE_LIMIT_CLIENT_WRITES_PER_MINUTE: String(WRITES_PER_MINUTE) };
    const first = await spawnApp(env);
    replicas = [first, ...(await Promise.all([1, 2].map(() => spawnApp({ ...env, MIGRATIONS_RUN: 'false' }))))];
    proxy = await startNginx(replicas.map((r) => Number(new URL(r.url).port)));
  }, 180_000);

  afterAll(async () => {
    await proxy?.stop();
    for (const replica of replicas) await replica.stop('SIGKILL');
    await db?.close();
  });

  it('acknowledged declarations are stored once, refused ones are filed when sent again, and sessions, limits and revocations hold', async () => {
    const t = asTestApp(proxy.url);
    const clients = await Promise.all(Array.from({ length: CLIENTS }, () => createClientWithToken(t)));
    // A dashboard session and a token used on every replica, before the kill.
    const browser = await signedIn(t, clients[0]!.clientId);
    const watched = await createClientWithToken(t);
    const me = (url: string) => fetch(`${url}/api/v1/me`, { headers: { authorization: `Bearer ${watched.token}` } }).then((r) => r.status);
    for (const replica of replicas) expect([await me(replica.url), await me(replica.url)]).toEqual([200, 200]);

    // The burst: every client files its half-year at once, POSTS_PER_CLIENT revisions each, through nginx.
    // A POST refused because its replica died is sent again at once with its key, as a client would,
    // and again after Retry-After while it is answered 409 (the dead replica's claim still held).
    const victim = replicas[1]!;
    const sent: Sent[] = [];
    const filed: string[] = [];
    let acknowledged = 0;
    let inFlightAnswers = 0;
    let killedAt: number | undefined;
    let lastRefiledAt = 0;
    const started = Date.now();
    await Promise.all(
      clients.map(async ({ token }, c) => {
        for (let i = 0; i < POSTS_PER_CLIENT; i++) {
          const body = {
            period: '2026-S1',
            lines: Array.from({ length: LINES }, (_, l) => ({
              stream: 'EMB',
              material: `material ${l}`,
              unit: 'uvc',
              quantity: c * 1000 + i * 10 + l,
            })),
          };
          const key = `burst-${c}-${i}`;
          const res = await post(proxy.url, token, body, key);
          sent.push({ token, key, body, ...res });
          if (res.status === 201 && ++acknowledged === Math.floor((CLIENTS * POSTS_PER_CLIENT) / 3)) {
            killedAt = Date.now() - started;
            victim.process.kill('SIGKILL');
          }
          if (res.status !== 502) continue;
          // Filed now, or the answer of a transaction that committed before the replica died.
          let again = await post(proxy.url, token, body, key);
          for (let retry = 0; again.status === 409 && retry < RESEND_RETRIES; retry++) {
            inFlightAnswers++;
            await sleep(1_000);
            again = await post(proxy.url, token, body, key);
          }
          expect([200, 201]).toContain(again.status);
          filed.push(again.id!);
          lastRefiledAt = Date.now() - started;
        }
      }),
    );
    reportFigure(`burst: ${sent.length} POSTs in ${Date.now() - started} ms, replica killed at ${killedAt} ms`);
    expect(killedAt).toBeDefined();
    if (victim.process.exitCode === null && victim.process.signalCode === null) await once(victim.process, 'exit');
    const survivors = replicas.filter((r) => r !== victim);

    // Only two outcomes: filed (201), or refused by the proxy because the replica died with the request (502).
    expect(sent.filter((s) => s.status !== 201 && s.status !== 502)).toEqual([]);
    const refused = sent.filter((s) => s.status === 502);
    expect(refused.length).toBeGreaterThan(0);
    expect(filed).toHaveLength(refused.length);
    // Well within the minute after which a claim is taken over however alive its owner: the dead
    // replica's claims were taken over because its lock went with it.
    expect(lastRefiledAt - killedAt!).toBeLessThan(15_000);
    const acked = sent.filter((s) => s.status === 201).map((s) => s.id!);
    reportFigure(
      `refused by the proxy: ${refused.length} (502), all filed again by ${lastRefiledAt - killedAt!} ms after the kill, ${inFlightAnswers} resends answered 409 first`,
    );

    // Stored once each: exactly the acknowledged and the re-filed, every client's revisions 1..N without a gap.
    const stored = await db.pool.query<{ id: string }>(`SELECT d.id FROM declarations d WHERE d.client_id = ANY($1)`, [
      clients.map((c) => c.clientId),
    ]);
    expect(stored.rows.map((r) => r.id).sort()).toEqual([...new Set([...acked, ...filed])].sort());
    expect(stored.rows).toHaveLength(CLIENTS * POSTS_PER_CLIENT);
    const revisions = await db.pool.query<{ n: number; top: number }>(
      `SELECT count(*)::int AS n, max(revision)::int AS top FROM declarations WHERE client_id = ANY($1) GROUP BY client_id`,
      [clients.map((c) => c.clientId)],
    );
    expect(new Set(revisions.rows.map((r) => `${r.n}/${r.top}`))).toEqual(new Set([`${POSTS_PER_CLIENT}/${POSTS_PER_CLIENT}`]));

    // The session goes on through the proxy, whichever survivor answers.
    for (let i = 0; i < 4; i++) expect((await browser.get('/dashboard')).status).toBe(200);

    // A revocation through the proxy reaches every survivor.
    const revoked = await fetch(`${proxy.url}/api/v1/admin/clients/${watched.clientId}/tokens/${watched.tokenId}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(revoked.status).toBe(204);
    for (const replica of survivors) {
      const deadline = Date.now() + 2_000;
      let status = await me(replica.url);
      while (status === 200 && Date.now() < deadline) status = await me(replica.url);
      expect(status).toBe(401);
    }

    // One client's writes are counted together by the survivors: its limit, spent through the proxy,
    // refuses it on each of them. (Counts are per minute, windows on the clock: not across a boundary.)
    const { token } = await createClientWithToken(t);
    if (Date.now() % 60_000 > 50_000) await sleep(60_000 - (Date.now() % 60_000) + 100);
    const invalid = { period: '2026-S1', lines: [] };
    for (let i = 0; i < WRITES_PER_MINUTE; i++) expect((await post(proxy.url, token, invalid)).status).toBe(422);
    // Each survivor reads the shared counts again when its view is over a second old.
    await sleep(1_200);
    for (const replica of survivors) expect((await post(replica.url, token, invalid)).status).toBe(429);
  }, 120_000);
});
