import 'reflect-metadata';
import http from 'node:http';
import { RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants.js';
import { MetadataScanner, ModulesContainer, Reflector } from '@nestjs/core';
import request from 'supertest';
import { AUDIENCE_KEY } from '../src/caller/audience.js';
import { SERVED_FILES } from '../src/reference/reference-files.js';
import { PublicFiles } from '../src/edge/public-files.js';
import { SITE_PATHS } from '../src/site/site-pages.js';
import { createClient, createClientWithToken, issueToken } from './support/factories.js';
import { ADMIN_TOKEN, startTestApp, type TestApp } from './support/test-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t?.close();
});

const REALM = 'Bearer realm="epr-declarations"';
const PROBLEM = /^application\/problem\+json; charset=utf-8$/;
const TOKEN_SHAPE = /^eprc_[0-9A-Za-z]{32}_[0-9A-Za-z]{6}$/;
const admin = () => ({ authorization: `Bearer ${ADMIN_TOKEN}` });
const tokensOf = (clientId: string) => `/api/v1/admin/clients/${clientId}/tokens`;
const me = (authorization?: string) => {
  const req = request(t.url).get('/api/v1/me');
  return authorization === undefined ? req : req.set('authorization', authorization);
};

function expectProblem(res: request.Response, status: number, code: string) {
  expect(res.status).toBe(status);
  expect(res.headers['content-type']).toMatch(PROBLEM);
  expect(res.body).toEqual(expect.objectContaining({ status, code, detail: expect.any(String) }));
  expect(res.headers['cache-control']).toBe('no-store');
}

function expectInvalidToken(res: request.Response, description?: RegExp) {
  expectProblem(res, 401, 'invalid_token');
  const challenge = res.headers['www-authenticate'] as string;
  expect(challenge).toMatch(/^Bearer realm="epr-declarations", error="invalid_token", error_description="[^"]+"$/);
  if (description) {
    expect(challenge).toMatch(description);
    expect(res.body.detail).toMatch(description);
  }
}

/** Every admin route, for a given client and token id. */
function adminRoutes(clientId: string, tokenId: string): Array<[string, string]> {
  return [
    ['post', '/api/v1/admin/clients'],
    ['get', `/api/v1/admin/clients/${clientId}`],
    ['patch', `/api/v1/admin/clients/${clientId}`],
    ['post', `/api/v1/admin/clients/${clientId}/confirm`],
    ['post', `/api/v1/admin/clients/${clientId}/sign-in-links`],
    ['post', tokensOf(clientId)],
    ['get', tokensOf(clientId)],
    ['delete', `${tokensOf(clientId)}/${tokenId}`],
    ['get', `/api/v1/admin/clients/${clientId}/sessions`],
    ['delete', `/api/v1/admin/clients/${clientId}/sessions`],
    ['get', `/api/v1/admin/clients/${clientId}/messages`],
    ['get', '/api/v1/admin/clients'],
    ['get', '/api/v1/admin/declarations'],
    ['get', '/api/v1/admin/declarations/00000000-0000-4000-8000-000000000000'],
    ['get', '/api/v1/admin/declarations/00000000-0000-4000-8000-000000000000/derivation'],
    ['get', '/api/v1/admin/periods/2025-S1/export'],
    ['get', '/api/v1/admin/periods/2025-S1/export.csv'],
    ['get', '/api/v1/admin/periods/2025-S1/summary'],
    ['post', '/api/v1/admin/operator-tokens'],
    ['get', '/api/v1/admin/operator-tokens'],
    ['delete', `/api/v1/admin/operator-tokens/${tokenId}`],
    ['get', '/api/v1/admin/operator-sessions'],
    ['delete', `/api/v1/admin/operator-sessions/${tokenId}`],
    ['get', '/api/v1/admin/audit'],
    ['get', `/api/v1/admin/clients/${clientId}/sign-in-links`],
    ['delete', `/api/v1/admin/clients/${clientId}/sign-in-links/${tokenId}`],
    ['get', `/api/v1/admin/clients/${clientId}/streams`],
    ['put', `/api/v1/admin/clients/${clientId}/streams/EMB`],
    ['post', `/api/v1/admin/clients/${clientId}/suspend`],
    ['post', `/api/v1/admin/clients/${clientId}/reactivate`],
    ['post', `/api/v1/admin/clients/${clientId}/offboard`],
    ['get', '/api/v1/admin/years/2025/export'],
    ['get', '/api/v1/admin/years/2025/export.csv'],
    ['post', '/api/v1/admin/clients/import'],
    ['post', '/api/v1/admin/reminders'],
  ];
}

