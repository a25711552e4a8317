import { readFile } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import request from 'supertest';
import { INDEX_DOCUMENT_FIELDS } from '../src/reference/reference-documents.js';
import { BUILT_REFERENCE_DIR } from '../src/reference/reference-store.js';
import { startTestApp, type TestApp } from './support/test-app.js';

const FILES = ['pricing.json', 'streams.json', 'law.json', 'obligations.json'];

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t?.close();
});

/** A GET with node:http, so that the body arrives as sent (no automatic decompression). */
function raw(
  pathname: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    http
      .get(`${t.url}${pathname}`, { headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
      })
      .on('error', reject);
  });
}

describe('the four reference files', () => {
  it.each(FILES)('%s is served byte-for-byte as built, with caching and CORS headers', async (name) => {
    const built = await readFile(path.join(BUILT_REFERENCE_DIR, name));
    const res = await raw(`/api/v1/${name}`, { 'accept-encoding': 'identity' });
    expect(res.status).toBe(200);
    expect(Buffer.compare(res.body, built)).toBe(0);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.headers['cache-control']).toBe('public, max-age=300, stale-while-revalidate=86400');
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.headers['access-control-expose-headers']).toContain('ETag');
    expect(res.headers.vary).toContain('Accept-Encoding');
    expect(res.headers.etag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
    expect(new Date(res.headers['last-modified']!).getTime()).not.toBeNaN();
    expect(res.headers['content-encoding']).toBeUndefined();
    const document = JSON.parse(built.toString('utf8'));
    expect(document).toEqual(expect.objectContaining({ licence: 'CC BY 4.0', updated: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/) }));
  });

  it('answers If-None-Match with 304 and no body, and a stale tag with 200', async () => {
    const first = await raw('/api/v1/streams.json');
    const etag = first.headers.etag as string;
    const again = await raw('/api/v1/streams.json', { 'if-none-match': etag });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
    expect(again.headers.etag).toBe(etag);
    expect((await raw('/api/v1/streams.json', { 'if-none-match': `W/${etag}` })).status).toBe(304);
    expect((await raw('/api/v1/streams.json', { 'if-none-match': '"stale", "other"' })).status).toBe(200);
  });

  it('answers If-None-Match: * with 304 (the file exists), and lets a stale If-None-Match win over a current If-Modified-Since (RFC 9110 §13.2.2)', async () => {
    expect((await raw('/api/v1/streams.json', { 'if-none-match': '*' })).status).toBe(304);
    const first = await raw('/api/v1/law.json');
    const both = await raw('/api/v1/law.json', { 'if-none-match': '"stale"', 'if-modified-since': first.headers['last-modified']! });
    expect(both.status).toBe(200);
  });

  it('answers If-Modified-Since when there is no If-None-Match', async () => {
    const first = await raw('/api/v1/law.json');
    expect((await raw('/api/v1/law.json', { 'if-modified-since': first.headers['last-modified']! })).status).toBe(304);
    expect((await raw('/api/v1/law.json', { 'if-modified-since': 'Mon, 01 Jan 2001 00:00:00 GMT' })).status).toBe(200);
  });

  it('serves the prebuilt gzip and brotli variants by Accept-Encoding', async () => {
    const built = await readFile(path.join(BUILT_REFERENCE_DIR, 'law.json'));
    const br = await raw('/api/v1/law.json', { 'accept-encoding': 'gzip, br' });
    expect(br.headers['content-encoding']).toBe('br');
    expect(Buffer.compare(brotliDecompressSync(br.body), built)).toBe(0);
    expect(Buffer.compare(br.body, await readFile(path.join(BUILT_REFERENCE_DIR, 'law.json.br')))).toBe(0);
    const gz = await raw('/api/v1/law.json', { 'accept-encoding': 'gzip' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(Buffer.compare(gunzipSync(gz.body), built)).toBe(0);
    const none = await raw('/api/v1/law.json', { 'accept-encoding': 'br;q=0, gzip;q=0' });
    expect(none.headers['content-encoding']).toBeUndefined();
    // Each encoding is its own representation, with its own strong ETag.
    expect(new Set([br.headers.etag, gz.headers.etag, none.headers.etag]).size).toBe(3);
  });

  it('answers HEAD with the headers and no body', async () => {
    const res = await request(t.url).head('/api/v1/pricing.json');
    expect(res.status).toBe(200);
    expect(res.headers.etag).toBeDefined();
    expect(Number(res.headers['content-length'])).toBeGreaterThan(0);
    expect(res.text ?? '').toBe('');
  });

  it('answers a CORS preflight for conditional requests', async () => {
    const res = await request(t.url)
      .options('/api/v1/streams.json')
      .set('origin', 'https://example.org')
      .set('access-control-request-method', 'GET')
      .set('access-control-request-headers', 'if-none-match');
    expect(res.status).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.headers['access-control-allow-headers']).toContain('If-None-Match');
  });

  it('keeps CORS off the authenticated API', async () => {
    const me = await request(t.url).get('/api/v1/me').set('origin', 'https://example.org');
    expect(me.headers['access-control-allow-origin']).toBeUndefined();
    const preflight = await request(t.url)
      .options('/api/v1/declarations')
      .set('origin', 'https://example.org')
      .set('access-control-request-method', 'POST');
    expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('carries the request id and security headers of every response, and is logged', async () => {
    const res = await request(t.url).get('/api/v1/streams.json?x=1').set('x-request-id', 'reference-1');
    expect(res.status).toBe(200);
    expect(res.headers['x-request-id']).toBe('reference-1');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['content-security-policy']).toContain("default-src 'self'");
    const line = t.logs.map((l) => JSON.parse(l)).find((l) => l.request_id === 'reference-1' && l.res);
    expect(line).toEqual(
      expect.objectContaining({ req: expect.objectContaining({ method: 'GET', url: '/api/v1/streams.json?x=1' }), res: { status: 200 } }),
    );
  });

  it('is served at its exact path only, as every route', async () => {
    for (const alias of [
      '/API/V1/STREAMS.JSON',
      '/api/v1/streams.json/',
      '/api/v1/Streams.json',
      '/api/v1/streams%2Ejson',
      '//api/v1/streams.json',
    ]) {
      const res = await request(t.url).get(alias);
      expect({ alias, status: res.status }).toEqual({ alias, status: 404 });
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    }
  });

  it('refuses writes with 405', async () => {
    const res = await request(t.url).post('/api/v1/streams.json').send({});
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('GET, HEAD, OPTIONS');
  });
});

