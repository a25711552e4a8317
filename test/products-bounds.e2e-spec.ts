/**
 * A product catalogue has bounds (src/products/product-rules.ts: 10,000 products per client and
 * mode, 20 versions per product, 20 elements per version), refused on every write path with a
 * problem that states them; and a catalogue at those bounds is previewed, paged and read back by
 * the operator without taking the service down: memory flat, `/health/live` answering, on the
 * PostgreSQL server and on the embedded database (which runs in the service's own process).
 */
import { rm } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { loadavg } from 'node:os';
import pg from 'pg';
import request from 'supertest';
import { MAX_CATALOGUE_PRODUCTS, MAX_ELEMENTS, MAX_VERSIONS_PER_PRODUCT } from '../src/products/product-rules.js';
import { HEAVY_READS_PER_PROCESS } from '../src/rate-limit/heavy-reads.js';
import { signedIn } from './support/dashboard-browser.js';
import { createClientWithToken } from './support/factories.js';
import { reportFigure, spawnApp, type SpawnedApp } from './support/spawned-app.js';
import {
  ADMIN_TOKEN,
  createTestDatabase,
  migratedEmbeddedDataDir,
  SERVER_DATABASE_URL,
  startTestApp,
  type TestApp,
  type TestDatabase,
} from './support/test-app.js';

const PROBLEM = /^application\/problem\+json; charset=utf-8$/;
const MATERIALS = ['glass', 'paper_cardboard', 'aluminium', 'steel', 'plastic_pet_tray'];

/**
 * `count` products of MAX_ELEMENTS elements each (element e: MATERIALS[e % 5], 10.125 + e grams),
 * one version valid from 2025-S1, and sales in 2026-S1 of n units for product n, written by SQL:
 * the API refuses a bigger catalogue, and loading this one through it would take minutes.
 */
async function fillCatalogue(pool: pg.Pool, clientId: string, count: number, first = 1): Promise<void> {
  const last = first + count - 1;
  await pool.query(
    `INSERT INTO products (id, client_id, mode, reference)
     SELECT md5($1 || '/p/' || n)::uuid, $1, 'live', 'REF-' || lpad(n::text, 6, '0') FROM generate_series($2::int, $3::int) AS n`,
    [clientId, first, last],
  );
  await pool.query(
    `INSERT INTO product_versions (id, product_id, valid_from, name, stream, gtin, content_hash)
     SELECT md5($1 || '/v/' || n)::uuid, md5($1 || '/p/' || n)::uuid, '2025-S1', 'Produit numéro ' || n, 'EMB', NULL, md5('x' || n)
       FROM generate_series($2::int, $3::int) AS n`,
    [clientId, first, last],
  );
  await pool.query(
    `INSERT INTO product_elements (version_id, position, material_code, weight_g, per_unit)
     SELECT md5($1 || '/v/' || n)::uuid, e, ($4::text[])[e % 5 + 1], 10.125 + e, 1
       FROM generate_series($2::int, $3::int) AS n, generate_series(0, $5::int - 1) AS e`,
    [clientId, first, last, MATERIALS, MAX_ELEMENTS],
  );
  await pool.query(
    `INSERT INTO product_sales (product_id, period, units) SELECT md5($1 || '/p/' || n)::uuid, '2026-S1', n FROM generate_series($2::int, $3::int) AS n`,
    [clientId, first, last],
  );
}

const product = (reference: string, validFrom = '2026-S1', elements = 1) => ({
  reference,
  name: `Produit ${reference}`,
  stream: 'EMB',
  valid_from: validFrom,
  elements: Array.from({ length: elements }, () => ({ material: 'glass', weight_g: 410.5 })),
});

