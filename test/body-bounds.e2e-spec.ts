/**
 * Small requests that must not freeze the service: forms are parsed in
 * linear time and hold at most 1,000 fields, a compressed body inflates 50:1 at most past 128 KiB,
 * a CSV is bounded in rows and cells before it is parsed, a public form's POST counts against its
 * address's sign-in limit before its body is read, and a chunked body is held to 1 MiB.
 * How long such bodies hold the event loop is measured by `npm run bench:bodies`, not asserted here.
 */
import net from 'node:net';
import { gzipSync } from 'node:zlib';
import request from 'supertest';
import { DashboardClient, signedIn } from './support/dashboard-browser.js';
import { createClient, createClientWithToken } from './support/factories.js';
import { withTimeLeftInWindow } from './support/rate-window.js';
import { startTestApp, type TestApp } from './support/test-app.js';

let t: TestApp;
let token: string;
let clientId: string;
beforeAll(async () => {
  t = await startTestApp();
  ({ token, clientId } = await createClientWithToken(t));
}, 60_000);
afterAll(async () => {
  await t?.close();
});

const counts = async () =>
  (
    await t.pool.query(
      `SELECT (SELECT count(*) FROM declarations)::int AS declarations, (SELECT count(*) FROM sign_in_links)::int AS links`,
    )
  ).rows[0];

/** A raw HTTP/1.1 exchange: the request as given, the answer's status line and headers as they come (the body unread). */
function exchange(
  port: number,
  head: string,
  body: Buffer | string = '',
  options: { end?: boolean } = {},
): Promise<{ status: number; head: string }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ port, host: '127.0.0.1' }, () => {
      socket.write(head);
      socket.write(body);
      if (options.end) socket.end();
    });
    let received = '';
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('latin1');
      const end = received.indexOf('\r\n\r\n');
      if (end !== -1) {
        socket.destroy();
        resolve({ status: Number(received.slice(9, 12)), head: received.slice(0, end) });
      }
    });
    socket.on('error', reject);
    socket.on('close', () => resolve({ status: 0, head: received }));
  });
}

const portOf = (app: TestApp) => Number(new URL(app.url).port);

describe('forms', () => {
  it('127 bytes (30,000 × "a=&", gzip) to the public sign-in form: 413 before any parsing, not a 403 seconds later', async () => {
    const body = gzipSync(Buffer.from('a=&'.repeat(30_000)), { level: 9 });
    expect(body.length).toBeLessThan(200);
    const browser = new DashboardClient(t.url);
    await browser.get('/dashboard/sign-in');
    const res = await fetch(`${t.url}/dashboard/sign-in`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'content-encoding': 'gzip',
        cookie: `epr_csrf=${browser.cookies.get('epr_csrf')}`,
      },
      body,
      redirect: 'manual',
    });
    expect(res.status).toBe(413);
    // The page explains the problem type in the person's language (the API's English detail is not shown to people).
    expect(await res.text()).toContain('/problems/payload-too-large');
    // The service answers everyone else meanwhile.
    expect((await request(t.url).get('/health/live')).status).toBe(200);
  });

  it('a form of 1,001 fields is refused (413 page) and changes nothing; the dashboard’s own largest form is within the bound', async () => {
    const browser = await signedIn(t, clientId);
    const before = await counts();
    const fields: Record<string, string[]> = { stream: [], material: [], quantity_kg: [], quantity_uvc: [] };
    for (let i = 0; i < 251; i++) {
      fields.stream!.push('EMB');
      fields.material!.push(`m${i}`);
      fields.quantity_kg!.push('1');
      fields.quantity_uvc!.push('1');
    }
    const tooMany = await browser.post('/dashboard/declarations', { period: '2025-S1', ...fields, action: 'submit' });
    expect(tooMany.status).toBe(413);
    expect(tooMany.headers.get('content-type')).toContain('text/html');
    expect(await counts()).toEqual(before);
    // 100 rows of kg and UVC, 200 lines (the form's cap): 4 × 100 + period, action and the CSRF token.
    for (const name of Object.keys(fields)) fields[name] = fields[name]!.slice(0, 100);
    const largest = await browser.post('/dashboard/declarations', { period: '2025-S1', ...fields, action: 'submit' });
    // The check page, then the declaration: its form carries the 200 lines sealed in one field.
    expect(largest.status).toBe(200);
    expect((await browser.declare(largest, 'Claire Martin')).status).toBe(303);
    expect((await counts()).declarations).toBe(before.declarations + 1);
  });
});

