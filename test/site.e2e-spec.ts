import { readFile } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import request from 'supertest';
import { brotli, ON_DEMAND_BROTLI_QUALITY } from '../src/common/http/compression.js';
import { BUILT_SITE_DIR, SITE_CONTENT_SECURITY_POLICY } from '../src/site/site-files.js';
import { SITE_PAGES } from '../src/site/site-pages.js';
import { startTestApp, type TestApp } from './support/test-app.js';

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
  method = 'GET',
  base = t.url,
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    http
      .request(`${base}${pathname}`, { headers, method }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
      })
      .on('error', reject)
      .end();
  });
}

describe('the public site', () => {
  it('serves the English home page at / (no more 404) and the French one at /fr/ and /fr', async () => {
    const en = await raw('/', { 'accept-encoding': 'identity' });
    expect(en.status).toBe(200);
    expect(en.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(en.body.toString('utf8')).toContain('<html lang="en">');
    for (const fr of ['/fr/', '/fr']) {
      const res = await raw(fr, { 'accept-encoding': 'identity' });
      expect(res.status).toBe(200);
      expect(res.body.toString('utf8')).toContain('<html lang="fr">');
    }
  });

  it('serves every page with a strict CSP (no inline script or style, nothing from another host)', async () => {
    for (const page of SITE_PAGES) {
      const res = await raw(page.path);
      expect({ path: page.path, status: res.status }).toEqual({ path: page.path, status: 200 });
      expect(res.headers['content-security-policy']).toBe(SITE_CONTENT_SECURITY_POLICY);
    }
    expect(SITE_CONTENT_SECURITY_POLICY).toMatch(/^default-src 'none';/);
    expect(SITE_CONTENT_SECURITY_POLICY).not.toMatch(/unsafe|https?:|\*/);
    const css = await raw('/assets/site.css');
    expect(css.status).toBe(200);
    expect(css.headers['content-type']).toBe('text/css; charset=utf-8');
  });

  it('serves prebuilt gzip and brotli bytes, with an ETag per encoding, 304 and Cache-Control', async () => {
    const identity = await raw('/streams', { 'accept-encoding': 'identity' });
    const br = await raw('/streams', { 'accept-encoding': 'gzip, br' });
    const gz = await raw('/streams', { 'accept-encoding': 'gzip' });
    expect(br.headers['content-encoding']).toBe('br');
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(brotliDecompressSync(br.body).equals(identity.body)).toBe(true);
    expect(gunzipSync(gz.body).equals(identity.body)).toBe(true);
    // Under other addresses than the build's, compressed on this first request, at the quality a waiting request affords.
    expect(br.body.equals(brotli(identity.body, ON_DEMAND_BROTLI_QUALITY))).toBe(true);
    expect(new Set([identity.headers.etag, br.headers.etag, gz.headers.etag]).size).toBe(3);
    expect(identity.headers['cache-control']).toBe('public, max-age=300, stale-while-revalidate=86400');
    expect(identity.headers.vary).toBe('Accept-Encoding');
    expect(identity.headers['last-modified']).toBeDefined();

    const again = await raw('/streams', { 'accept-encoding': 'gzip, br', 'if-none-match': br.headers.etag! });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
    const head = await raw('/streams', { 'accept-encoding': 'identity' }, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.headers['content-length']).toBe(String(identity.body.length));
  });

  it('serves the bytes the build wrote to dist/site/ (and its brotli variant) when it runs under the same addresses', async () => {
    // npm run build renders with the default configuration: PUBLIC_BASE_URL http://localhost:3000.
    const built = await startTestApp({ env: { PUBLIC_BASE_URL: 'http://localhost:3000' } });
    try {
      for (const page of SITE_PAGES.filter((p) => p.kind !== 'problem')) {
        const res = await raw(page.path, { 'accept-encoding': 'br' }, 'GET', built.url);
        expect(res.status).toBe(200);
        expect(res.headers['content-encoding']).toBe('br');
        expect(res.body.equals(await readFile(path.join(BUILT_SITE_DIR, `${page.file}.br`)))).toBe(true);
      }
    } finally {
      await built.close();
    }
  });

  it('answers the type URL of an error with the page that explains it', async () => {
    for (const res of [await request(t.url).get('/no-such-page'), await request(t.url).get('/api/v1/me')]) {
      expect(res.status).toBeGreaterThanOrEqual(400);
      const type = new URL(res.body.type as string);
      expect(type.origin).toBe(t.config.publicBaseUrl);
      const page = await raw(type.pathname);
      expect(page.status).toBe(200);
      expect(page.body.toString('utf8')).toContain(`<code>${res.body.code as string}</code>`);
    }
  });

  it('leaves other methods and unknown paths to the router: a problem, not a page', async () => {
    const post = await request(t.url).post('/pricing').send({});
    expect(post.status).toBe(404);
    expect(post.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect((await request(t.url).get('/pricing.html')).status).toBe(404);
    expect((await request(t.url).get('/Pricing')).status).toBe(404);
  });

  it("publishes sitemap.xml and robots.txt with this instance's address, and llms.txt lists the pages", async () => {
    const sitemap = await raw('/sitemap.xml', { 'accept-encoding': 'identity' });
    expect(sitemap.headers['content-type']).toBe('application/xml; charset=utf-8');
    expect(sitemap.body.toString('utf8')).toContain(`<loc>${t.config.publicBaseUrl}/fr/pricing</loc>`);
    const robots = (await raw('/robots.txt', { 'accept-encoding': 'identity' })).body.toString('utf8');
    expect(robots).toContain(`Sitemap: ${t.config.publicBaseUrl}/sitemap.xml`);
    const llms = (await request(t.url).get('/llms.txt')).text;
    for (const p of ['/', '/pricing', '/streams', '/law', '/obligations', '/developers', '/problems', '/fr/']) {
      expect(llms).toContain(`](${t.config.publicBaseUrl}${p})`);
    }
  });

  it('answers a browser that mistypes an address with a page in the language of the path, with links back; API clients keep problem+json', async () => {
    const browser = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', 'accept-encoding': 'identity' };
    for (const [path, lang, home] of [
      ['/fr/nimportequoi', 'fr', '/fr/'],
      ['/no-such-page', 'en', '/'],
      ['/fr/streams/extra', 'fr', '/fr/'],
    ] as const) {
      const res = await raw(path, browser);
      expect({ path, status: res.status }).toEqual({ path, status: 404 });
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.headers['content-security-policy']).toBe(SITE_CONTENT_SECURITY_POLICY);
      expect(res.headers['cache-control']).toBe('no-store');
      const html = res.body.toString('utf8');
      expect(html).toContain(`<html lang="${lang}">`);
      expect(html).toContain(lang === 'fr' ? 'Page introuvable' : 'Page not found');
      expect(html).toContain(`href="${home}"`);
      expect(html).toContain(`href="/dashboard/sign-in?lang=${lang}"`);
      expect(html).toContain('<meta name="robots" content="noindex">');
    }
    const head = await raw('/fr/nimportequoi', browser, 'HEAD');
    expect(head.status).toBe(404);
    expect(head.body.length).toBe(0);
    // An API client, or any client on an API path, gets the problem as before.
    for (const [path, headers] of [
      ['/fr/nimportequoi', {}],
      ['/fr/nimportequoi', { accept: 'application/json' }],
      ['/no-such-page', { accept: 'text/html;q=0, application/json' }],
      ['/api/v1/nothing', browser],
    ] as const) {
      const res = await raw(path, headers);
      expect({ path, status: res.status, type: res.headers['content-type'] }).toEqual({
        path,
        status: 404,
        type: 'application/problem+json; charset=utf-8',
      });
    }
    // Other methods are not pages either.
    expect((await request(t.url).post('/fr/nimportequoi').set('accept', 'text/html').send({})).headers['content-type']).toMatch(
      /^application\/problem\+json/,
    );
  });

  it('sends /fr/dashboard to the dashboard in French', async () => {
    for (const path of ['/fr/dashboard', '/fr/dashboard/', '/fr/dashboard/declarations']) {
      const res = await raw(path, { accept: 'text/html' });
      expect({ path, status: res.status, location: res.headers.location }).toEqual({
        path,
        status: 303,
        location: '/dashboard/sign-in?lang=fr',
      });
    }
  });

  it('shows the configured contact address on the pages and in index.json, and no placeholder when none is configured', async () => {
    // This instance has no CONTACT_EMAIL: nothing to write to is invented.
    const index = (await request(t.url).get('/api/v1/index.json')).body as { contact: string | null };
    expect(index.contact).toBeNull();
    const none = (await raw('/fr/getting-started', { 'accept-encoding': 'identity' })).body.toString('utf8');
    expect(none).toContain('pas encore indiqué d’adresse de contact');
    expect(none).not.toMatch(/mailto:|\.example\b(?!\.)/);

    const configured = await startTestApp({ env: { CONTACT_EMAIL: 'bonjour@exemple.fr' } });
    try {
      expect(((await request(configured.url).get('/api/v1/index.json')).body as { contact: string }).contact).toBe('bonjour@exemple.fr');
      expect((await request(configured.url).get('/llms.txt')).text).toContain('- Contact: bonjour@exemple.fr');
      for (const path of ['/getting-started', '/fr/getting-started', '/fr/', '/pricing']) {
        const html = (await raw(path, { 'accept-encoding': 'identity' }, 'GET', configured.url)).body.toString('utf8');
        expect({
          path,
          mail: html.includes('<a href="mailto:bonjour@exemple.fr" data-fact="index.json#/contact">bonjour@exemple.fr</a>'),
        }).toEqual({ path, mail: true });
      }
    } finally {
      await configured.close();
    }
  });

  it('links every page to the dashboard sign-in and to the same page in the other language', async () => {
    for (const page of SITE_PAGES) {
      const html = (await raw(page.path, { 'accept-encoding': 'identity' })).body.toString('utf8');
      expect(html).toContain(`href="/dashboard/sign-in?lang=${page.lang}"`);
      for (const other of page.alternates) expect(html).toContain(`<a class="lang-switch" href="${other.path}" hreflang="${other.lang}"`);
    }
  });
});
