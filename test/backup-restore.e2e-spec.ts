/**
 * Backup and restore (`npm run db:backup`, `npm run db:restore`, docs/operations.md): the embedded
 * database backed up once the service is stopped (refused while it runs), restored with the server's
 * own psql into a fresh database, and the service started there with DATABASE_URL — the way from the
 * embedded default up to a server — with the same declarations, tokens, sessions, audit trail and
 * migrations; and restores refused on a database that already holds data.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { REPO_ROOT } from '../src/common/repo-root.js';
import { DashboardClient, signedIn } from './support/dashboard-browser.js';
import { createClientWithToken } from './support/factories.js';
import { spawnApp, type SpawnedApp } from './support/spawned-app.js';
import { ADMIN_TOKEN, migratedEmbeddedDataDir, SERVER_DATABASE_URL, type TestApp } from './support/test-app.js';

const asTestApp = (url: string) => ({ url }) as TestApp;

/** The backup command (`npm run db:backup` / `db:restore` run it) with this environment only. */
async function command(args: string[], env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, [path.join(REPO_ROOT, 'dist/src/database/backup-command.js'), ...args], {
    env: { PATH: process.env.PATH, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, output };
}

async function run(program: string, args: string[]): Promise<{ code: number | null; output: string }> {
  const child = spawn(program, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, output };
}

const get = async (url: string, token: string) => {
  const res = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  return { status: res.status, body: (await res.json()) as unknown };
};

/** What the move must keep, read through the API. */
async function snapshot(url: string, token: string, clientId: string) {
  return {
    me: await get(`${url}/api/v1/me`, token),
    declarations: await get(`${url}/api/v1/declarations?limit=100`, token),
    audit: await get(`${url}/api/v1/admin/audit?client_id=${clientId}&limit=100`, ADMIN_TOKEN),
  };
}

/** A new, empty database on the server; dropped by `drop`. */
async function emptyServerDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `backup_${Date.now().toString(36)}_${Math.floor(Math.random() * 1e6)}`;
  const admin = new pg.Client({ connectionString: SERVER_DATABASE_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = Object.assign(new URL(SERVER_DATABASE_URL!), { pathname: `/${name}` }).toString();
  return {
    url,
    async drop() {
      const dropper = new pg.Client({ connectionString: SERVER_DATABASE_URL });
      await dropper.connect();
      await dropper.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await dropper.end();
    },
  };
}

async function migrationsOf(url: string): Promise<unknown[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query('SELECT id, timestamp, name FROM migrations ORDER BY id')).rows;
  } finally {
    await client.end();
  }
}

const onServer = SERVER_DATABASE_URL ? it : it.skip;