describe('compressed bodies', () => {
  it('a gzip body inflating past 50:1 beyond 128 KiB is a 413, however small on the wire; one within the ratio is read', async () => {
    const post = (body: Buffer, gzip: boolean) =>
      fetch(`${t.url}/api/v1/declarations`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...(gzip ? { 'content-encoding': 'gzip' } : {}) },
        body,
      }).then(async (res) => ({ status: res.status, body: (await res.json()) as { detail: string } }));
    const spaces = Buffer.from(`{"period":"2025-S1",${' '.repeat(300 * 1024)}"lines":[]}`);
    const bomb = gzipSync(spaces);
    expect(bomb.length).toBeLessThan(1024);
    const res = await post(bomb, true);
    expect([res.status, res.body.detail]).toEqual([413, expect.stringContaining('inflates more than 50:1')]);
    // The same JSON, sent as is: read, and judged (no lines).
    expect((await post(spaces, false)).status).toBe(422);
    // Compressed below the floor: any ratio.
    expect((await post(gzipSync(Buffer.from(`{"period":"2025-S1",${' '.repeat(100 * 1024)}"lines":[]}`)), true)).status).toBe(422);
  });
});

describe('chunked bodies', () => {
  it('past 1 MiB with no Content-Length: 413, not 400 or 422', async () => {
    const head = `POST /api/v1/declarations HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: text/csv\r\nTransfer-Encoding: chunked\r\n\r\n`;
    const chunk = 'stream,material,unit,quantity\n'.repeat(1024);
    const chunks = Array.from({ length: 40 }, () => `${Buffer.byteLength(chunk).toString(16)}\r\n${chunk}\r\n`).join('');
    const answer = await exchange(portOf(t), head, `${chunks}0\r\n\r\n`);
    expect(answer.status).toBe(413);
    expect(answer.head.toLowerCase()).toContain('content-type: application/problem+json');
  });
});

describe('CSV: rows and cells bounded before parsing', () => {
  it('a header then 1,000,000 newlines to the API: gzipped (about 1 KB), 413 (past the inflate ratio); as is, 422 at row 2,002; nothing stored', async () => {
    const body = gzipSync(Buffer.from(`stream,material,unit,quantity\n${'\n'.repeat(1_000_000)}`), { level: 9 });
    const before = await counts();
    const res = await request(t.url)
      .post('/api/v1/declarations?period=2025-S1')
      .set('authorization', `Bearer ${token}`)
      .set('content-type', 'text/csv')
      .set('content-encoding', 'gzip')
      .send(body);
    // 1,000,031 bytes from ~1 KB: past the inflate ratio first.
    expect(res.status).toBe(413);
    const plain = await request(t.url)
      .post('/api/v1/declarations?period=2025-S1')
      .set('authorization', `Bearer ${token}`)
      .set('content-type', 'text/csv')
      .send(Buffer.from(`stream,material,unit,quantity\r\n${'\r\n'.repeat(500_000)}`));
    expect(plain.status).toBe(422);
    expect(plain.body.errors).toEqual([expect.objectContaining({ pointer: '/rows/2002', code: 'too_many_rows', row: 2002 })]);
    expect(await counts()).toEqual(before);
  });

  it('the same through the dashboard’s upload: the row named on the page (422), nothing stored', async () => {
    const browser = await signedIn(t, clientId);
    const before = await counts();
    const res = await browser.upload(
      '/dashboard/declarations/upload',
      { period: '2025-S1' },
      { name: 'blank.csv', content: `stream,material,unit,quantity\n${'\n'.repeat(1_000_000)}` },
    );
    expect(res.status).toBe(422);
    expect(res.html).toContain('Row 2002');
    expect(res.html).toContain('more than 2,001 rows');
    const header = await browser.upload(
      '/dashboard/declarations/upload',
      { period: '2025-S1' },
      { name: 'wide.csv', content: `stream,material,unit,quantity${','.repeat(500_000)}\n` },
    );
    expect(header.status).toBe(422);
    expect(header.html).toContain('more cells than');
    expect(await counts()).toEqual(before);
  });
});

describe('the sign-in limit, counted before a public form’s body is read', () => {
  let limited: TestApp;
  beforeAll(async () => {
    limited = await startTestApp({ env: { RATE_LIMIT_SIGN_IN_PER_MINUTE: '2' }, timeouts: { headersMs: 10_000, requestMs: 8_000 } });
  }, 60_000);
  afterAll(async () => {
    await limited?.close();
  });

  it('past the limit, a sign-in POST whose body has not arrived gets its 429 at once (and the connection is closed)', async () => {
    // The limit counts in minute windows on the clock: start with time left in one (these requests take seconds at most).
    await withTimeLeftInWindow(20_000);
    const { clientId: someone } = await createClient(limited);
    const port = portOf(limited);
    const head = (length: number) =>
      `POST /dashboard/sign-in/link HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${length}\r\n\r\n`;
    // Two complete requests use the minute's budget (refused for their missing CSRF token: 403).
    for (let i = 0; i < 2; i++) expect((await exchange(port, head(7), 'token=x')).status).toBe(403);
    // The third sends its headers and 10 of the 100 bytes it announces, and waits.
    const third = await exchange(port, head(100), 'token=eprl');
    expect(third.status).toBe(429);
    expect(third.head.toLowerCase()).toContain('connection: close');
    expect(third.head.toLowerCase()).toContain('retry-after: ');
    expect(
      (await limited.pool.query(`SELECT count(*)::int AS n FROM sign_in_links WHERE client_id = $1 AND used_at IS NOT NULL`, [someone]))
        .rows[0].n,
    ).toBe(0);
  });
});