describe('the declaration template', () => {
  it('is served as built, as a CSV file, with the caching, compression and CORS of the other public files', async () => {
    const built = await readFile(path.join(BUILT_REFERENCE_DIR, 'declaration-template.csv'));
    const res = await raw('/api/v1/declaration-template.csv', { 'accept-encoding': 'identity' });
    expect(res.status).toBe(200);
    expect(Buffer.compare(res.body, built)).toBe(0);
    // The examples are comments (`# EMB,…`), which an upload skips.
    expect(res.body.toString('utf8')).toMatch(/^\ufeffstream,material,unit,quantity\r\n"# [^\r\n]+"\r\n# EMB,[^,]+,kg,1250\r\n/);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect((await raw('/api/v1/declaration-template.csv', { 'if-none-match': res.headers.etag as string })).status).toBe(304);
    const gzipped = await raw('/api/v1/declaration-template.csv', { 'accept-encoding': 'gzip' });
    expect(gzipped.headers['content-encoding']).toBe('gzip');
    expect(Buffer.compare(gunzipSync(gzipped.body), built)).toBe(0);
  });
});

describe('index document', () => {
  it('has exactly the seed fields, at /api/v1/index.json and /api/v1', async () => {
    const res = await request(t.url).get('/api/v1/index.json');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual([...INDEX_DOCUMENT_FIELDS]);
    expect(res.body).toEqual(
      expect.objectContaining({
        version: 'v1',
        licence: 'CC BY 4.0',
        updated: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
        client_api: {
          base: t.config.clientBaseUrl,
          auth: expect.stringContaining('Bearer'),
          endpoints: [
            'GET /me',
            'GET /me/obligations',
            'GET /me/years/{year}',
            'GET /declarations',
            'GET /declarations/{id}',
            'GET /declarations/{id}.csv',
            'POST /declarations',
            'POST /products',
            'GET /products',
            'GET /products/{reference}',
            'POST /sales',
            'GET /periods/{period}/derived-declaration',
            'GET /periods/{period}/derived-declaration/contributions',
            'POST /periods/{period}/derived-declaration',
            'DELETE /test-data',
          ],
        },
        markdown: `${t.config.publicBaseUrl}/llms.txt`,
      }),
    );
    const root = await request(t.url).get('/api/v1');
    expect(root.body).toEqual(res.body);
  });

  it('every address in it resolves on the running service', async () => {
    const index = (await request(t.url).get('/api/v1/index.json')).body;
    const addresses: string[] = [...Object.values(index.endpoints as Record<string, string>), index.markdown];
    expect(Object.keys(index.endpoints)).toEqual(['pricing', 'streams', 'law', 'obligations', 'declaration_template']);
    for (const address of addresses) {
      expect(address.startsWith(t.config.publicBaseUrl)).toBe(true);
      const res = await request(t.url).get(new URL(address).pathname);
      expect(res.status).toBe(200);
    }
    // The client API base: a request without a token reaches the API (401), not a 404.
    const me = await request(t.url).get(`${new URL(index.client_api.base).pathname}/me`);
    expect(me.status).toBe(401);
  });
});

describe('llms.txt', () => {
  it('is Markdown with an H1, a summary blockquote, and links that resolve', async () => {
    const res = await request(t.url).get('/llms.txt');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/markdown; charset=utf-8');
    const text = res.text;
    expect(text).toMatch(/^# \S/);
    expect(text).toMatch(/\n> \S/);
    expect(text).toContain('CC BY 4.0');
    const links = [...text.matchAll(/\]\((https?:[^)\s]+)\)/g)].map((m) => m[1]!).filter((u) => u.startsWith(t.config.publicBaseUrl));
    for (const name of [...FILES, 'index.json', 'declaration-template.csv'])
      expect(links.some((l) => l.endsWith(`/api/v1/${name}`))).toBe(true);
    for (const link of links) {
      const target = await request(t.url).get(new URL(link).pathname);
      expect([200, 301, 302]).toContain(target.status);
    }
  });
});

describe('OpenAPI', () => {
  it('describes the reference routes with the JSON Schemas the build validates against', async () => {
    const doc = (await request(t.url).get('/docs/openapi.json')).body;
    const streamsSchema = JSON.parse(
      await readFile(path.join(BUILT_REFERENCE_DIR, '../../reference-data/schemas/streams.schema.json'), 'utf8'),
    );
    expect(doc.components.schemas.StreamsDocument).toEqual(streamsSchema);
    expect(doc.paths['/api/v1/streams.json'].get.responses['200'].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/StreamsDocument',
    });
  });
});
