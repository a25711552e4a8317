/**
 * Behaviours of the web layer that a plausible bug could break unnoticed ("tests that
 * bite"): each test here fails if its behaviour is lost. The e-mail sign-in's answer, the minutes
 * in its mail, `@` in the period export and the 1 MiB chunked body are in sign-in-hardening,
 * period-export and body-bounds.
 */
import request from 'supertest';
import { csrfOf, DashboardClient, formRows, signedIn, signInLink } from '../support/dashboard-browser.js';
import { createClient, createClientWithToken } from '../support/factories.js';
import { ADMIN_TOKEN, startTestApp, type TestApp } from '../support/test-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
}, 60_000);
afterAll(async () => {
  await t?.close();
});

const admin = () => ({ authorization: `Bearer ${ADMIN_TOKEN}` });

/** Every route under /dashboard the HTTP server serves (`METHOD /path`), from its router: a new page is walked too. */
function dashboardRoutes(): string[] {
  const { stack } = (
    t.app.getHttpAdapter().getInstance() as { router: { stack: Array<{ route?: { path: string; methods: Record<string, boolean> } }> } }
  ).router;
  return stack.flatMap(({ route }) =>
    route?.path.startsWith('/dashboard')
      ? Object.keys(route.methods)
          .filter((method) => method !== '_all')
          .map((method) => `${method.toUpperCase()} ${route.path}`)
      : [],
  );
}
const count = async (sql: string, params: unknown[] = []) => (await t.pool.query(sql, params)).rows[0].n as number;
const declarationsOf = (clientId: string) => count(`SELECT count(*)::int AS n FROM declarations WHERE client_id = $1`, [clientId]);
const cookieHeader = (browser: DashboardClient) => [...browser.cookies].map(([name, value]) => `${name}=${value}`).join('; ');

/** A form's lines as the dashboard posts them: a row per material, each column a repeated field. */
const linesForm = (lines: Array<[string, string, string, string]>) => formRows(lines);
const pairs = (n: number): Array<[string, string, string, string]> =>
  Array.from({ length: n }, (_, i) => ['EMB', `Matériau ${i >> 1}`, i % 2 ? 'uvc' : 'kg', '1']);

describe('CSRF', () => {
  it('the spreadsheet upload (multipart) without its _csrf field: 403, nothing stored', async () => {
    const { clientId } = await createClient(t);
    // A browser that states no language and chose none: the account's, French.
    const browser = await signedIn(t, clientId, null);
    await browser.get('/dashboard/tokens');
    const form = new FormData();
    form.append('period', '2025-S1');
    form.append('file', new Blob(['stream,material,unit,quantity\nEMB,Verre,kg,1\nEMB,Verre,uvc,1\n'], { type: 'text/csv' }), 'ok.csv');
    const res = await fetch(`${t.url}/dashboard/declarations/upload`, {
      method: 'POST',
      body: form,
      headers: { cookie: cookieHeader(browser) },
      redirect: 'manual',
    });
    expect(res.status).toBe(403);
    // No Accept-Language, no choice: the page is in the account's language, French.
    expect(await res.text()).toContain('Le formulaire a expiré');
    expect(await declarationsOf(clientId)).toBe(0);
    // The same upload with its token is stored.
    const ok = await browser.upload(
      '/dashboard/declarations/upload',
      { period: '2025-S1' },
      { name: 'ok.csv', content: 'stream,material,unit,quantity\nEMB,Verre,kg,1\nEMB,Verre,uvc,1\n' },
    );
    expect(ok.status).toBe(200);
    expect((await browser.declare(ok, 'Claire Martin')).status).toBe(303);
    expect(await declarationsOf(clientId)).toBe(1);
  });

  it('a token is bound to its session, not to its client: an earlier session’s token and cookie fail in a later session of the same client', async () => {
    const { clientId } = await createClient(t);
    const browser = await signedIn(t, clientId);
    const earlier = csrfOf((await browser.get('/dashboard/tokens')).html);
    const earlierCookie = browser.cookies.get('epr_csrf')!;
    // The same person signs in again (a new session of the same client) in the same browser.
    await browser.signIn((await signInLink(t, clientId)).url);
    expect((await browser.get('/dashboard')).status).toBe(200);
    browser.cookies.set('epr_csrf', earlierCookie);
    const res = await browser.post('/dashboard/tokens', { name: 'with an old token' }, { csrf: earlier });
    expect(res.status).toBe(403);
    expect(await count(`SELECT count(*)::int AS n FROM client_tokens WHERE client_id = $1`, [clientId])).toBe(0);
  });
});

