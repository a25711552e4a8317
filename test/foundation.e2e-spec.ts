import request from 'supertest';
import { ADMIN_TOKEN, startTestApp, type TestApp } from './support/test-app.js';
import { BodyEchoModule } from './support/body-echo.module.js';
import { ThrowingModule } from './support/throwing.module.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ extraImports: [ThrowingModule, BodyEchoModule] });
});
afterAll(async () => {
  await t?.close();
});

const PROBLEM = /^application\/problem\+json; charset=utf-8$/;

function expectProblem(res: request.Response, status: number, code: string) {
  expect(res.status).toBe(status);
  expect(res.headers['content-type']).toMatch(PROBLEM);
  expect(res.body).toEqual(
    expect.objectContaining({
      type: `${t.config.publicBaseUrl}/problems/${code.replace(/_/g, '-')}`,
      title: expect.any(String),
      status,
      detail: expect.any(String),
      instance: `urn:request:${res.headers['x-request-id']}`,
      code,
    }),
  );
}

describe('health', () => {
  it('is live and ready on the database', async () => {
    const live = await request(t.url).get('/health/live');
    expect(live.status).toBe(200);
    const ready = await request(t.url).get('/health/ready');
    expect(ready.status).toBe(200);
    expect(ready.body.details.database.status).toBe('up');
  });
});

