import request from 'supertest';
import { startTestApp, type TestApp } from './support/test-app.js';
import { ThrowingModule } from './support/throwing.module.js';

// A file of its own: nestjs-pino keeps one logger per process (the first app's), and jest gives
// each file its own module registry.
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ env: { LOG_LEVEL: 'warn' }, extraImports: [ThrowingModule] });
});
afterAll(async () => {
  await t?.close();
});

describe('request logs at LOG_LEVEL=warn', () => {
  it('writes no line for a successful request, and the error line of a 500 with method, url and route', async () => {
    await request(t.url).get('/health/live').set('x-request-id', 'quiet-ok');
    await request(t.url).get('/api/v1/streams.json').set('x-request-id', 'quiet-file');
    expect((await request(t.url).get('/test-only/boom?x=1').set('x-request-id', 'quiet-boom')).status).toBe(500);
    const lines = t.logs.map((l) => JSON.parse(l));
    expect(lines.filter((l) => ['quiet-ok', 'quiet-file'].includes(l.request_id))).toEqual([]);
    expect(lines.find((l) => l.request_id === 'quiet-boom')).toEqual(
      expect.objectContaining({
        level: 50,
        req: expect.objectContaining({ method: 'GET', url: '/test-only/boom?x=1' }),
        route: '/test-only/boom',
        res: { status: 500 },
        err: expect.objectContaining({ message: expect.stringContaining('secret internal detail') }),
      }),
    );
  });
});