describe('sessions', () => {
  it('the idle timeout slides: each request moves it, so an active person is not signed out 30 minutes after sign-in', async () => {
    const { clientId } = await createClient(t);
    const browser = await signedIn(t, clientId);
    // Signed in 40 minutes ago, last seen 29 minutes ago: still live; this request is seen now.
    await t.pool.query(
      `UPDATE dashboard_sessions SET created_at = now() - interval '40 minutes', last_seen_at = now() - interval '29 minutes' WHERE client_id = $1`,
      [clientId],
    );
    expect((await browser.get('/dashboard')).status).toBe(200);
    // Three more minutes pass (32 since the last-but-one request, 3 since the last).
    await t.pool.query(`UPDATE dashboard_sessions SET last_seen_at = last_seen_at - interval '3 minutes' WHERE client_id = $1`, [clientId]);
    expect((await browser.get('/dashboard')).status).toBe(200);
  });

  it('signing in deletes the month-old links and sessions of the signing-in client only', async () => {
    const { clientId } = await createClient(t);
    const { clientId: other } = await createClient(t);
    for (const id of [clientId, other]) {
      await signedIn(t, id);
      await t.pool.query(`UPDATE sign_in_links SET expires_at = now() - interval '31 days' WHERE client_id = $1`, [id]);
      await t.pool.query(`UPDATE dashboard_sessions SET expires_at = now() - interval '31 days' WHERE client_id = $1`, [id]);
    }
    await signedIn(t, clientId);
    const left = async (id: string) => ({
      links: await count(`SELECT count(*)::int AS n FROM sign_in_links WHERE client_id = $1`, [id]),
      sessions: await count(`SELECT count(*)::int AS n FROM dashboard_sessions WHERE client_id = $1`, [id]),
    });
    expect(await left(clientId)).toEqual({ links: 1, sessions: 1 });
    expect(await left(other)).toEqual({ links: 1, sessions: 1 });
  });
});

describe('audit entries in the write’s own transaction: a failure after the entry is written leaves neither', () => {
  /** Makes the transaction that writes `event` on `table` fail at its commit, after every statement of it (the audit entry's included) has run. */
  const failAtCommit = async (table: string, event: 'INSERT' | 'UPDATE') => {
    await t.pool.query(
      `CREATE OR REPLACE FUNCTION fail_at_commit() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE 'refused at commit'; END $$`,
    );
    await t.pool.query(
      `CREATE CONSTRAINT TRIGGER fail_at_commit AFTER ${event} ON ${table} DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION fail_at_commit()`,
    );
    return async () => {
      await t.pool.query(`DROP TRIGGER IF EXISTS fail_at_commit ON ${table}`);
      await t.pool.query('DROP FUNCTION IF EXISTS fail_at_commit()');
    };
  };
  const entries = (action: string, targetId?: string) =>
    count(`SELECT count(*)::int AS n FROM audit_events WHERE action = $1 AND ($2::text IS NULL OR target_id = $2)`, [
      action,
      targetId ?? null,
    ]);

  it('session.started: no session, no entry, the link not spent', async () => {
    const { clientId } = await createClient(t);
    const link = await signInLink(t, clientId);
    const started = await count(`SELECT count(*)::int AS n FROM audit_events WHERE action = 'session.started' AND client_id = $1`, [
      clientId,
    ]);
    const restore = await failAtCommit('dashboard_sessions', 'INSERT');
    try {
      expect((await new DashboardClient(t.url).signIn(link.url)).status).toBe(500);
    } finally {
      await restore();
    }
    expect(await count(`SELECT count(*)::int AS n FROM dashboard_sessions WHERE client_id = $1`, [clientId])).toBe(0);
    expect(await count(`SELECT count(*)::int AS n FROM audit_events WHERE action = 'session.started' AND client_id = $1`, [clientId])).toBe(
      started,
    );
    expect((await t.pool.query(`SELECT used_at FROM sign_in_links WHERE id = $1`, [link.id])).rows[0].used_at).toBeNull();
    expect((await new DashboardClient(t.url).signIn(link.url)).status).toBe(303);
  });

  it('declaration.submitted: no revision and no entry when the filing fails at its commit; no revision when the entry fails', async () => {
    const { clientId, token } = await createClientWithToken(t);
    const file = () =>
      fetch(`${t.url}/api/v1/declarations`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          period: '2025-S1',
          lines: [
            { stream: 'EMB', material: 'Verre', unit: 'kg', quantity: 1 },
            { stream: 'EMB', material: 'Verre', unit: 'uvc', quantity: 1 },
          ],
        }),
      });
    const submitted = () =>
      count(`SELECT count(*)::int AS n FROM audit_events WHERE action = 'declaration.submitted' AND client_id = $1`, [clientId]);
    // After every statement of the filing, the audit entry's included: the whole transaction goes.
    let restore = await failAtCommit('declarations', 'INSERT');
    try {
      expect((await file()).status).toBe(500);
    } finally {
      await restore();
    }
    expect([await declarationsOf(clientId), await submitted()]).toEqual([0, 0]);
    // The entry refused as it is written: the revision goes with it (an entry written after the commit would leave it).
    await t.pool.query(
      `CREATE OR REPLACE FUNCTION refuse_entry() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE 'entry refused'; END $$`,
    );
    await t.pool.query(
      `CREATE TRIGGER refuse_entry BEFORE INSERT ON audit_events FOR EACH ROW WHEN (NEW.action = 'declaration.submitted') EXECUTE FUNCTION refuse_entry()`,
    );
    restore = async () => {
      await t.pool.query('DROP TRIGGER IF EXISTS refuse_entry ON audit_events');
      await t.pool.query('DROP FUNCTION IF EXISTS refuse_entry()');
    };
    try {
      expect((await file()).status).toBe(500);
    } finally {
      await restore();
    }
    expect([await declarationsOf(clientId), await submitted()]).toEqual([0, 0]);
    expect((await file()).status).toBe(201);
    expect([await declarationsOf(clientId), await submitted()]).toEqual([1, 1]);
  });

  it('operator_token.revoked: no entry, and the token still works', async () => {
    const created = await request(t.url).post('/api/v1/admin/operator-tokens').set(admin()).send({ name: 'Revoked in vain' });
    const restore = await failAtCommit('operator_tokens', 'UPDATE');
    try {
      const res = await fetch(`${t.url}/api/v1/admin/operator-tokens/${created.body.id}`, { method: 'DELETE', headers: admin() });
      expect(res.status).toBe(500);
    } finally {
      await restore();
    }
    expect(await entries('operator_token.revoked', created.body.id)).toBe(0);
    expect((await t.pool.query(`SELECT revoked_at FROM operator_tokens WHERE id = $1`, [created.body.id])).rows[0].revoked_at).toBeNull();
    expect((await request(t.url).get('/api/v1/admin/clients').set('authorization', `Bearer ${created.body.token}`)).status).toBe(200);
  });
});