const send = (method: string, path: string, authorization?: string) => {
  let req = (request(t.url) as unknown as Record<string, (p: string) => request.Test>)[method](path);
  if (authorization !== undefined) req = req.set('authorization', authorization);
  return ['post', 'patch', 'put'].includes(method) ? req.send({}) : req;
};

describe('issuing tokens', () => {
  it('shows the token once (201, no-store) with its metadata; stores only its SHA-256', async () => {
    const { clientId } = await createClient(t);
    const res = await request(t.url)
      .post(tokensOf(clientId))
      .set(admin())
      .send({ name: ' ERP production ', expires_at: new Date(Date.now() + 86_400_000).toISOString() });
    expect(res.status).toBe(201);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(Object.keys(res.body).sort()).toEqual(['created_at', 'expires_at', 'id', 'mode', 'name', 'prefix', 'token']);
    expect(res.body.token).toMatch(TOKEN_SHAPE);
    expect(res.body.prefix).toBe(res.body.token.slice(0, 12));
    expect(res.body.name).toBe('ERP production');
    expect(res.body.id).toMatch(/^[0-9a-f-]{36}$/);

    const { rows } = await t.pool.query('SELECT * FROM client_tokens WHERE id = $1', [res.body.id]);
    expect(rows[0].token_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(rows[0].token_hash).not.toBe(res.body.token);
    const { rows: hashed } = await t.pool.query(`SELECT encode(sha256(convert_to($1, 'UTF8')), 'hex') AS h`, [res.body.token]);
    expect(rows[0].token_hash).toBe(hashed[0].h);
  });

  it('issues a token without name or expiry', async () => {
    const { clientId } = await createClient(t);
    const res = await request(t.url).post(tokensOf(clientId)).set(admin()).send({});
    expect(res.status).toBe(201);
    expect(res.body).toEqual(expect.objectContaining({ name: null, expires_at: null }));
  });

  it.each([
    [{ name: '' }, '/name', 'not_blank'],
    [{ name: 'x'.repeat(101) }, '/name', 'max_length'],
    [{ name: 5 }, '/name', 'invalid_string'],
    [{ expires_at: '2020-01-01T00:00:00Z' }, '/expires_at', 'expiry_out_of_range'],
    [{ expires_at: new Date(Date.now() + 3 * 366 * 86_400_000).toISOString() }, '/expires_at', 'expiry_out_of_range'],
    [{ expires_at: 'tomorrow' }, '/expires_at', 'invalid_date_time'],
    [{ expires_at: '2030-01-01' }, '/expires_at', 'invalid_date_time'],
    [{ expires_at: '2030-02-30T00:00:00Z' }, '/expires_at', 'invalid_date_time'],
    [{ scope: 'admin' }, '/scope', 'unknown_field'],
  ])('refuses %j with 422', async (body, pointer, code) => {
    const { clientId } = await createClient(t);
    const res = await request(t.url).post(tokensOf(clientId)).set(admin()).send(body);
    expectProblem(res, 422, 'validation_failed');
    expect(res.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ pointer, code })]));
    for (const error of res.body.errors) expect(error.pointer).toBe(pointer);
  });

  it('answers 404 for an unknown client on every token route', async () => {
    expectProblem(await request(t.url).post(tokensOf('nobody')).set(admin()).send({}), 404, 'not_found');
    expectProblem(await request(t.url).get(tokensOf('nobody')).set(admin()), 404, 'not_found');
    expectProblem(
      await request(t.url)
        .delete(`${tokensOf('nobody')}/00000000-0000-4000-8000-000000000000`)
        .set(admin()),
      404,
      'not_found',
    );
  });
});