describe('one error model', () => {
  it('404 for an unknown route', async () => {
    expectProblem(await request(t.url).get('/no/such/route'), 404, 'not_found');
  });

  it('sends error responses as no-store, also on routes without authentication', async () => {
    for (const res of [
      await request(t.url).get('/no/such/route'),
      await request(t.url).delete('/api/v1/streams.json'),
      await request(t.url).delete('/health/live'),
    ]) {
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.headers['cache-control']).toBe('no-store');
    }
  });

  it('405 with Allow for a known route and another method', async () => {
    const res = await request(t.url).delete('/health/live');
    expectProblem(res, 405, 'method_not_allowed');
    expect(res.headers.allow).toBe('GET, HEAD');
  });

  describe('a body, read once the request is routed and authenticated', () => {
    const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
    const postClient = () => request(t.url).post('/api/v1/admin/clients').set(admin);

    it('400 for malformed JSON', async () => {
      expectProblem(await postClient().set('content-type', 'application/json').send('{"period": '), 400, 'malformed_json');
      // Objects and arrays only (as body-parser's strict mode had it).
      for (const text of ['null', '1', '"text"', '  '])
        expectProblem(await postClient().set('content-type', 'application/json').send(text), 400, 'malformed_json');
      // A UTF-8 byte order mark is not part of the JSON text.
      const bom = await postClient().set('content-type', 'application/json').send(Buffer.from('\ufeff{"unknown": 1}'));
      expectProblem(bom, 422, 'validation_failed');
    });

    it('400 for a body that is not valid UTF-8 (not stored with U+FFFD), nothing stored', async () => {
      for (const bytes of [[0xff], [0xc3], [0xed, 0xa0, 0x80], [0xc0, 0xaf]]) {
        const body = Buffer.concat([Buffer.from('{"client_id":"utf8-check","company":"A'), Buffer.from(bytes), Buffer.from('"}')]);
        // fetch sends the bytes as they are (supertest would serialise a Buffer as JSON).
        const res = await fetch(`${t.url}/api/v1/admin/clients`, {
          method: 'POST',
          headers: { ...admin, 'content-type': 'application/json' },
          body,
        });
        expect(res.status).toBe(400);
        expect(res.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
        expect(await res.json()).toMatchObject({ code: 'malformed_json', detail: expect.stringContaining('UTF-8') });
      }
      expect((await request(t.url).get('/api/v1/admin/clients/utf8-check').set(admin)).status).toBe(404);
    });

    it('413 for a body over 1 MiB', async () => {
      const big = JSON.stringify({ x: 'a'.repeat(1024 * 1024) });
      expectProblem(await postClient().set('content-type', 'application/json').send(big), 413, 'payload_too_large');
    });

    it('415 for a non-JSON body, with Accept-Post', async () => {
      const res = await postClient().set('content-type', 'text/plain').send('period=2025-S1');
      expectProblem(res, 415, 'unsupported_media_type');
      expect(res.headers['accept-post']).toBe('application/json');
    });

    it('415 for JSON in another charset than UTF-8', async () => {
      const utf16 = Buffer.from('\ufeff{"name":"x"}', 'utf16le');
      const res = await postClient().set('content-type', 'application/json; charset=utf-16').send(utf16);
      expectProblem(res, 415, 'unsupported_media_type');
      expect(res.body.detail).toMatch(/UTF-8 only, not charset=utf-16/);
      expectProblem(await postClient().set('content-type', 'application/json; charset=latin1').send('{}'), 415, 'unsupported_media_type');
    });

    it("a route takes the kinds of body it declares: forms where @Accepts('form')", async () => {
      const form = await request(t.url)
        .post('/test-only/form')
        .set('content-type', 'application/x-www-form-urlencoded')
        .send('a=1&b=%C3%A9t%C3%A9+x&a=2&__proto__=p');
      expect(form.status).toBe(200);
      expect(form.text).toBe('{"body":{"a":["1","2"],"b":"été x","__proto__":"p"},"prototype":null}');
      const json = await request(t.url).post('/test-only/form').set('content-type', 'application/json').send('{"a":1}');
      expectProblem(json, 415, 'unsupported_media_type');
      expect(json.headers['accept-post']).toBe('application/x-www-form-urlencoded');
      const csv = await postClient().set('content-type', 'text/csv').send('a,b\n1,2\n');
      expectProblem(csv, 415, 'unsupported_media_type');
      expect(csv.headers['accept-post']).toBe('application/json');
    });

    it('is not read without a valid credential (401), nor on a wrong method (405) or path (404)', async () => {
      const broken = (req: request.Test) => req.set('content-type', 'application/json').send('{"period": ');
      expectProblem(await broken(request(t.url).post('/api/v1/admin/clients')), 401, 'missing_token');
      expectProblem(await broken(request(t.url).post('/api/v1/admin/clients').set('authorization', 'Bearer wrong')), 401, 'invalid_token');
      expectProblem(await broken(request(t.url).post('/health/live')), 405, 'method_not_allowed');
      expectProblem(await broken(request(t.url).post('/no/such/route')), 404, 'not_found');
      const huge = await request(t.url)
        .post('/api/v1/declarations')
        .set('content-type', 'application/json')
        .send(JSON.stringify({ x: 'a'.repeat(2 * 1024 * 1024) }));
      expectProblem(huge, 401, 'missing_token');
    });
  });

  it('500 is generic: no message, no stack, only the request id', async () => {
    const res = await request(t.url).get('/test-only/boom').set('x-request-id', 'trace-me-123');
    expectProblem(res, 500, 'internal_error');
    expect(res.body.instance).toBe('urn:request:trace-me-123');
    expect(JSON.stringify(res.body)).not.toMatch(/hunter2|secret|\.ts|at /);
    // The error itself is in the request's log line, for the operator.
    const line = t.logs.map((l) => JSON.parse(l)).find((l) => l.request_id === 'trace-me-123');
    expect(line).toEqual(expect.objectContaining({ level: 50, res: { status: 500 } }));
    expect(line.err.message).toContain('secret internal detail');
  });
});