describe('public pages', () => {
  it('the sign-in page and the link page (which holds the link’s secret and a CSRF token) are Cache-Control: no-store', async () => {
    const { clientId } = await createClient(t);
    const link = new URL((await signInLink(t, clientId)).url);
    for (const path of ['/dashboard/sign-in', `${link.pathname}${link.search}`, '/dashboard/sign-in/link']) {
      const res = await fetch(`${t.url}${path}`, { redirect: 'manual' });
      expect([path, res.status, res.headers.get('cache-control')]).toEqual([path, 200, 'no-store']);
    }
  });
});

describe('authenticated downloads and pages', () => {
  it('every file behind a session, a client token or the operator credential is Cache-Control: no-store', async () => {
    const { clientId, token } = await createClientWithToken(t);
    const filed = await request(t.url)
      .post('/api/v1/declarations')
      .set('authorization', `Bearer ${token}`)
      .send({
        period: '2025-S1',
        lines: [
          { stream: 'EMB', material: 'Verre', unit: 'kg', quantity: 1 },
          { stream: 'EMB', material: 'Verre', unit: 'uvc', quantity: 1 },
        ],
      });
    expect(filed.status).toBe(201);
    const id = filed.body.id as string;
    const browser = await signedIn(t, clientId);
    const downloads: Array<[string, Record<string, string>]> = [
      ['/dashboard/declarations/template.csv', { cookie: cookieHeader(browser) }],
      [`/dashboard/declarations/${id}/csv`, { cookie: cookieHeader(browser) }],
      [`/api/v1/declarations/${id}.csv`, { authorization: `Bearer ${token}` }],
      [`/api/v1/declarations/${id}`, { authorization: `Bearer ${token}`, accept: 'text/csv' }],
      ['/api/v1/admin/periods/2025-S1/export.csv', admin()],
      ['/api/v1/admin/periods/2025-S1/export', admin()],
      ['/api/v1/admin/years/2025/export.csv', admin()],
      ['/api/v1/admin/years/2025/export', admin()],
    ];
    for (const [path, headers] of downloads) {
      const res = await fetch(`${t.url}${path}`, { headers, redirect: 'manual' });
      await res.arrayBuffer();
      expect([path, res.status, res.headers.get('cache-control')]).toEqual([path, 200, 'no-store']);
    }
  });

  it("every dashboard page forbids framing (CSP frame-ancestors 'none'), signed in or not, found or not", async () => {
    const { clientId } = await createClientWithToken(t);
    const browser = await signedIn(t, clientId);
    const pages = dashboardRoutes()
      .filter((route) => route.startsWith('GET '))
      .map((route) => route.slice(4).replace(/:(\w+)/g, '00000000-0000-4000-8000-000000000000'));
    expect(pages).toEqual(expect.arrayContaining(['/dashboard', '/dashboard/tokens', '/dashboard/sign-in']));
    let html = 0;
    for (const path of [...pages, '/dashboard/no-such-page']) {
      for (const who of [browser, new DashboardClient(t.url)]) {
        const res = await who.get(path);
        if (!res.headers.get('content-type')?.startsWith('text/html')) continue;
        html += 1;
        expect([path, res.headers.get('content-security-policy')]).toEqual([path, expect.stringContaining("frame-ancestors 'none'")]);
      }
    }
    expect(html).toBeGreaterThan(pages.length);
  });
});