describe('listing and revoking tokens', () => {
  it('lists metadata only, newest first, and records the last use', async () => {
    const { clientId } = await createClient(t);
    const first = await issueToken(t, clientId, { name: 'first' });
    const second = await issueToken(t, clientId, { name: 'second' });
    expect((await me(`Bearer ${first.token}`)).status).toBe(200);

    let list = await request(t.url).get(tokensOf(clientId)).set(admin());
    for (let i = 0; i < 40 && list.body[1]?.last_used_at === null; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      list = await request(t.url).get(tokensOf(clientId)).set(admin());
    }
    expect(list.status).toBe(200);
    expect(list.headers['cache-control']).toBe('no-store');
    expect(list.body.map((x: { name: string }) => x.name)).toEqual(['second', 'first']);
    for (const item of list.body) {
      expect(Object.keys(item).sort()).toEqual([
        'created_at',
        'created_via',
        'expires_at',
        'id',
        'last_used_at',
        'mode',
        'name',
        'prefix',
        'revoked_at',
      ]);
    }
    expect(list.body[0]).toEqual(
      expect.objectContaining({
        id: second.id,
        prefix: second.token.slice(0, 12),
        last_used_at: null,
        revoked_at: null,
        created_via: 'operator',
      }),
    );
    expect(list.body[1].last_used_at).toEqual(expect.any(String));
    expect(JSON.stringify(list.body)).not.toContain(first.token);
    expect(JSON.stringify(list.body)).not.toMatch(/[0-9a-f]{64}/);
  });

  it('writes last_used_at at most once a minute however many requests', async () => {
    const { token, tokenId } = await createClientWithToken(t);
    for (let i = 0; i < 5; i++) expect((await me(`Bearer ${token}`)).status).toBe(200);
    let row;
    for (let i = 0; i < 40; i++) {
      row = (await t.pool.query('SELECT last_used_at FROM client_tokens WHERE id = $1', [tokenId])).rows[0];
      if (row.last_used_at) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const recorded = row.last_used_at as Date;
    expect(recorded).toBeInstanceOf(Date);
    await me(`Bearer ${token}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const again = (await t.pool.query('SELECT last_used_at FROM client_tokens WHERE id = $1', [tokenId])).rows[0];
    expect(again.last_used_at.getTime()).toBe(recorded.getTime());
  });

  it('revokes at once (204), idempotently; the token stops working on the next request', async () => {
    const { clientId, token, tokenId } = await createClientWithToken(t);
    const other = await issueToken(t, clientId);
    expect((await me(`Bearer ${token}`)).status).toBe(200);

    const revoked = await request(t.url)
      .delete(`${tokensOf(clientId)}/${tokenId}`)
      .set(admin());
    expect(revoked.status).toBe(204);
    expect(revoked.text).toBe('');
    expectInvalidToken(await me(`Bearer ${token}`), /revoked/);
    // The client's other token still works.
    expect((await me(`Bearer ${other.token}`)).status).toBe(200);

    const before = (await t.pool.query('SELECT revoked_at FROM client_tokens WHERE id = $1', [tokenId])).rows[0].revoked_at as Date;
    expect(
      (
        await request(t.url)
          .delete(`${tokensOf(clientId)}/${tokenId}`)
          .set(admin())
      ).status,
    ).toBe(204);
    const after = (await t.pool.query('SELECT revoked_at FROM client_tokens WHERE id = $1', [tokenId])).rows[0].revoked_at as Date;
    expect(after.getTime()).toBe(before.getTime());

    const list = await request(t.url).get(tokensOf(clientId)).set(admin());
    expect(list.body.find((x: { id: string }) => x.id === tokenId).revoked_at).toEqual(expect.any(String));
  });

  it("answers 404 for an unknown token id, a malformed one, and another client's token", async () => {
    const a = await createClientWithToken(t);
    const b = await createClientWithToken(t);
    for (const id of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid', b.tokenId]) {
      expectProblem(
        await request(t.url)
          .delete(`${tokensOf(a.clientId)}/${id}`)
          .set(admin()),
        404,
        'not_found',
      );
    }
    expect((await me(`Bearer ${b.token}`)).status).toBe(200);
  });
});

describe('bad credentials on a client route', () => {
  let token: string;
  beforeAll(async () => {
    ({ token } = await createClientWithToken(t));
  });

  it('missing → 401 missing_token with the bare challenge', async () => {
    const res = await me();
    expectProblem(res, 401, 'missing_token');
    expect(res.headers['www-authenticate']).toBe(REALM);
  });

  it('malformed → 401 invalid_token', async () => {
    expectInvalidToken(await me('Bearer not-a-token'), /malformed/);
    expectInvalidToken(await me(`Bearer ${token} extra`), /malformed/);
  });

  it('two Authorization headers → 400, whichever of them is valid', async () => {
    const twice = (headers: string[]) =>
      new Promise<{ status: number; body: Record<string, unknown>; type?: string }>((resolve, reject) => {
        const req = http.get(
          `${t.url}/api/v1/me`,
          { headers: ['host', new URL(t.url).host, ...headers.flatMap((value) => ['authorization', value])] },
          (res) => {
            let text = '';
            res.on('data', (chunk: Buffer) => (text += chunk.toString()));
            res.on('end', () => {
              try {
                resolve({ status: res.statusCode!, body: JSON.parse(text), type: res.headers['content-type'] });
              } catch (error) {
                reject(new Error(`${res.statusCode} ${text}`, { cause: error }));
              }
            });
          },
        );
        req.on('error', reject);
      });
    for (const headers of [
      [`Bearer ${token}`, 'Bearer x'],
      ['Bearer x', `Bearer ${token}`],
      [`Bearer ${token}`, `Bearer ${token}`],
    ]) {
      const res = await twice(headers);
      expect(res).toMatchObject({ status: 400, type: 'application/problem+json; charset=utf-8', body: { code: 'bad_request' } });
    }
  });

  it('wrong checksum → 401 invalid_token', async () => {
    const typo = `${token.slice(0, 10)}${token[10] === 'A' ? 'B' : 'A'}${token.slice(11)}`;
    expectInvalidToken(await me(`Bearer ${typo}`), /checksum/);
  });

  it('well-formed but unknown → 401 invalid_token', async () => {
    const { generateToken } = await import('../src/common/token-format.js');
    expectInvalidToken(await me(`Bearer ${generateToken()}`), /not recognised/);
  });

  it('expired → 401 invalid_token, from the moment it expires (even if this replica kept it)', async () => {
    const { clientId } = await createClient(t);
    const expiresAt = Date.now() + 3_000;
    const issued = await issueToken(t, clientId, { expires_at: new Date(expiresAt).toISOString() });
    // Twice: the second may be answered from what the replica kept (PostgreSQL server).
    expect((await me(`Bearer ${issued.token}`)).status).toBe(200);
    expect((await me(`Bearer ${issued.token}`)).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, expiresAt - Date.now() + 1));
    expectInvalidToken(await me(`Bearer ${issued.token}`), /expired/);
  });

  it('another scheme (Basic) → 401 naming the Bearer scheme', async () => {
    const res = await me(`Basic ${Buffer.from(`client:${token}`).toString('base64')}`);
    expectProblem(res, 401, 'missing_token');
    expect(res.headers['www-authenticate']).toBe(REALM);
    expect(res.body.detail).toMatch(/Basic/);
    expect(res.body.detail).toMatch(/Bearer/);
  });

  it('lowercase (or any case) bearer → accepted', async () => {
    for (const scheme of ['bearer', 'BEARER']) {
      const res = await me(`${scheme} ${token}`);
      expect(res.status).toBe(200);
    }
  });

  it('empty token → 401 invalid_token', async () => {
    const res = await me('Bearer ');
    expectInvalidToken(res, /empty/);
  });

  it('a token in the query string is refused with 400, before any credential is read, however it is spelt', async () => {
    for (const query of [`access_token=${token}`, `ACCESS_TOKEN=${token}`, `access%5Ftoken=${token}`, `x=1&access_token=`]) {
      const res = await request(t.url).get(`/api/v1/me?${query}`);
      expectProblem(res, 400, 'bad_request');
      expect(res.body.detail).toMatch(/Authorization header/);
      expect(res.body.detail).not.toContain(token);
    }
    // With a good header too, and on admin routes: never a token in an address.
    const withHeader = await request(t.url).get(`/api/v1/declarations?access_token=${token}`).set('Authorization', `Bearer ${token}`);
    expectProblem(withHeader, 400, 'bad_request');
    const admin = await request(t.url).get(`/api/v1/admin/clients?access_token=x`).set('Authorization', `Bearer ${ADMIN_TOKEN}`);
    expectProblem(admin, 400, 'bad_request');
    // A refused address is no failed authentication: the token still works.
    expect((await me(`Bearer ${token}`)).status).toBe(200);
  });

  it('a token in a body is never read: the body is read only after authentication; a form body without the header is 400', async () => {
    // RFC 6750 §2.2's way (a form body, no Authorization header): refused as documented, without reading the body.
    const res = await request(t.url)
      .post('/api/v1/declarations')
      .set('Content-Type', 'application/x-www-form-urlencoded')
      .send(`access_token=${token}`);
    expectProblem(res, 400, 'bad_request');
    expect(res.body.detail).not.toContain(token);
    const json = await request(t.url).post('/api/v1/declarations').send({ access_token: token, period: '2026-S1', lines: [] });
    expectProblem(json, 401, 'missing_token');
  });

  it('the admin token → 401 invalid_token, never an account', async () => {
    const res = await me(`Bearer ${ADMIN_TOKEN}`);
    expectInvalidToken(res, /admin token/);
    expect(res.body.client_id).toBeUndefined();
  });
});

describe('client tokens never reach the admin API', () => {
  it('answers every admin route, for its own client or another, with 403 insufficient_scope', async () => {
    const a = await createClientWithToken(t);
    const b = await createClientWithToken(t);
    for (const target of [a, b]) {
      for (const [method, path] of adminRoutes(target.clientId, target.tokenId)) {
        const res = await send(method, path, `Bearer ${a.token}`);
        expectProblem(res, 403, 'insufficient_scope');
        expect(res.headers['www-authenticate']).toMatch(/^Bearer realm="epr-declarations", error="insufficient_scope"/);
      }
    }
    // Nothing changed: b's token still works and no client was created.
    expect((await me(`Bearer ${b.token}`)).status).toBe(200);
    const { rows } = await t.pool.query('SELECT revoked_at FROM client_tokens WHERE id = ANY($1)', [[a.tokenId, b.tokenId]]);
    expect(rows.every((r) => r.revoked_at === null)).toBe(true);
  });

  it('answers a wrong admin token with 401 invalid_token', async () => {
    const res = await request(t.url).get('/api/v1/admin/clients/anyone').set('authorization', `Bearer ${ADMIN_TOKEN}x`);
    expectInvalidToken(res);
  });
});

describe('secrecy', () => {
  it('never stores or logs the token in clear (every table, every log line)', async () => {
    const { clientId, token, tokenId } = await createClientWithToken(t);
    await me(`Bearer ${token}`);
    await me(`bearer ${token}`);
    await request(t.url).get(tokensOf(clientId)).set('authorization', `Bearer ${token}`); // 403
    await request(t.url).get(`/api/v1/me?access_token=${token}`); // token in a URL: redacted in the log
    await request(t.url)
      .delete(`${tokensOf(clientId)}/${tokenId}`)
      .set(admin());
    await me(`Bearer ${token}`); // revoked
    await new Promise((resolve) => setTimeout(resolve, 200));

    const secretParts = [token, token.slice(5, 37)];
    const { rows: tables } = await t.pool.query(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`,
    );
    expect(tables.map((r) => r.table_name)).toEqual(expect.arrayContaining(['clients', 'client_tokens']));
    for (const { table_name } of tables) {
      const { rows } = await t.pool.query(`SELECT row_to_json(x)::text AS row FROM "${table_name}" x`);
      const dump = rows.map((r) => r.row).join('\n');
      for (const part of secretParts) expect(dump).not.toContain(part);
    }

    const { rows: hashRows } = await t.pool.query('SELECT token_hash FROM client_tokens WHERE id = $1', [tokenId]);
    const logs = t.logs.join('\n');
    expect(logs).toContain(clientId);
    for (const part of [...secretParts, hashRows[0].token_hash, ADMIN_TOKEN]) expect(logs).not.toContain(part);
  });
});

describe('every route is closed unless listed as public', () => {
  /** The public routes of the app. Adding one is a deliberate act: list it here. */
  const PUBLIC_ROUTES = [
    'GET /health/live',
    'GET /health/ready',
    'GET /api/v1',
    'GET /api/v1/index.json',
    'GET /api/v1/pricing.json',
    'GET /api/v1/streams.json',
    'GET /api/v1/law.json',
    'GET /api/v1/obligations.json',
    'GET /llms.txt',
    'GET /api/v1/declaration-template.csv',
    // The dashboard's sign-in: pages and forms for people not signed in yet (their POSTs need the page's CSRF token).
    'GET /dashboard/sign-in',
    'POST /dashboard/sign-in',
    'GET /dashboard/sign-in/link',
    'POST /dashboard/sign-in/link',
    // The operator's console's sign-in, the same way (test/operator/ walks the console's other routes).
    'GET /operator/sign-in',
    'POST /operator/sign-in',
    'GET /operator/sign-in/link',
    'POST /operator/sign-in/link',
  ];
  /** CORS preflights of the public files (middleware that answers 204 with headers only, no data). */
  const CORS_PREFLIGHTS = PUBLIC_ROUTES.filter((r) => r.startsWith('GET /api/v1') || r === 'GET /llms.txt').map((r) =>
    r.replace(/^GET /, 'OPTIONS '),
  );
  /** Swagger UI and the OpenAPI document, served outside any controller (no guard applies): GET under /docs only. */
  const isDocumentation = (route: string) => /^GET \/docs(\/|$)/.test(route);

  const join = (...parts: string[]) =>
    `/${parts
      .flatMap((p) => p.split('/'))
      .filter(Boolean)
      .join('/')}`;

  /** Controller routes with their audience metadata, from Nest's module container. */
  function controllerRoutes(): Array<{ route: string; audience: unknown }> {
    const reflector = t.app.get(Reflector);
    const scanner = new MetadataScanner();
    const routes: Array<{ route: string; audience: unknown }> = [];
    for (const module of t.app.get(ModulesContainer).values()) {
      for (const wrapper of module.controllers.values()) {
        const type = wrapper.metatype as (new (...args: unknown[]) => object) | null;
        if (!type) continue;
        const base = String(Reflect.getMetadata(PATH_METADATA, type) ?? '');
        for (const name of scanner.getAllMethodNames(type.prototype)) {
          const handler = (type.prototype as Record<string, (...args: unknown[]) => unknown>)[name]!;
          const path = Reflect.getMetadata(PATH_METADATA, handler) as string | undefined;
          if (path === undefined) continue;
          const method = RequestMethod[Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod];
          routes.push({ route: `${method} ${join(base, path)}`, audience: reflector.getAllAndOverride(AUDIENCE_KEY, [handler, type]) });
        }
      }
    }
    return routes;
  }

  /** Every route the HTTP server serves, from the Express router. */
  function expressRoutes(): string[] {
    const stack = (
      t.app.getHttpAdapter().getInstance() as { router: { stack: Array<{ route?: { path: string; methods: Record<string, boolean> } }> } }
    ).router.stack;
    const out = new Set<string>();
    for (const layer of stack) {
      // Wildcard routes are middleware mounted for every method (helmet, JSON parser…), not resources.
      if (!layer.route || layer.route.path.includes('*')) continue;
      for (const [method, enabled] of Object.entries(layer.route.methods)) {
        if (enabled && method !== '_all') out.add(`${method.toUpperCase()} ${layer.route.path}`);
      }
    }
    return [...out];
  }

  it('has exactly the listed public controller routes', () => {
    const routes = controllerRoutes();
    expect(routes.length).toBeGreaterThan(PUBLIC_ROUTES.length);
    expect(
      routes
        .filter((r) => r.audience === 'public')
        .map((r) => r.route)
        .sort(),
    ).toEqual([...PUBLIC_ROUTES].sort());
    // Every controller route is served, and nothing else is besides the documentation.
    const served = expressRoutes().filter((route) => !isDocumentation(route) && !CORS_PREFLIGHTS.includes(route));
    expect(expressRoutes()).toEqual(expect.arrayContaining(CORS_PREFLIGHTS));
    expect(served.sort()).toEqual(routes.map((r) => r.route).sort());
    expect(expressRoutes()).toEqual(expect.arrayContaining(['GET /docs', 'GET /docs/openapi.json']));
  });

  it('client tokens get 403 on every admin route, operator tokens 401 on every client route', async () => {
    const routes = controllerRoutes();
    // adminRoutes() (used above and below) lists every admin route of the app.
    const listed = adminRoutes(':client_id', ':token_id').map(
      ([method, path]) =>
        `${method.toUpperCase()} ${path
          .replace(/\/(2025-S1)(?=\/)/, '/:period')
          .replace(/\/declarations\/0{8}-[0-9-]+\/derivation$/, '/declarations/:id/derivation')
          .replace(/\/declarations\/0{8}-[0-9-]+$/, '/declarations/:id')
          .replace(/operator-tokens\/:token_id$/, 'operator-tokens/:operator_token_id')
          .replace(/operator-sessions\/:token_id$/, 'operator-sessions/:operator_session_id')
          .replace(/sign-in-links\/:token_id$/, 'sign-in-links/:link_id')
          .replace(/\/streams\/EMB$/, '/streams/:stream')
          .replace(/\/years\/2025\//, '/years/:year/')}`,
    );
    expect(new Set(listed)).toEqual(new Set(routes.filter((r) => r.audience === 'admin').map((r) => r.route)));

    const client = await createClientWithToken(t);
    for (const [method, path] of adminRoutes(client.clientId, client.tokenId)) {
      const res = await send(method, path, `Bearer ${client.token}`);
      expect({ method, path, status: res.status, code: res.body.code }).toEqual({ method, path, status: 403, code: 'insufficient_scope' });
    }
    const operator = await request(t.url).post('/api/v1/admin/operator-tokens').set(admin()).send({ name: 'route walk' });
    expect(operator.status).toBe(201);
    const clientRoutes = routes.filter(
      (r) => r.audience !== 'admin' && r.audience !== 'public' && r.audience !== 'session' && r.audience !== 'operator',
    );
    expect(clientRoutes.map((r) => r.route)).toEqual(expect.arrayContaining(['GET /api/v1/me', 'POST /api/v1/declarations']));
    for (const { route } of clientRoutes) {
      const [method, template] = route.split(' ') as [string, string];
      const path = template.replace(/:(\w+)/g, '00000000-0000-4000-8000-000000000000');
      const res = await send(method.toLowerCase(), path, `Bearer ${operator.body.token}`);
      expect({ route, status: res.status, code: res.body.code }).toEqual({ route, status: 401, code: 'invalid_token' });
    }
  });

  it('answers before the router (no guard) only GET on the listed public routes and the site', () => {
    const answered = t.app.get(PublicFiles).files.paths();
    const files = [...SERVED_FILES.keys()];
    expect(PUBLIC_ROUTES).toEqual(expect.arrayContaining(files.map((path) => `GET ${path}`)));
    // The site: pages, their assets, sitemap.xml and robots.txt; none under the API, health or docs.
    expect(SITE_PATHS).toEqual(expect.arrayContaining(['/', '/fr/', '/pricing', '/problems/not-found', '/robots.txt']));
    for (const path of SITE_PATHS) expect(path).not.toMatch(/^\/(api|health|docs)(\/|$)/);
    expect([...answered].sort()).toEqual([...files, ...SITE_PATHS].sort());
  });

  it('sends every dashboard page to sign-in without a session, even with a client token (303)', async () => {
    const pages = controllerRoutes()
      .filter((r) => r.audience === 'session')
      .map((r) => r.route);
    expect(pages).toEqual(
      expect.arrayContaining(['GET /dashboard', 'GET /dashboard/tokens', 'POST /dashboard/tokens', 'POST /dashboard/sign-out']),
    );
    // Every route under /dashboard is a page or a public sign-in form: none is a client or admin route.
    expect(
      controllerRoutes().filter(
        (r) => r.route.split(' ')[1]!.startsWith('/dashboard') && r.audience !== 'session' && r.audience !== 'public',
      ),
    ).toEqual([]);
    const client = await createClientWithToken(t);
    for (const route of pages) {
      const [method, template] = route.split(' ') as [string, string];
      const path = template.replace(/:(\w+)/g, '00000000-0000-4000-8000-000000000000');
      for (const authorization of [undefined, `Bearer ${client.token}`]) {
        const res = await send(method.toLowerCase(), path, authorization);
        expect({ route, status: res.status, location: res.headers.location }).toEqual({
          route,
          status: 303,
          location: '/dashboard/sign-in?session=ended',
        });
      }
    }
  });

  it('refuses every other route without a credential: 401 with WWW-Authenticate', async () => {
    const sessionRoutes = controllerRoutes()
      .filter((r) => r.audience === 'session' || r.audience === 'operator')
      .map((r) => r.route);
    const open = expressRoutes().filter(
      (route) => PUBLIC_ROUTES.includes(route) || CORS_PREFLIGHTS.includes(route) || isDocumentation(route),
    );
    const closed = expressRoutes().filter((route) => !open.includes(route) && !sessionRoutes.includes(route));
    expect(closed).toEqual(expect.arrayContaining(['GET /api/v1/me', 'POST /api/v1/admin/clients']));
    for (const route of closed) {
      const [method, template] = route.split(' ') as [string, string];
      const path = template.replace(/:(\w+)/g, (_m, name: string) =>
        name.endsWith('id') && name !== 'client_id' ? '00000000-0000-4000-8000-000000000000' : 'some-client',
      );
      const res = await send(method.toLowerCase(), path);
      expect({ route, status: res.status }).toEqual({ route, status: 401 });
      expect(res.headers['www-authenticate']).toMatch(/^Bearer realm="epr-declarations"/);
      expect(res.headers['content-type']).toMatch(PROBLEM);
    }
    for (const route of open) {
      const res = await send('get', route.split(' ')[1]!);
      expect({ route, status: res.status }).not.toEqual({ route, status: 401 });
    }
    // The site is GET/HEAD only: another method on a page goes to the router, which has no such route.
    for (const path of ['/', '/pricing']) expect((await send('post', path)).status).toBe(404);
  });
});

describe('OpenAPI of the token routes', () => {
  it('gives each an operationId, a summary and the admin scheme', async () => {
    const doc = (await request(t.url).get('/docs/openapi.json')).body;
    const ops: Array<[string, string, string]> = [
      ['/api/v1/admin/clients/{client_id}/tokens', 'post', 'issueToken'],
      ['/api/v1/admin/clients/{client_id}/tokens', 'get', 'listTokens'],
      ['/api/v1/admin/clients/{client_id}/tokens/{token_id}', 'delete', 'revokeToken'],
    ];
    for (const [path, method, operationId] of ops) {
      const op = doc.paths[path][method];
      expect(op).toEqual(expect.objectContaining({ operationId, summary: expect.any(String), security: [{ admin: [] }] }));
      expect(op.responses['403']).toBeDefined();
    }
  });
});

describe('admin API without ADMIN_TOKEN', () => {
  let disabled: TestApp;
  beforeAll(async () => {
    disabled = await startTestApp({ env: { ADMIN_TOKEN: '' } });
  });
  afterAll(async () => {
    await disabled?.close();
  });

  it('answers every admin route with 403 admin_api_disabled, saying how to enable it', async () => {
    expect(disabled.config.adminToken).toBeUndefined();
    for (const [method, path] of adminRoutes('some-client', '00000000-0000-4000-8000-000000000000')) {
      for (const authorization of [undefined, `Bearer ${ADMIN_TOKEN}`]) {
        let req = (request(disabled.url) as unknown as Record<string, (p: string) => request.Test>)[method](path);
        if (authorization) req = req.set('authorization', authorization);
        const res = ['post', 'patch', 'put'].includes(method) ? await req.send({}) : await req;
        expect(res.status).toBe(403);
        expect(res.headers['content-type']).toMatch(PROBLEM);
        expect(res.body.code).toBe('admin_api_disabled');
        expect(res.body.detail).toMatch(/ADMIN_TOKEN/);
      }
    }
    const { rows } = await disabled.pool.query('SELECT count(*)::int AS n FROM clients');
    expect(rows[0].n).toBe(0);
  });

  it('keeps the client API closed as usual', async () => {
    const res = await request(disabled.url).get('/api/v1/me');
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBe(REALM);
  });
});