describe('hostile input (found by the fuzzer)', () => {
  const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };

  it('ignores a body on a GET instead of parsing it', async () => {
    const res = await request(t.url).get('/health/live').set('content-type', 'application/json').send('{}}');
    expect(res.status).toBe(200);
  });

  it('refuses JSON nested deeper than 32 levels with 422, without recursing into it', async () => {
    const deep = `${'{"a":'.repeat(5_000)}1${'}'.repeat(5_000)}`;
    const res = await request(t.url).post('/api/v1/admin/clients').set(admin).set('content-type', 'application/json').send(deep);
    expectProblem(res, 422, 'validation_failed');
    expect(res.body.errors[0]).toEqual(expect.objectContaining({ code: 'too_deep', pointer: `${'/a'.repeat(32)}` }));
  });

  it('refuses NUL characters and unpaired surrogates in strings with 422 and a pointer', async () => {
    const res = await request(t.url)
      .post('/api/v1/admin/clients')
      .set(admin)
      .set('content-type', 'application/json')
      .send('{"company":"a\\u0000b","email":"\\ud800@example.fr","idus":["ok","x\\udc00"]}');
    expectProblem(res, 422, 'validation_failed');
    expect(res.body.errors.map((e: { pointer: string; code: string }) => [e.pointer, e.code]).sort()).toEqual([
      ['/company', 'invalid_characters'],
      ['/email', 'invalid_characters'],
      ['/idus/1', 'invalid_characters'],
    ]);
    const rows = await t.pool.query('SELECT count(*)::int AS n FROM clients');
    expect(rows.rows[0].n).toBe(0);
  });

  it('answers 404 for a client id that cannot exist (e.g. with a NUL byte), without asking the database', async () => {
    expectProblem(await request(t.url).get('/api/v1/admin/clients/a%00').set(admin), 404, 'not_found');
  });

  it('answers 400 with a request id for a badly percent-encoded path', async () => {
    const res = await request(t.url).get('/api/v1/declarations/%E0%A4%A').set(admin);
    expectProblem(res, 400, 'bad_request');
    expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('request ids and logs', () => {
  it('echoes a sane X-Request-Id and logs one line per request with method, route, status, duration', async () => {
    const res = await request(t.url).get('/health/live').set('x-request-id', 'abc-123');
    expect(res.headers['x-request-id']).toBe('abc-123');
    const line = t.logs.map((l) => JSON.parse(l)).find((l) => l.request_id === 'abc-123' && l.res);
    expect(line).toEqual(
      expect.objectContaining({
        req: expect.objectContaining({ method: 'GET', url: '/health/live' }),
        route: '/health/live',
        res: { status: 200 },
        duration_ms: expect.any(Number),
      }),
    );
  });

  it('writes one route key per line: the matched route template, also for a public file', async () => {
    await request(t.url).get('/api/v1/me').set('x-request-id', 'route-once-me');
    await request(t.url).get('/api/v1/streams.json').set('x-request-id', 'route-once-file');
    await request(t.url).get('/api/v1/declarations/3f1c1a52-1b43-4b7f-9a53-0f8a2a8f0b9e').set('x-request-id', 'route-once-param');
    const raw = (id: string) => t.logs.filter((l) => l.includes(`"request_id":"${id}"`) && l.includes('"res"'));
    for (const id of ['route-once-me', 'route-once-file', 'route-once-param']) {
      expect(raw(id)).toHaveLength(1);
      expect(raw(id)[0].match(/"route":/g)?.length ?? 0).toBeLessThanOrEqual(1);
      expect(raw(id)[0]).not.toContain('{/*splat}');
    }
    expect(JSON.parse(raw('route-once-me')[0]).route).toBe('/api/v1/me');
    expect(JSON.parse(raw('route-once-param')[0]).route).toBe('/api/v1/declarations/:id');
  });

  it('replaces an insane X-Request-Id with a generated one', async () => {
    const res = await request(t.url).get('/health/live').set('x-request-id', 'bad id with spaces <script>');
    expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('keeps a request id of 128 characters and replaces one of 129', async () => {
    const longest = 'a'.repeat(128);
    expect((await request(t.url).get('/health/live').set('x-request-id', longest)).headers['x-request-id']).toBe(longest);
    expect((await request(t.url).get('/health/live').set('x-request-id', `${longest}b`)).headers['x-request-id']).toMatch(
      /^[0-9a-f-]{36}$/,
    );
  });

  it('redacts bearer credentials in a logged header and token-like strings in URLs', async () => {
    const secret = 'eprc_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA_BBBBBB';
    // User-Agent is written to the request line, so a credential in it must be scrubbed there.
    await request(t.url)
      .get(`/health/live?token=${secret}`)
      .set('user-agent', 'curl Bearer super-secret-value-123')
      .set('x-request-id', 'redact-1');
    const lines = t.logs.filter((l) => l.includes('redact-1'));
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.some((line) => line.includes('"user_agent":"curl Bearer [REDACTED]"'))).toBe(true);
    for (const line of lines) {
      expect(line).not.toContain('super-secret-value-123');
      expect(line).not.toContain(secret);
    }
  });
});

describe('no secret reaches a log line', () => {
  const token = 'eprc_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA_BBBBBB';

  it.each([
    ['a client token', token],
    ['the admin token', ADMIN_TOKEN],
  ])('%s sent as X-Request-Id is replaced by a generated id, and logged nowhere', async (_name, secret) => {
    const res = await request(t.url).get('/health/live').set('x-request-id', secret);
    expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const lines = t.logs.filter((l) => l.includes(res.headers['x-request-id']));
    expect(lines.length).toBeGreaterThan(0);
    expect(t.logs.join('\n')).not.toContain(secret);
  });

  it('scrubs the User-Agent, and the admin token wherever it appears (URL, User-Agent)', async () => {
    await request(t.url)
      .get(`/health/live?debug=${ADMIN_TOKEN}&again=x${ADMIN_TOKEN}y`)
      .set('user-agent', `curl/8 (${token}; Bearer abc.def; ${ADMIN_TOKEN})`)
      .set('x-request-id', 'scrub-everywhere');
    const line = t.logs.find((l) => l.includes('scrub-everywhere'))!;
    expect(line).toBeDefined();
    for (const secret of [token, ADMIN_TOKEN, 'abc.def']) expect(line).not.toContain(secret);
    expect(JSON.parse(line).req.user_agent).toMatch(/^curl\/8 \(\[REDACTED\]; Bearer \[REDACTED\]/);
  });
});

describe('security headers', () => {
  it('sends helmet headers and no x-powered-by', async () => {
    const res = await request(t.url).get('/health/live');
    expect(res.headers['x-powered-by']).toBeUndefined();
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['content-security-policy']).toContain("default-src 'self'");
  });
});

describe('OpenAPI', () => {
  it('serves Swagger UI at /docs', async () => {
    const res = await request(t.url).get('/docs/');
    expect(res.status).toBe(200);
    expect(res.text).toContain('swagger-ui');
    const init = await request(t.url).get('/docs/swagger-ui-init.js');
    expect(init.status).toBe(200);
  });

  it('sends security headers on Swagger UI: a CSP that lets it run, no framing', async () => {
    for (const path of ['/docs', '/docs/', '/docs/swagger-ui-bundle.js', '/docs/swagger-ui-init.js', '/docs/openapi.json']) {
      const res = await request(t.url).get(path);
      expect(res.status).toBe(200);
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['x-frame-options']).toBe('DENY');
      const csp = res.headers['content-security-policy'];
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).not.toMatch(/script-src[^;]*unsafe-inline/);
    }
    // Every file the page loads is served.
    const page = (await request(t.url).get('/docs/')).text;
    const assets = [...page.matchAll(/(?:src|href)="\.\/([^"]+)"/g)].map((m) => m[1]);
    expect(assets.length).toBeGreaterThanOrEqual(4);
    for (const asset of assets) expect((await request(t.url).get(`/docs/${asset}`)).status).toBe(200);
  });

  it.each([
    '/docs/package.json',
    '/docs/README.md',
    '/docs/swagger-ui-bundle.js.map',
    '/docs/swagger-ui-es-bundle.js',
    '/docs/oauth2-redirect.html',
    '/docs/LICENSE',
  ])('serves nothing else of the Swagger UI package: %s → 404', async (path) => {
    const res = await request(t.url).get(path);
    expect(res.status).toBe(404);
    expect(res.headers['content-type']).toBe('application/problem+json; charset=utf-8');
  });

  it('serves an OpenAPI 3 document at /docs/openapi.json with bearer schemes', async () => {
    const res = await request(t.url).get('/docs/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toMatch(/^3\./);
    expect(res.body.components.securitySchemes).toEqual(
      expect.objectContaining({ client: expect.objectContaining({ type: 'http', scheme: 'bearer' }) }),
    );
    expect(res.body.paths['/health/ready']).toBeDefined();
  });
});
