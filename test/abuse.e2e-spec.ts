import net from 'node:net';
import request from 'supertest';
import { createClientWithToken } from './support/factories.js';
import { startTestApp, type TestApp } from './support/test-app.js';

let t: TestApp;
let token: string;
beforeAll(async () => {
  // Short timeouts so that the test does not wait for the production ones (10 s headers, 30 s request).
  t = await startTestApp({ timeouts: { headersMs: 1_000, requestMs: 2_000 } });
  ({ token } = await createClientWithToken(t));
});
afterAll(async () => {
  await t?.close();
});

/** Opens a raw connection; resolves with everything the server sent once it closes the connection. */
function rawConnection(write: (socket: net.Socket) => void): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(t.config.port, '127.0.0.1', () => write(socket));
    let received = '';
    socket.on('data', (chunk) => (received += chunk.toString()));
    socket.on('close', () => resolve(received));
    socket.on('error', reject);
  });
}

const declaration = (lines: number) => ({
  period: '2025-S1',
  lines: Array.from({ length: lines }, (_, i) => ({ stream: 'EMB', material: `material ${i}`, unit: 'uvc', quantity: i + 1 })),
});

describe('slow and abusive clients', () => {
  it('closes a connection that never sends its request, with 408, and keeps serving others', async () => {
    const silent = rawConnection(() => {});
    const other = await request(t.url).get('/health/live');
    expect(other.status).toBe(200);
    expect(await silent).toMatch(/^HTTP\/1\.1 408 /);
  });

  it('cuts a body sent one byte at a time at the request timeout, with 408', async () => {
    const body = JSON.stringify(declaration(1));
    let timer: NodeJS.Timeout | undefined;
    const trickle = rawConnection((socket) => {
      socket.write(
        `POST /api/v1/declarations HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
      );
      let i = 0;
      timer = setInterval(() => {
        if (i < body.length && !socket.destroyed) socket.write(body[i++]!);
      }, 200);
    });
    const other = await request(t.url).get('/api/v1/me').set('authorization', `Bearer ${token}`);
    expect(other.status).toBe(200);
    const answer = await trickle;
    clearInterval(timer);
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    const stored = await t.pool.query('SELECT count(*)::int AS n FROM declarations');
    expect(stored.rows[0].n).toBe(0);
  });

  it('refuses a body whose Content-Length is over 1 MiB at once with 413, and closes the connection', async () => {
    const started = Date.now();
    const answer = await rawConnection((socket) => {
      socket.write(
        `POST /api/v1/declarations HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: 20000000000\r\n\r\n{"period":`,
      );
    });
    // Before: the body was drained until the request timeout, then 408. (A client that goes on
    // writing a large body after the answer gets its connection reset: a test doing so with
    // supertest failed now and then on a loaded machine with ECONNRESET, so it is not done here.)
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(answer).toMatch(/\r\nConnection: close\r\n/i);
    expect(Date.now() - started).toBeLessThan(1_500);
  });

  it.each([
    ['without a token (401)', {}],
    ['over the limit by its Content-Length (413)', { authorization: 'token' }],
  ])('stops reading a body it refuses %s', async (_name, headers) => {
    const server = t.app.getHttpServer() as import('node:http').Server;
    const accepted: net.Socket[] = [];
    const onConnection = (socket: net.Socket) => accepted.push(socket);
    server.on('connection', onConnection);
    const chunk = Buffer.alloc(64 * 1024, 'x');
    const answer = await new Promise<string>((resolve) => {
      let received = '';
      const socket = net.connect(t.config.port, '127.0.0.1', () => {
        const auth = 'authorization' in headers ? `Authorization: Bearer ${token}\r\n` : '';
        socket.write(
          `POST /api/v1/declarations HTTP/1.1\r\nHost: x\r\n${auth}Content-Type: application/json\r\nContent-Length: 10000000000\r\n\r\n`,
        );
        // Send as fast as the connection takes it, for at most 1.5 s.
        const until = Date.now() + 1_500;
        const pump = () => {
          while (!socket.destroyed && Date.now() < until) if (!socket.write(chunk)) return void socket.once('drain', pump);
          socket.destroy();
        };
        pump();
      });
      socket.on('data', (data) => (received += data.toString()));
      socket.on('error', () => {});
      socket.on('close', () => resolve(received));
    });
    server.off('connection', onConnection);
    expect(answer).toMatch('authorization' in headers ? /^HTTP\/1\.1 413 / : /^HTTP\/1\.1 401 /);
    expect(answer).toMatch(/\r\nConnection: close\r\n/i);
    // Before: the server read and discarded everything (~1 GB in these 1.5 s on loopback).
    const bytesRead = accepted.reduce((sum, socket) => sum + socket.bytesRead, 0);
    expect(bytesRead).toBeLessThan(4 * 1024 * 1024);
  });

  it('refuses a body of too many JSON objects and arrays with 413 before parsing it', async () => {
    // 1 MiB of `{}`: ~350,000 objects once parsed (~20 MB of heap for 1 MB of text).
    const objects = `{"period":"2025-S1","lines":[${Array(340_000).fill('{}').join(',')}]}`;
    expect(objects.length).toBeLessThan(1024 * 1024);
    const res = await request(t.url)
      .post('/api/v1/declarations')
      .set('authorization', `Bearer ${token}`)
      .set('content-type', 'application/json')
      .send(objects);
    expect(res.status).toBe(413);
    expect(res.body.code).toBe('payload_too_large');
    expect(res.body.detail).toMatch(/more than 20,000 JSON objects and arrays/);
    // Nested arrays count as much as objects.
    const arrays = await request(t.url)
      .post('/api/v1/declarations')
      .set('authorization', `Bearer ${token}`)
      .set('content-type', 'application/json')
      .send(`[${Array(20_000).fill('[]').join(',')}]`);
    expect(arrays.status).toBe(413);
    const stored = await t.pool.query('SELECT count(*)::int AS n FROM declarations');
    expect(stored.rows[0].n).toBe(0);
  });

  it('refuses 10,000 lines with 422 too_many_lines and stores nothing', async () => {
    const res = await request(t.url).post('/api/v1/declarations').set('authorization', `Bearer ${token}`).send(declaration(10_000));
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ pointer: '/lines', code: 'too_many_lines' })]));
    const stored = await t.pool.query('SELECT count(*)::int AS n FROM declarations');
    expect(stored.rows[0].n).toBe(0);
    expect((await request(t.url).get('/health/live')).status).toBe(200);
  });
});
