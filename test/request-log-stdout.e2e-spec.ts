import { spawnApp, type SpawnedApp } from './support/spawned-app.js';
import { createTestDatabase, SERVER_DATABASE_URL, type TestDatabase } from './support/test-app.js';

/**
 * The request log of the built service goes to stdout through a buffer (src/common/logging.ts):
 * a quiet service still shows a request's line within a second or so, and a stop loses none.
 */
// On a PostgreSQL server (the embedded database of a test cannot be shared with a spawned process).
(SERVER_DATABASE_URL ? describe : describe.skip)('request lines on stdout (dist/src/main.js at LOG_LEVEL=info)', () => {
  let db: TestDatabase;
  let app: SpawnedApp | undefined;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => {
    await app?.stop();
    await db?.close();
  });

  const lineOf = (id: string) =>
    app!.output
      .join('')
      .split('\n')
      .find((l) => l.includes(`"request_id":"${id}"`));

  it('writes the line of a lone request within seconds, though the buffer is far from full', async () => {
    app = await spawnApp({ DATABASE_URL: db.url!, LOG_LEVEL: 'info' });
    await fetch(`${app.url}/health/live`, { headers: { 'x-request-id': 'lone-request' } });
    const deadline = Date.now() + 5_000;
    while (!lineOf('lone-request') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(JSON.parse(lineOf('lone-request')!)).toEqual(
      expect.objectContaining({ level: 30, route: '/health/live', res: { status: 200 } }),
    );
  }, 120_000);

  it('writes every buffered line when it stops', async () => {
    const ids = Array.from({ length: 5 }, (_, i) => `before-stop-${i}`);
    for (const id of ids) await fetch(`${app!.url}/health/live`, { headers: { 'x-request-id': id } });
    expect(await app!.stop()).toBe(0);
    for (const id of ids) expect(lineOf(id)).toBeDefined();
  }, 30_000);
});
