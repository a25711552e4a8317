import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runToExit, spawnApp, type SpawnedApp } from './support/spawned-app.js';
import { ADMIN_TOKEN, createTestDatabase, SERVER_DATABASE_URL, type TestDatabase } from './support/test-app.js';

/** The built service as a person starts it: what it prints, and how it fails when it cannot start. */
const STACK_LINE = /\n\s+at /;

describe('start-up on the embedded database, without ADMIN_TOKEN, at LOG_LEVEL=info', () => {
  let dataDir: string;
  let app: SpawnedApp;
  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'epr-startup-'));
    app = await spawnApp({ DATA_DIR: dataDir, LOG_LEVEL: 'info', ADMIN_TOKEN: '' });
  }, 300_000);
  afterAll(async () => {
    await app?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('prints one block: the addresses, the embedded database and its path, and that the admin API is off', () => {
    const port = new URL(app.url).port;
    const output = app.output.join('');
    expect(output).toContain(`site        http://localhost:${port}/`);
    expect(output).toContain(`API docs    http://localhost:${port}/docs`);
    expect(output).toContain(`index       http://localhost:${port}/api/v1/index.json`);
    expect(output).toContain(`database    embedded PostgreSQL in ${dataDir}`);
    expect(output).toMatch(/admin API {3}off: set ADMIN_TOKEN/);
  });

  it("keeps Nest's module and route loading messages out of the info log", () => {
    const output = app.output.join('');
    expect(output).not.toMatch(/InstanceLoader|RoutesResolver|RouterExplorer|Nest application successfully started/);
  });

  it('stops with one line naming PORT, no stack and no new DATA_DIR, when the port is taken', async () => {
    const fresh = path.join(dataDir, 'not-created');
    const { code, output } = await runToExit({ PORT: new URL(app.url).port, DATA_DIR: fresh });
    expect(code).toBe(1);
    expect(output.trim()).toBe(
      `PORT ${new URL(app.url).port} is already in use on 127.0.0.1: stop the process that holds it, or set PORT to a free port.`,
    );
    expect(existsSync(fresh)).toBe(false);
  }, 300_000);

  it('stops with one line naming DATA_DIR, no stack, when another process holds it', async () => {
    const { code, output } = await runToExit({ PORT: '0', DATA_DIR: dataDir });
    expect(code).toBe(1);
    expect(output).toContain(`DATA_DIR ${dataDir} is already in use by another process`);
    expect(output).not.toMatch(STACK_LINE);
    expect(output.trim().split('\n')).toHaveLength(1);
  }, 300_000);
});

// Only where a server is named (DATABASE_URL); the embedded run is covered above.
(SERVER_DATABASE_URL ? describe : describe.skip)('start-up on a PostgreSQL server, with ADMIN_TOKEN', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    // Empty (not the suite's migrated template): the service migrates it at start.
    db = await createTestDatabase({ empty: true });
  });
  afterAll(async () => {
    await db?.close();
  });

  it('names the server without its credentials and says the admin API is on', async () => {
    const url = new URL(db.url!);
    url.username = 'postgres';
    url.password = 'not-to-be-printed';
    const app = await spawnApp({ DATABASE_URL: url.toString(), LOG_LEVEL: 'info', ADMIN_TOKEN });
    try {
      const output = app.output.join('');
      expect(output).toContain(`database    PostgreSQL server at ${url.hostname}:${url.port || '5432'}${url.pathname}`);
      expect(output).toContain('admin API   on');
      expect(output).not.toContain('not-to-be-printed');
    } finally {
      await app.stop();
    }
  }, 300_000);
});
