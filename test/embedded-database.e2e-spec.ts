import { chmod, mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createClient } from './support/factories.js';
import { runToExit, spawnApp } from './support/spawned-app.js';
import { ADMIN_TOKEN, migratedEmbeddedDataDir, type TestApp } from './support/test-app.js';

/** Every file and directory under `dir`, with its permission bits. */
async function everything(dir: string): Promise<{ path: string; mode: number; directory: boolean; socket: boolean }[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return Promise.all(
    entries.map(async (e) => {
      const at = path.join(e.parentPath, e.name);
      return { path: at, mode: (await stat(at)).mode & 0o777, directory: e.isDirectory(), socket: e.isSocket() };
    }),
  );
}

describe('the embedded database (no DATABASE_URL)', () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'epr-embedded-'));
  });
  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it('is ready, keeps its data across a restart, refuses a second process on the same DATA_DIR, and keeps its files private', async () => {
    const first = await spawnApp({ DATA_DIR: dataDir });
    expect((await fetch(`${first.url}/health/ready`)).status).toBe(200);
    const { clientId } = await createClient({ url: first.url } as TestApp, { company: 'Persistante SARL' });

    const second = await runToExit({ DATA_DIR: dataDir, PORT: '0' });
    expect(second.code).toBe(1);
    expect(second.output).toContain('already in use by another process');
    // The first one is unharmed.
    expect((await fetch(`${first.url}/health/ready`)).status).toBe(200);

    expect(await first.stop('SIGTERM')).toBe(0);
    // As an earlier version left it: PGlite's files world-readable and writable.
    for (const entry of await everything(dataDir)) await chmod(entry.path, entry.directory ? 0o777 : 0o666);
    await chmod(dataDir, 0o777);
    const again = await spawnApp({ DATA_DIR: dataDir });
    // Private again, files created since start included.
    expect((await stat(dataDir)).mode & 0o777).toBe(0o700);
    const modes = (await everything(dataDir)).filter((e) => !e.socket).map((e) => [e.path, e.mode]);
    expect(modes.length).toBeGreaterThan(10);
    expect(modes.filter(([, mode]) => mode !== 0o600 && mode !== 0o700)).toEqual([]);
    const res = await fetch(`${again.url}/api/v1/admin/clients/${clientId}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { confirmed: { company: string } }).confirmed.company).toBe('Persistante SARL');
    expect(await again.stop('SIGINT')).toBe(0);
  }, 300_000);
});

describe('the embedded lock', () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await migratedEmbeddedDataDir();
  });
  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it('after kill -9 a restart opens the database at once; a frozen owner keeps it', async () => {
    const first = await spawnApp({ DATA_DIR: dataDir });
    await createClient({ url: first.url } as TestApp, { client_id: 'survives-kill' });
    await first.stop('SIGKILL');
    const restarted = await spawnApp({ DATA_DIR: dataDir });
    const res = await fetch(`${restarted.url}/api/v1/admin/clients/survives-kill`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect(res.status).toBe(200);

    // Frozen for longer than the 15 s after which the old lock counted as stale: still its database.
    restarted.process.kill('SIGSTOP');
    try {
      await new Promise((r) => setTimeout(r, 16_000));
      const second = await runToExit({ DATA_DIR: dataDir, PORT: '0' });
      expect(second.code).toBe(1);
      expect(second.output).toContain('already in use by another process');
    } finally {
      restarted.process.kill('SIGCONT');
    }
    expect((await fetch(`${restarted.url}/health/ready`)).status).toBe(200);
    expect(await restarted.stop('SIGTERM')).toBe(0);
  }, 360_000);
});

describe('invalid configuration', () => {
  it.each([
    [{ PORT: 'abc' }, 'PORT'],
    [{ ADMIN_TOKEN: 'shorter-than-32' }, 'ADMIN_TOKEN'],
    [{ DATABASE_URL: 'not-a-url' }, 'DATABASE_URL'],
  ])(
    '%j stops the start with a message naming %s',
    async (env, name) => {
      const { code, output } = await runToExit(env);
      expect(code).toBe(1);
      expect(output).toMatch(new RegExp(`Invalid configuration:\\n\\s+${name}: `));
      expect(output).not.toMatch(/\n\s+at /); // a message, not a stack trace
    },
    120_000,
  );
});