describe('the declaration form', () => {
  it('holds 100 rows (200 lines of kg and UVC) at most: "Add a line" stops there, and 101 rows are refused whole, not cut short', async () => {
    const { clientId } = await createClient(t);
    const browser = await signedIn(t, clientId);
    const added = await browser.post('/dashboard/declarations', { period: '2025-S1', ...linesForm(pairs(198)), action: 'add' });
    expect(added.status).toBe(200);
    expect(added.html).toContain('id="row-99"');
    const full = await browser.post('/dashboard/declarations', { period: '2025-S1', ...linesForm(pairs(200)), action: 'add' });
    expect(full.html).toContain('id="row-99"');
    expect(full.html).not.toContain('id="row-100"');
    expect(full.html).toContain('The form holds at most 100 lines');
    const over = await browser.post('/dashboard/declarations', { period: '2025-S1', ...linesForm(pairs(202)), action: 'submit' });
    expect(over.status).toBe(422);
    expect(over.html).toContain('The form holds at most 100 lines');
    expect(await declarationsOf(clientId)).toBe(0);
    const largest = await browser.post('/dashboard/declarations', { period: '2025-S1', ...linesForm(pairs(200)), action: 'submit' });
    expect(largest.status).toBe(200);
    expect((await browser.declare(largest, 'Claire Martin')).status).toBe(303);
    expect(
      await count(
        `SELECT count(*)::int AS n FROM declaration_lines l JOIN declarations d ON d.id = l.declaration_id WHERE d.client_id = $1`,
        [clientId],
      ),
    ).toBe(200);
  });

  it('a problem points at the form’s own line when blank lines come before it', async () => {
    const { clientId } = await createClient(t);
    const browser = await signedIn(t, clientId);
    const res = await browser.post('/dashboard/declarations', {
      period: '2025-S1',
      ...linesForm([
        ['', '', '', ''],
        ['', '', '', ''],
        ['EMB', 'Verre', 'kg', 'abc'],
        ['EMB', 'Verre', 'uvc', '2'],
      ]),
      action: 'submit',
    });
    expect(res.status).toBe(422);
    expect(res.html).toContain('id="quantity_kg-2-error"');
    expect(res.html).toContain('<a href="#quantity_kg-2">Line 3, quantity (kg):');
    expect(res.html).not.toContain('id="quantity_kg-0-error"');
  });

  it('a single-value field sent twice: the last value counts (the form, and the upload’s period)', async () => {
    const { clientId } = await createClient(t);
    const browser = await signedIn(t, clientId);
    const body = new URLSearchParams([
      ['period', '2024-S1'],
      ['period', '2025-S1'],
    ]);
    for (const [name, values] of Object.entries(linesForm(pairs(2)))) for (const value of values) body.append(name, value);
    body.append('action', 'submit');
    body.append('_csrf', await browser.csrfFor('/dashboard/declarations'));
    const res = await fetch(`${t.url}/dashboard/declarations`, {
      method: 'POST',
      body,
      headers: { cookie: cookieHeader(browser), 'content-type': 'application/x-www-form-urlencoded' },
      redirect: 'manual',
    });
    // The check page of the last period sent.
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('<dd>2025-S1</dd>');

    const form = new FormData();
    form.append('_csrf', await browser.csrfFor('/dashboard/declarations'));
    form.append('period', '2023-S1');
    form.append('period', '2023-S2');
    form.append('file', new Blob(['stream,material,unit,quantity\nEMB,Verre,kg,1\nEMB,Verre,uvc,1\n'], { type: 'text/csv' }), 'x.csv');
    const upload = await fetch(`${t.url}/dashboard/declarations/upload`, {
      method: 'POST',
      body: form,
      headers: { cookie: cookieHeader(browser) },
      redirect: 'manual',
    });
    expect(upload.status).toBe(200);
    expect(await upload.text()).toContain('<dd>2023-S2</dd>');
    expect(await declarationsOf(clientId)).toBe(0);
  });

  it('one file per upload: two files are refused (400 page), nothing stored', async () => {
    const { clientId } = await createClient(t);
    const browser = await signedIn(t, clientId, null);
    const form = new FormData();
    form.append('_csrf', await browser.csrfFor('/dashboard/declarations'));
    form.append('period', '2025-S1');
    for (const name of ['a.csv', 'b.csv'])
      form.append('file', new Blob(['stream,material,unit,quantity\nEMB,Verre,kg,1\nEMB,Verre,uvc,1\n'], { type: 'text/csv' }), name);
    const res = await fetch(`${t.url}/dashboard/declarations/upload`, {
      method: 'POST',
      body: form,
      headers: { cookie: cookieHeader(browser) },
      redirect: 'manual',
    });
    expect([res.status, res.headers.get('content-type')]).toEqual([400, 'text/html; charset=utf-8']);
    expect(await res.text()).toContain('La demande n’a pas pu être lue');
    expect(await declarationsOf(clientId)).toBe(0);
  });

  it('a form holds at most 20 fields of 16 KiB each: one field more, or one byte more, is refused (400 page), not cut', async () => {
    const { clientId } = await createClient(t);
    const browser = await signedIn(t, clientId, 'fr');
    const csrf = await browser.csrfFor('/dashboard/declarations');
    const upload = async (extra: Array<[string, string]>) => {
      const form = new FormData();
      form.append('_csrf', csrf);
      form.append('period', '2025-S1');
      for (const [name, value] of extra) form.append(name, value);
      form.append('file', new Blob(['stream,material,unit,quantity\nEMB,Verre,kg,1\nEMB,Verre,uvc,1\n'], { type: 'text/csv' }), 'ok.csv');
      const res = await fetch(`${t.url}/dashboard/declarations/upload`, {
        method: 'POST',
        body: form,
        headers: { cookie: cookieHeader(browser) },
        redirect: 'manual',
      });
      return { status: res.status, html: await res.text() };
    };
    const notes = (n: number): Array<[string, string]> => Array.from({ length: n }, (_, i) => [`note${i}`, 'x']);
    // 18 more fields make 20 with _csrf and period, and 21 parts with the file: the most a form may hold.
    expect((await upload(notes(18))).status).toBe(200);
    expect((await upload([['note', 'x'.repeat(16 * 1024)]])).status).toBe(200);
    for (const extra of [notes(19), [['note', 'x'.repeat(16 * 1024 + 1)] as [string, string]]]) {
      const res = await upload(extra);
      expect(res.status).toBe(400);
      expect(res.html).toContain('La demande n’a pas pu être lue');
    }
    expect(await declarationsOf(clientId)).toBe(0);
  });
});