describe('the bounds of a catalogue', () => {
  let t: TestApp;
  let token: string;
  let clientId: string;
  beforeAll(async () => {
    t = await startTestApp();
    ({ clientId, token } = await createClientWithToken(t, { streams: ['EMB'] }));
  }, 300_000);
  afterAll(async () => {
    await t?.close();
  });

  const post = (body: unknown, as = token) =>
    request(t.url)
      .post('/api/v1/products')
      .set('authorization', `Bearer ${as}`)
      .set('content-type', 'application/json')
      .send(JSON.stringify(body));
  const postCsv = (csv: string) =>
    request(t.url).post('/api/v1/products').set('authorization', `Bearer ${token}`).set('content-type', 'text/csv').send(Buffer.from(csv));
  const productCount = async () =>
    (await t.pool.query(`SELECT count(*)::int AS n FROM products WHERE client_id = $1 AND mode = 'live'`, [clientId])).rows[0].n as number;

  it(`refuses the product after ${MAX_CATALOGUE_PRODUCTS} (JSON, CSV, dashboard) with catalogue_full, stating the bound; a new version of a product already there is no new product`, async () => {
    await fillCatalogue(t.pool, clientId, MAX_CATALOGUE_PRODUCTS - 1);

    const over = await post({ products: [product('NEW-1'), product('NEW-2')] });
    expect(over.status).toBe(422);
    expect(over.headers['content-type']).toMatch(PROBLEM);
    expect(over.body.errors).toEqual([expect.objectContaining({ pointer: '/products', code: 'catalogue_full' })]);
    expect(over.body.errors[0].detail).toBe(
      'a catalogue holds at most 10000 products (live data); yours holds 9999 and this request adds 2: declare per material with POST /api/v1/declarations beyond that',
    );
    expect(await productCount()).toBe(MAX_CATALOGUE_PRODUCTS - 1);

    const csv = await postCsv(
      'reference,name,stream,valid_from,material,weight_g\r\nNEW-1,Un,EMB,2026-S1,glass,10\r\nNEW-2,Deux,EMB,2026-S1,glass,10\r\n',
    );
    expect(csv.status).toBe(422);
    expect(csv.body.errors.map((e: { pointer: string; code: string }) => [e.pointer, e.code])).toEqual([['/rows', 'catalogue_full']]);

    const browser = await signedIn(t, clientId, 'fr');
    const page = await browser.upload(
      '/dashboard/products/upload',
      {},
      {
        name: 'catalogue.csv',
        content:
          'reference,name,stream,valid_from,material,weight_g\r\nNEW-1,Un,EMB,2026-S1,glass,10\r\nNEW-2,Deux,EMB,2026-S1,glass,10\r\n',
      },
    );
    expect(page.status).toBe(422);
    expect(page.html).toContain('Un catalogue compte au plus 10\u202f000 produits');
    expect(await productCount()).toBe(MAX_CATALOGUE_PRODUCTS - 1);

    // Up to the bound, and a new version of a product already in the catalogue, are accepted.
    expect((await post({ products: [product('NEW-1'), product('REF-000001', '2026-S2')] })).status).toBe(201);
    expect(await productCount()).toBe(MAX_CATALOGUE_PRODUCTS);
    const full = await post({ products: [product('NEW-2')] });
    expect(full.body.errors?.[0]).toMatchObject({
      code: 'catalogue_full',
      detail: expect.stringContaining('yours holds 10000 and this request adds 1'),
    });
    expect((await post({ products: [product('REF-000002', '2026-S2')] })).status).toBe(201);
  }, 180_000);

  it(`refuses version ${MAX_VERSIONS_PER_PRODUCT + 1} of a product (too_many_versions) and element ${MAX_ELEMENTS + 1} of a version (too_many_elements)`, async () => {
    const { token: other } = await createClientWithToken(t, { streams: ['EMB'] });
    const halfYears = Array.from({ length: MAX_VERSIONS_PER_PRODUCT + 1 }, (_, i) => `${2025 + Math.floor(i / 2)}-S${(i % 2) + 1}`);
    expect((await post({ products: halfYears.slice(0, 19).map((h) => product('V-1', h)) }, other)).status).toBe(201);
    const over = await post({ products: [product('V-1', halfYears[19]), product('V-1', halfYears[20])] }, other);
    expect(over.status).toBe(422);
    expect(over.body.errors).toEqual([expect.objectContaining({ pointer: '/products/1/valid_from', code: 'too_many_versions' })]);
    expect(over.body.errors[0].detail).toContain('at most 20 versions');
    expect((await post({ products: [product('V-1', halfYears[19])] }, other)).status).toBe(201);
    // Replacing one of its 20 versions is no new version.
    expect((await post({ products: [product('V-1', halfYears[0], 2)] }, other)).status).toBe(201);

    const elements = await post({ products: [product('E-1', '2026-S1', MAX_ELEMENTS + 1)] }, other);
    expect(elements.status).toBe(422);
    expect(elements.body.errors).toEqual([
      expect.objectContaining({
        pointer: '/products/0/elements',
        code: 'too_many_elements',
        detail: 'a product has at most 20 packaging elements, not 21',
      }),
    ]);
  }, 180_000);

  it('pages the products list by products and by versions: at most 200 versions a page, whatever `limit`', async () => {
    const many = await createClientWithToken(t, { streams: ['EMB'] });
    await fillCatalogue(t.pool, many.clientId, 15);
    // 19 more versions each: 15 products of 20 versions of 20 elements.
    await t.pool.query(
      `INSERT INTO product_versions (id, product_id, valid_from, name, stream, gtin, content_hash)
       SELECT md5($1 || '/v/' || n || '/' || h)::uuid, md5($1 || '/p/' || n)::uuid, (2025 + h / 2) || '-S' || (h % 2 + 1), 'Produit ' || n, 'EMB', NULL, 'x'
         FROM generate_series(1, 15) AS n, generate_series(1, 19) AS h`,
      [many.clientId],
    );
    await t.pool.query(
      `INSERT INTO product_elements (version_id, position, material_code, weight_g, per_unit)
       SELECT v.id, e, 'glass', 10, 1 FROM product_versions v JOIN products p ON p.id = v.product_id, generate_series(0, 19) AS e
        WHERE p.client_id = $1 AND v.valid_from <> '2025-S1'`,
      [many.clientId],
    );
    const list = (cursor?: string) =>
      request(t.url)
        .get(`/api/v1/products?limit=100${cursor ? `&cursor=${cursor}` : ''}`)
        .set('authorization', `Bearer ${many.token}`);
    const first = await list();
    expect(first.status).toBe(200);
    expect(first.body.data).toHaveLength(10);
    expect(first.body.data.every((p: { versions: unknown[] }) => p.versions.length === 20)).toBe(true);
    expect(first.body.has_more).toBe(true);
    const second = await list(first.body.next_cursor);
    expect(second.body.data.map((p: { reference: string }) => p.reference)).toEqual(
      Array.from({ length: 5 }, (_, i) => `REF-0000${String(11 + i)}`),
    );
    expect(second.body).toMatchObject({ has_more: false, next_cursor: null });
  }, 180_000);

  it('lists the contributions in the preview up to 1,000 products, and pages them at any size with the same figures', async () => {
    const small = await createClientWithToken(t, { streams: ['EMB'] });
    await fillCatalogue(t.pool, small.clientId, 3);
    const preview = await request(t.url).get('/api/v1/periods/2026-S1/derived-declaration').set('authorization', `Bearer ${small.token}`);
    expect(preview.status).toBe(200);
    expect(preview.body).toMatchObject({ products: 3, contributions_included: true });
    const embedded = (
      preview.body.lines as { material: string; contributions: { reference: string; units: string; elements: string; kg: string }[] }[]
    )
      .flatMap((line) => line.contributions.map((c) => ({ ...c, material: line.material })))
      .map(({ reference, material, units, elements, kg }) => [reference, material, units, elements, kg].join(' '))
      .sort();
    expect(embedded).toHaveLength(15);

    const paged: string[] = [];
    let cursor: string | null = null;
    do {
      const res: request.Response = await request(t.url)
        .get(`/api/v1/periods/2026-S1/derived-declaration/contributions?limit=2${cursor ? `&cursor=${cursor}` : ''}`)
        .set('authorization', `Bearer ${small.token}`);
      expect(res.status).toBe(200);
      expect(res.body.data.length).toBeLessThanOrEqual(2);
      for (const p of res.body.data as {
        reference: string;
        units: string;
        materials: { material: string; elements: string; kg: string }[];
      }[])
        for (const m of p.materials) paged.push([p.reference, m.material, p.units, m.elements, m.kg].join(' '));
      cursor = res.body.next_cursor;
    } while (cursor);
    expect(paged.sort()).toEqual(embedded);

    const big = await createClientWithToken(t, { streams: ['EMB'] });
    await fillCatalogue(t.pool, big.clientId, 1001);
    const beyond = await request(t.url).get('/api/v1/periods/2026-S1/derived-declaration').set('authorization', `Bearer ${big.token}`);
    expect(beyond.body).toMatchObject({ products: 1001, contributions_included: false });
    expect((beyond.body.lines as { contributions: unknown[] }[]).every((line) => line.contributions.length === 0)).toBe(true);
    const page = await (await signedIn(t, big.clientId, 'fr')).get('/dashboard/products/derived?period=2026-S1');
    expect(page.status).toBe(200);
    expect(page.html).toContain(
      '1\u202f001 produits composent ces lignes\u00a0: au-delà de 1\u202f000, cette page n’affiche que les totaux.',
    );
  }, 180_000);
});

