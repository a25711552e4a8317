/**
 * Connections per client address: slow connections from one address cannot fill
 * the server's connections; behind a trusted proxy (TRUST_PROXY) the bound applies to the requests
 * in flight of each forwarded client address instead of to the proxy's own connections. Slow
 * connections from several addresses together cannot fill them either: near the cap, the oldest
 * idle or unfinished connections of the addresses holding the most are closed first.
 */
import net from 'node:net';
import { startTestApp, type TestApp } from './support/test-app.js';

const MAX = 5;

/** A connection from `localAddress` that sends the start of a request's headers and nothing more (slowloris). */
function slowConnection(port: number, localAddress: string): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ port, host: '127.0.0.1', localAddress }, () => {
      socket.write('GET /health/live HTTP/1.1\r\nHost: x\r\n');
      resolve(socket);
    });
    socket.on('error', () => {});
    socket.once('error', reject);
  });
}

/** One request on a new connection from `localAddress`: the status, or 0 when the server closes the connection without answering. */
function requestFrom(port: number, localAddress: string, head: string): Promise<number> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host: '127.0.0.1', localAddress }, () => socket.write(head));
    let received = '';
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('latin1');
      if (received.includes('\r\n\r\n')) {
        socket.destroy();
        resolve(Number(received.slice(9, 12)));
      }
    });
    socket.on('error', () => {});
    socket.on('close', () => resolve(received.startsWith('HTTP/1.1 ') ? Number(received.slice(9, 12)) : 0));
  });
}

const get = (path: string, headers = '') => `GET ${path} HTTP/1.1\r\nHost: x\r\n${headers}Connection: close\r\n\r\n`;
const portOf = (app: TestApp) => Number(new URL(app.url).port);

describe('without a proxy: connections per address', () => {
  let t: TestApp;
  const open: net.Socket[] = [];
  beforeAll(async () => {
    t = await startTestApp({ connectionLimits: { maxConnectionsPerAddress: MAX } });
  }, 60_000);
  afterAll(async () => {
    for (const socket of open) socket.destroy();
    await t?.close();
  });

  it(`an address holding ${MAX} slow connections gets its next one closed at once; another address is served`, async () => {
    const port = portOf(t);
    for (let i = 0; i < MAX; i++) open.push(await slowConnection(port, '127.0.0.1'));
    expect(await requestFrom(port, '127.0.0.1', get('/health/live'))).toBe(0);
    // 127.0.0.2 is another address of the loopback network.
    expect(await requestFrom(port, '127.0.0.2', get('/health/live'))).toBe(200);
    // One slow connection gone: the address may open one more.
    open.shift()!.destroy();
    await new Promise((r) => setTimeout(r, 100));
    expect(await requestFrom(port, '127.0.0.1', get('/health/live'))).toBe(200);
  });
});

describe('many addresses holding slow connections: the cap is shared fairly', () => {
  // Room is made from 54 open connections on; 8 addresses × 10 slow connections would fill 60.
  const LIMITS = { maxConnections: 60, maxConnectionsPerAddress: 10 };
  let t: TestApp;
  const open: net.Socket[] = [];
  beforeAll(async () => {
    t = await startTestApp({ connectionLimits: LIMITS });
  }, 60_000);
  afterAll(async () => {
    for (const socket of open) socket.destroy();
    await t?.close();
  });

  it('8 addresses × 10 connections that never finish their headers: another address is still served, the oldest slow ones are closed', async () => {
    const port = portOf(t);
    const closed: boolean[] = [];
    for (let address = 2; address < 10; address++) {
      for (let i = 0; i < LIMITS.maxConnectionsPerAddress; i++) {
        const socket = await slowConnection(port, `127.0.0.${address}`);
        const at = closed.push(false) - 1;
        socket.on('close', () => (closed[at] = true));
        open.push(socket);
      }
    }
    // A client of another address gets every answer.
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) statuses.push(await requestFrom(port, '127.0.0.50', get('/health/live')));
    expect(statuses).toEqual(Array(10).fill(200));
    // Every address made its 10 connections; the oldest of the addresses holding most were closed to keep room (80 opened, 54 kept).
    await new Promise((r) => setTimeout(r, 200));
    expect(closed.filter(Boolean).length).toBeGreaterThanOrEqual(80 - 54);
    // Of each address, the oldest went first.
    for (let from = 0; from < closed.length; from += 10) {
      const mine = closed.slice(from, from + 10);
      expect(mine).toEqual([...mine].sort((x, y) => Number(y) - Number(x)));
    }
    // And the slow addresses still get theirs too, a connection at a time.
    expect(await requestFrom(port, '127.0.0.9', get('/health/live'))).toBe(200);
  });
});

describe('behind a trusted proxy (TRUST_PROXY=loopback): requests in flight per forwarded address', () => {
  let t: TestApp;
  const open: net.Socket[] = [];
  beforeAll(async () => {
    t = await startTestApp({ env: { TRUST_PROXY: 'loopback' }, connectionLimits: { maxConnectionsPerAddress: MAX } });
  }, 60_000);
  afterAll(async () => {
    for (const socket of open) socket.destroy();
    await t?.close();
  });

  /** A request from the proxy for `client` whose body never comes: in flight until the request timeout. */
  function slowRequest(port: number, client: string): Promise<net.Socket> {
    return new Promise((resolve, reject) => {
      const socket = net.connect({ port, host: '127.0.0.1' }, () => {
        socket.write(
          `POST /dashboard/sign-in HTTP/1.1\r\nHost: x\r\nX-Forwarded-For: ${client}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 100\r\n\r\nemail=`,
        );
        resolve(socket);
      });
      socket.on('error', () => {});
      socket.once('error', reject);
    });
  }

  it('the proxy’s own connections are not capped; a forwarded address past the bound gets 429, others are served', async () => {
    const port = portOf(t);
    // More connections from the proxy than one address may hold: all served.
    for (let i = 0; i < MAX + 2; i++) open.push(await slowConnection(port, '127.0.0.1'));
    expect(await requestFrom(port, '127.0.0.1', get('/health/live'))).toBe(200);
    for (let i = 0; i < MAX; i++) open.push(await slowRequest(port, '203.0.113.7'));
    await new Promise((r) => setTimeout(r, 200));
    expect(await requestFrom(port, '127.0.0.1', get('/health/live', 'X-Forwarded-For: 203.0.113.7\r\n'))).toBe(429);
    expect(await requestFrom(port, '127.0.0.1', get('/health/live', 'X-Forwarded-For: 203.0.113.8\r\n'))).toBe(200);
    // Through another proxy hop from the same client: the same address.
    expect(await requestFrom(port, '127.0.0.1', get('/health/live', 'X-Forwarded-For: 203.0.113.7, 127.0.0.5\r\n'))).toBe(429);
    open.pop()!.destroy();
    await new Promise((r) => setTimeout(r, 100));
    expect(await requestFrom(port, '127.0.0.1', get('/health/live', 'X-Forwarded-For: 203.0.113.7\r\n'))).toBe(200);
  });
});
