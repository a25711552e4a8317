import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createClient } from './support/factories.js';
import { runToExit, spawnApp } from './support/spawned-app.js';
import { ADMIN_TOKEN, type TestApp } from './support/test-app.js';

describe('the embedded database (no DATABASE_URL)', () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'epr-embedded-'));
  });
  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it('is ready, keeps its data across a restart, and refuses a second process on the same DATA_DIR', async () => {
    const first = await spawnApp({ DATA_DIR: dataDir });
    expect((await fetch(`${first.url}/health/ready`)).status).toBe(200);
    const { clientId } = await createClient({ url: first.url } as TestApp, { company: 'Persistante SARL' });

    const second = await runToExit({ DATA_DIR: dataDir, PORT: '0' });
    expect(second.code).toBe(1);
    expect(second.output).toContain('already in use by another process');
    // The first one is unharmed.
    expect((await fetch(`${first.url}/health/ready`)).status).toBe(200);

    expect(await first.stop('SIGTERM')).toBe(0);
    const again = await spawnApp({ DATA_DIR: dataDir });
    const res = await fetch(`${again.url}/api/v1/admin/clients/${clientId}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { confirmed: { company: string } }).confirmed.company).toBe('Persistante SARL');
    expect(await again.stop('SIGINT')).toBe(0);
  }, 120_000);
});

describe('invalid configuration', () => {
  it.each([
    [{ PORT: 'abc' }, 'PORT'],
    [{ ADMIN_TOKEN: 'shorter-than-32' }, 'ADMIN_TOKEN'],
    [{ DATABASE_URL: 'not-a-url' }, 'DATABASE_URL'],
  ])('%j stops the start with a message naming %s', async (env, name) => {
    const { code, output } = await runToExit(env);
    expect(code).toBe(1);
    expect(output).toMatch(new RegExp(`Invalid configuration:\\n\\s+${name}: `));
    expect(output).not.toMatch(/\n\s+at /); // a message, not a stack trace
  }, 30_000);
});