describe('the audit listing', () => {
  it('`to` is an exclusive bound: an entry at that very instant is left out, one a microsecond earlier is in', async () => {
    const { clientId } = await createClient(t, {}, { confirm: false });
    const [entry] = (await request(t.url).get(`/api/v1/admin/audit?client_id=${clientId}`).set(admin())).body.data;
    const at: string = entry.occurred_at;
    const list = async (query: string) =>
      (await request(t.url).get(`/api/v1/admin/audit?client_id=${clientId}&${query}`).set(admin())).body.data.map(
        (e: { id: string }) => e.id,
      );
    expect(await list(`to=${encodeURIComponent(at)}`)).toEqual([]);
    // One microsecond later, exactly (the listing shows microseconds).
    const micros = BigInt(Date.parse(`${at.slice(0, 19)}Z`)) * 1000n + BigInt(at.slice(20, 26)) + 1n;
    const after = `${new Date(Number(micros / 1_000_000n) * 1000).toISOString().slice(0, 19)}.${(micros % 1_000_000n).toString().padStart(6, '0')}Z`;
    expect(await list(`to=${encodeURIComponent(after)}`)).toEqual([entry.id]);
    expect(await list(`from=${encodeURIComponent(at)}`)).toEqual([entry.id]);
    expect(await list(`from=${encodeURIComponent(after)}`)).toEqual([]);
  });
});