/** Resident memory of a process, in MB (NaN once it is gone). */
const rssMb = (pid: number) => {
  try {
    return Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;
  } catch {
    return Number.NaN;
  }
};

/**
 * While `work` runs: the service's peak RSS (sampled every 25 ms) and the answer times of
 * `/health/live` asked one after the other.
 */
async function watch<T>(app: SpawnedApp, work: () => Promise<T>): Promise<{ result: T; peakMb: number; live: number[] }> {
  let peakMb = rssMb(app.process.pid!);
  const sampler = setInterval(() => (peakMb = Math.max(peakMb, rssMb(app.process.pid!) || 0)), 25);
  const live: number[] = [];
  let done = false;
  const prober = (async () => {
    while (!done) {
      const started = performance.now();
      const res = await fetch(`${app.url}/health/live`);
      await res.arrayBuffer();
      live.push(performance.now() - started);
      if (res.status !== 200) throw new Error(`/health/live answered ${res.status}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  })();
  try {
    const result = await work();
    return { result, peakMb, live };
  } finally {
    done = true;
    clearInterval(sampler);
    await prober;
  }
}

const percentile = (values: number[], p: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))]!;

/**
 * What the service may do while the heavy reads run, on a 2-core machine that other jobs share.
 * Measured at the catalogue's bounds (10,000 products × 20 elements) on such a machine at a load
 * average of 11 to 14 (every wall-clock figure stretched several times), over four runs:
 * - PostgreSQL server, two previews at once: RSS +1 MB; `/health/live` 95th percentile 7–13 ms, worst 28–53 ms.
 *   The operator's derivation (31 MB streamed): RSS +11 to +17 MB; `/health/live` 95th percentile
 *   63–163 ms, worst 246–482 ms (this test's own process, receiving the 31 MB, shares the cores).
 * - embedded database (its work in the service's process, 100 products a chunk), two previews at
 *   once: RSS +1 MB; `/health/live` 95th percentile 60–124 ms, worst 129–185 ms.
 * - embedded database, the period export with `detail=products` (36.3 MB, 100 products a statement),
 *   at a load average of 5 to 7 over three runs: RSS +12 to +27 MB; `/health/live` 95th percentile
 *   56–77 ms, worst 351–485 ms. Read through one cursor sorting the whole catalogue, as before: worst 983 ms
 *   (95th percentile 58 ms) in one run at a load average of 4.7, within the bounds below though.
 * - PostgreSQL server, eleven operators asking for that export at once: four run, seven get 503; without
 *   the process's bound ten run, one gets 503 and another client's `GET /api/v1/declarations` a 503 too.
 * Before the bounds and the chunks, one preview of 30,000 × 15 took the service from 282 to 528 MB
 * and held `/health/live` for 2.75 s, two at once killed it; on the embedded database 10,000 × 15
 * froze it for 5.3 s. The bounds below leave a margin for a busier machine and stay far below that.
 * (A chunk is a few milliseconds of the service's time; no quiet machine was at hand to show the
 * figures without the load.)
 */
const MAX_RSS_GROWTH_MB = 48;
/**
 * `/health/live` while the heavy reads run, on either database. A busy machine stretches the chunks: 355 ms
 * at the 95th percentile on the embedded database, and 281 ms on a server, were seen in full test runs beside
 * other jobs. The bounds still fail a return to work in one piece (the 5.3 s freeze above).
 */
const MAX_LIVE_MS = { p95: 1_000, worst: 2_500 };

/** The preview's lines at the bounds: material m (elements m, m+5, m+10, m+15 of 10.125 + e g) over Σ n = 50,005,000 units. */
const expectedKg = (m: number) => (50_005 * (70.5 + 4 * m)).toString();

describe.each([
  ['the PostgreSQL server', true],
  ['the embedded database', false],
] as const)('a catalogue at its bounds, on %s', (_name, onServer) => {
  const enabled = onServer ? SERVER_DATABASE_URL !== undefined : true;
  let app: SpawnedApp;
  let pool: pg.Pool;
  let server: TestDatabase | undefined;
  let dataDir: string | undefined;
  let token: string;
  let clientId: string;

  beforeAll(async () => {
    if (!enabled) return;
    // The production heap limit, and a small young generation so that RSS follows live memory.
    const node = { NODE_OPTIONS: '--max-old-space-size=384 --max-semi-space-size=1' };
    if (onServer) {
      server = await createTestDatabase();
      app = await spawnApp({ DATABASE_URL: server.url!, ...node });
      pool = server.pool;
    } else {
      dataDir = await migratedEmbeddedDataDir();
      app = await spawnApp({ DATA_DIR: dataDir, ...node });
      pool = new pg.Pool({ host: dataDir, port: 5432, user: 'postgres', database: 'postgres', max: 1 });
    }
    ({ clientId, token } = await createClientWithToken({ url: app.url } as TestApp, { streams: ['EMB'] }));
    await fillCatalogue(pool, clientId, MAX_CATALOGUE_PRODUCTS);
  }, 300_000);
  afterAll(async () => {
    if (!onServer) await pool?.end();
    await app?.stop();
    await server?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  const get = (pathname: string, as = `Bearer ${token}`) => fetch(`${app.url}${pathname}`, { headers: { authorization: as } });

  (enabled ? it : it.skip)(
    'previews it twice at once with the right totals, the process alive, memory flat and /health/live answering; pages its contributions; a third heavy read waits its turn',
    async () => {
      // Warm up, then the baseline.
      for (let i = 0; i < 2; i++) expect((await get('/api/v1/periods/2025-S1/derived-declaration')).status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 200));
      const baselineMb = rssMb(app.process.pid!);

      const previews = await watch(app, () =>
        Promise.all(
          [0, 1].map(async () => {
            const res = await get('/api/v1/periods/2026-S1/derived-declaration');
            return { status: res.status, body: (await res.json()) as Record<string, unknown> & { lines: Record<string, unknown>[] } };
          }),
        ),
      );
      expect(app.process.exitCode).toBeNull();
      for (const { status, body } of previews.result) {
        expect(status).toBe(200);
        expect(body.products).toBe(MAX_CATALOGUE_PRODUCTS);
        expect(body.contributions_included).toBe(false);
        expect(body.lines.map((l) => [l.material, l.kg_exact, l.uvc, (l.contributions as unknown[]).length])).toEqual(
          [...MATERIALS.entries()]
            .map(([m, material]) => [material, expectedKg(m), 50_005_000, 0])
            .sort((a, b) => String(a[0]).localeCompare(String(b[0]), 'en')),
        );
      }

      const page = await get('/api/v1/periods/2026-S1/derived-declaration/contributions?limit=100');
      expect(page.status).toBe(200);
      const body = (await page.json()) as {
        data: { reference: string; units: string; materials: { material: string; kg: string }[] }[];
        next_cursor: string;
      };
      expect(body.data).toHaveLength(100);
      expect(body.data[0]).toMatchObject({ reference: 'REF-000001', units: '1' });
      expect(body.data[0]!.materials.find((m) => m.material === 'glass')!.kg).toBe('0.0705');
      const next = (await (
        await get(`/api/v1/periods/2026-S1/derived-declaration/contributions?limit=100&cursor=${body.next_cursor}`)
      ).json()) as typeof body;
      expect(next.data[0]!.reference).toBe('REF-000101');

      // Four at once: two run, the others are told to come back.
      const crowd = await Promise.all(
        [0, 1, 2, 3].map(async () => {
          const res = await get('/api/v1/periods/2026-S1/derived-declaration');
          return { status: res.status, retryAfter: res.headers.get('retry-after'), body: (await res.json()) as { code?: string } };
        }),
      );
      const statuses = crowd.map((res) => res.status).sort();
      expect(statuses.filter((s) => s === 200).length).toBeGreaterThanOrEqual(2);
      expect(statuses.filter((s) => s !== 200).every((s) => s === 429)).toBe(true);
      expect(statuses).toContain(429);
      const refused = crowd.find((res) => res.status === 429)!;
      expect(refused.retryAfter).toBe('2');
      expect(refused.body.code).toBe('rate_limited');

      const growthMb = previews.peakMb - baselineMb;
      reportFigure(
        `${onServer ? 'server' : 'embedded'} (load average ${loadavg()[0]!.toFixed(1)}): two previews of ${MAX_CATALOGUE_PRODUCTS} × ${MAX_ELEMENTS}: RSS ${baselineMb.toFixed(0)} MB +${growthMb.toFixed(0)} MB; ` +
          `/health/live ${previews.live.length} answers, 95th percentile ${percentile(previews.live, 0.95).toFixed(0)} ms, worst ${Math.max(...previews.live).toFixed(0)} ms`,
      );
      expect(growthMb).toBeLessThan(MAX_RSS_GROWTH_MB);
      expect(percentile(previews.live, 0.95)).toBeLessThan(MAX_LIVE_MS.p95);
      expect(Math.max(...previews.live)).toBeLessThan(MAX_LIVE_MS.worst);
    },
    300_000,
  );

  // On the embedded database only (on the server the database's work is another process's): the declaration is
  // recorded as derived by SQL, as a filing records it, since filing 10,000 products there is slow on a busy machine.
  (enabled && !onServer ? it : it.skip)(
    'exports the period with its per-product detail, read in chunks: memory flat, /health/live answering',
    async () => {
      const filed = await fetch(`${app.url}/api/v1/declarations`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ period: '2026-S1', lines: [{ stream: 'EMB', material: 'glass', unit: 'uvc', quantity: 1 }] }),
      });
      expect(filed.status).toBe(201);
      const { id } = (await filed.json()) as { id: string };
      await pool.query(`INSERT INTO declaration_derivations (declaration_id, client_id, period, products) VALUES ($1, $2, '2026-S1', $3)`, [
        id,
        clientId,
        MAX_CATALOGUE_PRODUCTS,
      ]);
      await pool.query(
        `INSERT INTO declaration_derivation_contributions (declaration_id, version_id, stream, material_code, units, elements, kg)
         SELECT $1, v.id, v.stream, e.material_code, s.units, sum(s.units * e.per_unit), sum(s.units * e.per_unit * e.weight_g) / 1000
           FROM products p JOIN product_versions v ON v.product_id = p.id JOIN product_elements e ON e.version_id = v.id
           JOIN product_sales s ON s.product_id = p.id AND s.period = '2026-S1'
          WHERE p.client_id = $2 GROUP BY v.id, v.stream, e.material_code, s.units`,
        [id, clientId],
      );

      await new Promise((resolve) => setTimeout(resolve, 200));
      const baselineMb = rssMb(app.process.pid!);
      const read = await watch(
        app,
        () =>
          new Promise<{ status: number; bytes: Buffer }>((resolve, reject) => {
            http
              .get(
                `${app.url}/api/v1/admin/periods/2026-S1/export?detail=products`,
                { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } },
                (res) => {
                  const chunks: Buffer[] = [];
                  res.on('data', (chunk: Buffer) => chunks.push(chunk));
                  res.on('end', () => resolve({ status: res.statusCode!, bytes: Buffer.concat(chunks) }));
                  res.on('error', reject);
                },
              )
              .on('error', reject);
          }),
      );
      expect(read.result.status).toBe(200);
      const exported = JSON.parse(read.result.bytes.toString('utf8')) as {
        declarations: { declaration_id: string; products: { reference: string; units: string; elements: { kg: string }[] }[] }[];
      };
      const declaration = exported.declarations.find((d) => d.declaration_id === id)!;
      expect(declaration.products).toHaveLength(MAX_CATALOGUE_PRODUCTS);
      expect(declaration.products[0]).toMatchObject({ reference: 'REF-000001', units: '1' });
      expect(declaration.products[0]!.elements[0]!.kg).toBe('0.010125');
      expect(declaration.products.at(-1)).toMatchObject({ reference: 'REF-010000', units: '10000' });
      expect(
        declaration.products.every((p, i) => p.reference === `REF-${String(i + 1).padStart(6, '0')}` && p.elements.length === MAX_ELEMENTS),
      ).toBe(true);
      const growthMb = read.peakMb - baselineMb;
      reportFigure(
        `embedded (load average ${loadavg()[0]!.toFixed(1)}): the period export with detail=products of ${MAX_CATALOGUE_PRODUCTS} × ${MAX_ELEMENTS} (${(read.result.bytes.length / 2 ** 20).toFixed(1)} MB): ` +
          `RSS +${growthMb.toFixed(0)} MB; /health/live ${read.live.length} answers, 95th percentile ${percentile(read.live, 0.95).toFixed(0)} ms, worst ${Math.max(...read.live).toFixed(0)} ms`,
      );
      expect(growthMb).toBeLessThan(MAX_RSS_GROWTH_MB);
      expect(percentile(read.live, 0.95)).toBeLessThan(MAX_LIVE_MS.p95);
      expect(Math.max(...read.live)).toBeLessThan(MAX_LIVE_MS.worst);
    },
    300_000,
  );

  // On the server only: filing 10,000 products on the embedded database is slow on a busy machine, and the reads are the same.
  (enabled && onServer ? it : it.skip)(
    'files it, and the operator reads the derivation streamed: memory flat, /health/live answering',
    async () => {
      const filed = await fetch(`${app.url}/api/v1/periods/2026-S1/derived-declaration`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}` },
      });
      expect(filed.status).toBe(201);
      const { id } = (await filed.json()) as { id: string };
      const { rows } = await pool.query(`SELECT products FROM declaration_derivations WHERE declaration_id = $1`, [id]);
      expect(rows[0].products).toBe(MAX_CATALOGUE_PRODUCTS);

      await new Promise((resolve) => setTimeout(resolve, 200));
      const baselineMb = rssMb(app.process.pid!);
      const read = await watch(app, async () => {
        // The body's bytes kept as they come (node:http, lighter than fetch's streams): this process's prober shares its time.
        return new Promise<{ status: number; bytes: Buffer }>((resolve, reject) => {
          http
            .get(
              `${app.url}/api/v1/admin/declarations/${id}/derivation`,
              { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } },
              (res) => {
                const chunks: Buffer[] = [];
                res.on('data', (chunk: Buffer) => chunks.push(chunk));
                res.on('end', () => resolve({ status: res.statusCode!, bytes: Buffer.concat(chunks) }));
                res.on('error', reject);
              },
            )
            .on('error', reject);
        });
      });
      expect(read.result.status).toBe(200);
      const derivation = JSON.parse(read.result.bytes.toString('utf8')) as {
        client_id: string;
        products: { reference: string; units: string; elements: unknown[] }[];
      };
      expect(derivation.client_id).toBe(clientId);
      expect(derivation.products).toHaveLength(MAX_CATALOGUE_PRODUCTS);
      expect(derivation.products.at(-1)).toMatchObject({ reference: 'REF-010000', units: '10000' });
      expect(derivation.products.every((p) => p.elements.length === MAX_ELEMENTS)).toBe(true);
      const growthMb = read.peakMb - baselineMb;
      reportFigure(
        `server (load average ${loadavg()[0]!.toFixed(1)}): the operator's derivation of ${MAX_CATALOGUE_PRODUCTS} × ${MAX_ELEMENTS} (${(read.result.bytes.length / 2 ** 20).toFixed(1)} MB): ` +
          `RSS +${growthMb.toFixed(0)} MB; /health/live 95th percentile ${percentile(read.live, 0.95).toFixed(0)} ms, worst ${Math.max(...read.live).toFixed(0)} ms`,
      );
      expect(growthMb).toBeLessThan(MAX_RSS_GROWTH_MB);
      expect(percentile(read.live, 0.95)).toBeLessThan(MAX_LIVE_MS.p95);
      expect(Math.max(...read.live)).toBeLessThan(MAX_LIVE_MS.worst);
    },
    300_000,
  );

  // On the server only: the bound is the same on both, and the server's exports at the bound are slow enough to hold.
  (enabled && onServer ? it : it.skip)(
    `runs at most ${HEAVY_READS_PER_PROCESS} heavy reads at once whoever asks: the next are refused with 503 and Retry-After, and other requests still find a connection`,
    async () => {
      const { rows } = await pool.query(`SELECT 1 FROM declaration_derivations WHERE client_id = $1`, [clientId]);
      if (rows.length === 0)
        expect(
          (
            await fetch(`${app.url}/api/v1/periods/2026-S1/derived-declaration`, {
              method: 'POST',
              headers: { authorization: `Bearer ${token}` },
            })
          ).status,
        ).toBe(201);
      const other = await createClientWithToken({ url: app.url } as TestApp, { streams: ['EMB'] });
      // Eleven operator identities (each within its own bound of two), more than the pool's ten connections.
      const identities = [ADMIN_TOKEN];
      for (let i = 0; i < 10; i++) {
        const res = await fetch(`${app.url}/api/v1/admin/operator-tokens`, {
          method: 'POST',
          headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
          body: JSON.stringify({ name: `Opérateur ${i}` }),
        });
        expect(res.status).toBe(201);
        identities.push(((await res.json()) as { token: string }).token);
      }
      // Each asks for the 30 MB export and reads none of it: an accepted one stays in flight, holding its connection.
      const held: http.IncomingMessage[] = [];
      const answers = await Promise.all(
        identities.map(
          (as) =>
            new Promise<{ status: number; retryAfter: string | undefined; body: string }>((resolve, reject) => {
              http
                .get(
                  `${app.url}/api/v1/admin/periods/2026-S1/export?detail=products`,
                  { headers: { authorization: `Bearer ${as}` } },
                  (res) => {
                    if (res.statusCode === 200) {
                      res.pause();
                      held.push(res);
                      resolve({ status: 200, retryAfter: undefined, body: '' });
                      return;
                    }
                    let body = '';
                    res.setEncoding('utf8');
                    res.on('data', (chunk: string) => (body += chunk));
                    res.on('end', () =>
                      resolve({ status: res.statusCode!, retryAfter: res.headers['retry-after'] as string | undefined, body }),
                    );
                  },
                )
                .on('error', reject);
            }),
        ),
      );
      try {
        // Meanwhile another client's ordinary read finds a connection (without the bound, ten exports hold all ten: 503).
        expect((await get('/api/v1/declarations', `Bearer ${other.token}`)).status).toBe(200);
        const statuses = answers.map((a) => a.status);
        expect(statuses.filter((s) => s === 200)).toHaveLength(HEAVY_READS_PER_PROCESS);
        expect(statuses.filter((s) => s !== 200).every((s) => s === 503)).toBe(true);
        for (const refused of answers.filter((a) => a.status === 503)) {
          expect(refused.retryAfter).toBe('2');
          expect(JSON.parse(refused.body)).toMatchObject({ code: 'service_unavailable', status: 503 });
        }
      } finally {
        for (const res of held) res.destroy();
      }
    },
    300_000,
  );
});