describe('backup of the embedded database, restored on a PostgreSQL server', () => {
  let dir: string;
  let dataDir: string;
  let backup: string;
  let embedded: SpawnedApp | undefined;
  const servers: { drop(): Promise<void> }[] = [];
  const apps: SpawnedApp[] = [];
  let client: { clientId: string; token: string };
  let browser: DashboardClient;
  let before: Awaited<ReturnType<typeof snapshot>>;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'epr-backup-'));
    dataDir = await migratedEmbeddedDataDir(path.join(dir, 'data'));
    backup = path.join(dir, 'backup.sql');
    embedded = await spawnApp({ DATA_DIR: dataDir });
    const t = asTestApp(embedded.url);
    client = await createClientWithToken(t);
    for (const quantity of [100, 120]) {
      const res = await fetch(`${embedded.url}/api/v1/declarations`, {
        method: 'POST',
        headers: { authorization: `Bearer ${client.token}`, 'content-type': 'application/json', 'idempotency-key': `k-${quantity}` },
        body: JSON.stringify({ period: '2026-S1', lines: [{ stream: 'EMB', material: 'glass', unit: 'uvc', quantity }] }),
      });
      expect(res.status).toBe(201);
    }
    browser = await signedIn(t, client.clientId);
    expect((await browser.get('/dashboard')).status).toBe(200);
    before = await snapshot(embedded.url, client.token, client.clientId);
    expect(before.me.status).toBe(200);
    expect((before.declarations.body as { data: unknown[] }).data).toHaveLength(2);
    expect((before.audit.body as { data: unknown[] }).data.length).toBeGreaterThanOrEqual(4);
  }, 300_000);

  afterAll(async () => {
    await embedded?.stop('SIGKILL');
    for (const app of apps) await app.stop('SIGKILL');
    for (const server of servers) await server.drop();
    await rm(dir, { recursive: true, force: true });
  });

  it('refuses while the service runs, saying to stop it; once stopped, writes a plain SQL dump readable by its owner only', async () => {
    const refused = await command(['backup', backup], { DATA_DIR: dataDir });
    expect(refused.code).toBe(1);
    expect(refused.output).toMatch(/in use by a running service.*stop the service/s);
    expect(existsSync(backup)).toBe(false);

    expect(await embedded!.stop('SIGTERM')).toBe(0);
    embedded = undefined;
    const done = await command(['backup', backup], { DATA_DIR: dataDir });
    expect(done).toMatchObject({ code: 0 });
    expect(((await stat(backup)).mode & 0o777).toString(8)).toBe('600');
    // Never over an existing file (a backup and a restore mixed up would lose the good copy).
    const again = await command(['backup', backup], { DATA_DIR: dataDir });
    expect(again.code).toBe(1);
    expect(again.output).toContain('already exists');
  }, 300_000);

  onServer(
    'psql restores it into a fresh database; started there with DATABASE_URL, the service has the same data, tokens, sessions, audit trail and migrations',
    async () => {
      const server = await emptyServerDatabase();
      servers.push(server);
      const restored = await run('psql', ['-X', '-q', '-v', 'ON_ERROR_STOP=1', '--single-transaction', '-f', backup, server.url]);
      expect(restored.code).toBe(0);
      const migrations = await migrationsOf(server.url);
      expect(migrations.length).toBeGreaterThan(10);

      const app = await spawnApp({ DATABASE_URL: server.url });
      apps.push(app);
      // No migration ran again: the migrations table is the embedded database's.
      expect(await migrationsOf(server.url)).toEqual(migrations);
      expect(await snapshot(app.url, client.token, client.clientId)).toEqual(before);
      // The dashboard session goes on (its cookie, and the CSRF key kept in the database).
      const moved = new DashboardClient(app.url);
      for (const [name, value] of browser.cookies) moved.cookies.set(name, value);
      expect((await moved.get('/dashboard')).status).toBe(200);
      // And writing goes on where it stopped: the next revision, the sequences restored.
      const next = await fetch(`${app.url}/api/v1/declarations`, {
        method: 'POST',
        headers: { authorization: `Bearer ${client.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ period: '2026-S1', lines: [{ stream: 'EMB', material: 'glass', unit: 'uvc', quantity: 140 }] }),
      });
      expect(next.status).toBe(201);
      expect(((await next.json()) as { revision: number }).revision).toBe(3);

      // npm run db:restore on that database now refuses: it holds data.
      const refused = await command(['restore', backup], { DATABASE_URL: server.url });
      expect(refused.code).toBe(1);
      expect(refused.output).toContain('already holds');
      // On an empty one it runs psql itself.
      const fresh = await emptyServerDatabase();
      servers.push(fresh);
      expect(await command(['restore', backup], { DATABASE_URL: fresh.url })).toMatchObject({ code: 0 });
      expect(await migrationsOf(fresh.url)).toEqual(migrations);
    },
    120_000,
  );

  it('restores into an empty DATA_DIR; refuses a DATA_DIR that holds a database unless --force, which keeps the old one aside', async () => {
    const refused = await command(['restore', backup], { DATA_DIR: dataDir });
    expect(refused.code).toBe(1);
    expect(refused.output).toContain('already holds a database');

    // Restored into an empty DATA_DIR, the database dumps again to the very same file: the same rows,
    // sequences, functions, triggers and constraints (the server test above shows the service on them).
    const other = path.join(dir, 'restored');
    expect(await command(['restore', backup], { DATA_DIR: other })).toMatchObject({ code: 0 });
    const again = path.join(dir, 'again.sql');
    expect(await command(['backup', again], { DATA_DIR: other })).toMatchObject({ code: 0 });
    expect(await readFile(again, 'utf8')).toBe(await readFile(backup, 'utf8'));

    const forced = await command(['restore', backup, '--force'], { DATA_DIR: dataDir });
    expect(forced.code).toBe(0);
    expect((await readdir(dataDir)).filter((name) => name.startsWith('pgdata.before-restore-'))).toHaveLength(1);
  }, 300_000);
});
