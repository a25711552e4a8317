import { readdir, readFile, readlink } from 'node:fs/promises';
import net from 'node:net';
import type { TestApp } from './support/test-app.js';
import { startBackingDatabase, type BackingDatabase } from './support/backing-database.js';
import { createClientWithToken } from './support/factories.js';
import { reportFigure, spawnApp, type SpawnedApp } from './support/spawned-app.js';

// Clients that send requests with large answers and never read them: the built service as its own
// process, so that its resident memory (socket buffers live outside the V8 heap) can be measured.

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const asTestApp = (url: string) => ({ url }) as TestApp;

/** How many of the given client connections (by their local ports) the process still holds open. */
async function heldConnections(pid: number, appPort: number, clientPorts: Set<number>): Promise<number> {
  const fds = await readdir(`/proc/${pid}/fd`);
  const links = await Promise.all(fds.map((fd) => readlink(`/proc/${pid}/fd/${fd}`).catch(() => '')));
  const inodes = new Set(links.map((link) => /^socket:\[(\d+)\]$/.exec(link)?.[1]).filter(Boolean));
  const table = (await readFile(`/proc/${pid}/net/tcp`, 'utf8')).split('\n').slice(1);
  return table.filter((row) => {
    const [, local, remote, , , , , , , inode] = row.trim().split(/\s+/);
    const port = (address?: string) => parseInt(address?.split(':')[1] ?? '', 16);
    return port(local) === appPort && clientPorts.has(port(remote)) && inodes.has(inode);
  }).length;
}

async function rssMb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) / 1024;
}

/** A raw connection that writes `payload` and never reads what comes back. */
function openSilentConnection(port: number, payload: string): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ port, host: '127.0.0.1' }, () => {
      socket.pause();
      socket.write(payload);
      resolve(socket);
    });
    socket.on('error', () => {});
    socket.once('error', reject);
  });
}

describe('clients that never read their answers', () => {
  let db: BackingDatabase;
  let app: SpawnedApp;
  beforeAll(async () => {
    db = await startBackingDatabase();
    app = await spawnApp({ DATABASE_URL: db.url });
  }, 120_000);
  afterAll(async () => {
    await app?.stop('SIGKILL');
    await db?.close();
  });

  it('1,000 identical lines on 40 unread connections: small 422s, RSS grows by less than 64 MB', async () => {
    const tokens = await Promise.all(Array.from({ length: 4 }, () => createClientWithToken(asTestApp(app.url)).then((c) => c.token)));
    const body = JSON.stringify({
      period: '2025-S1',
      lines: Array.from({ length: 1000 }, () => ({ stream: 'EMB', material: 'Verre', unit: 'kg', quantity: 1 })),
    });
    // One answered request: the size of the 422.
    const probe = await fetch(`${app.url}/api/v1/declarations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tokens[0]}`, 'content-type': 'application/json' },
      body,
    });
    const answer = await probe.text();
    expect(probe.status).toBe(422);
    expect(answer.length).toBeLessThan(64 * 1024);

    const port = Number(new URL(app.url).port);
    const before = await rssMb(app.process.pid!);
    const sockets: net.Socket[] = [];
    for (let i = 0; i < 40; i++) {
      const request = `POST /api/v1/declarations HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${tokens[i % tokens.length]}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
      sockets.push(await openSilentConnection(port, request));
    }
    let peak = before;
    for (let i = 0; i < 10; i++) {
      await sleep(300);
      peak = Math.max(peak, await rssMb(app.process.pid!));
    }
    reportFigure(`RSS with 40 unread 422s: ${before.toFixed(0)} MB before, ${peak.toFixed(0)} MB peak; one 422 is ${answer.length} bytes`);
    for (const socket of sockets) socket.destroy();
    // The bound is on growth: the idle process's own size depends on the machine (205 MB here, 250 on
    // CI's machine). Before the fix each unread 422 held 12 MB, 480 MB for these 40 connections. What
    // parsing and validating 40 bodies of 1,000 lines leaves in the heap until the GC runs varies with
    // the machine's load (39–66 MB seen, a CI run failed a 64 MB bound at 66.5): the bound sits at a
    // third of the bug's figure, far above that noise and far below what it catches.
    expect(peak - before).toBeLessThan(160);
  }, 30_000);

  it('pipelined requests never read: the connections are closed once their output stops moving', async () => {
    const port = Number(new URL(app.url).port);
    // 300 × 12 KB per connection: more than the kernel's socket buffers take.
    const pipelined = 'GET /api/v1/streams.json HTTP/1.1\r\nHost: x\r\n\r\n'.repeat(300);
    const sockets = await Promise.all(Array.from({ length: 20 }, () => openSilentConnection(port, pipelined)));
    const clientPorts = new Set(sockets.map((socket) => socket.localPort!));
    const held = () => heldConnections(app.process.pid!, port, clientPorts);
    // Every connection accepted (on a busy machine this takes a moment).
    let open = await held();
    for (let i = 0; i < 20 && open < 20; i++) {
      await sleep(250);
      open = await held();
    }
    expect(open).toBe(20);
    // Output stalled for 10 s → closed, checked every second (the embedded database shares the process: allow 20 s).
    const started = Date.now();
    while (open > 0 && Date.now() - started < 20_000) {
      await sleep(500);
      open = await held();
    }
    reportFigure(`unread pipelined connections: 20 held, ${open} left after ${Date.now() - started} ms`);
    expect(open).toBe(0);
    expect((await fetch(`${app.url}/health/live`)).status).toBe(200);
    for (const socket of sockets) socket.destroy();
  }, 30_000);
});
