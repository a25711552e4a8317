/**
 * Bulk onboarding: `POST /api/v1/admin/clients/import`, a CSV file of clients
 * in either dialect, checked whole with problems by row and column, a dry run unless
 * `dry_run=false`, then applied all or nothing and audited.
 */
import request from 'supertest';
import { createClient } from '../support/factories.js';
import { ADMIN_TOKEN, startTestApp, type TestApp } from '../support/test-app.js';

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp();
}, 60_000);

afterAll(async () => {
  await t?.close();
});

const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
const importFile = (csv: string | Buffer, query = '', type = 'text/csv') =>
  request(t.url)
    .post(`/api/v1/admin/clients/import${query}`)
    .set(admin)
    .set('content-type', type)
    .send(Buffer.isBuffer(csv) ? csv : Buffer.from(csv, 'utf8'));
const clientCount = async () => Number((await t.pool.query('SELECT count(*) FROM clients')).rows[0].count);

// French dialect as Excel saves it: BOM, semicolons, French headers, CRLF.
const FRENCH =
  '\ufeffraison sociale;e-mail;pays;offre;flux;IDU;langue;identifiant client\r\n' +
  'Vins du Sud SARL;contact@vins-du-sud.fr;FR;business;EMB;FR000001_01AAAA|FR000001_01BBBB;fr;vins-du-sud\r\n' +
  ';;;;;;;\r\n' +
  'Brasserie Nord;compta@brasserie-nord.fr;FR;business;EMB;;;\r\n';

describe('POST /api/v1/admin/clients/import', () => {
  it('is a dry run by default: it answers what would be created and creates nothing', async () => {
    const before = await clientCount();
    const res = await importFile(FRENCH);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      dry_run: true,
      count: 2,
      clients: [
        {
          row: 2,
          client_id: 'vins-du-sud',
          pending: {
            email: 'contact@vins-du-sud.fr',
            company: 'Vins du Sud SARL',
            country: 'FR',
            plan: 'business',
            streams: ['EMB'],
            idus: ['FR000001_01AAAA', 'FR000001_01BBBB'],
          },
          language: 'fr',
        },
        {
          row: 4,
          client_id: null,
          pending: {
            email: 'compta@brasserie-nord.fr',
            company: 'Brasserie Nord',
            country: 'FR',
            plan: 'business',
            streams: ['EMB'],
            idus: [],
          },
          language: 'fr',
        },
      ],
    });
    expect(await clientCount()).toBe(before);
    expect((await request(t.url).get('/api/v1/admin/clients/vins-du-sud').set(admin)).status).toBe(404);
    expect((await importFile(FRENCH, '?dry_run=true')).body.dry_run).toBe(true);
    expect(await clientCount()).toBe(before);
  });

  it('with dry_run=false creates every client of the file, pending, each audited as client.created from the import', async () => {
    const csv =
      'client_id,company,email,country,plan,streams,language\n' +
      'imp-alpha,Alpha SAS,alpha@example.fr,FR,business,EMB,en\n' +
      ',Beta SAS,beta@example.fr,FR,business,EMB,\n';
    const res = await importFile(csv, '?dry_run=false');
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ dry_run: false, count: 2 });
    const [alpha, beta] = res.body.clients;
    expect(alpha).toMatchObject({ row: 2, client_id: 'imp-alpha', language: 'en' });
    expect(beta.client_id).toMatch(/^cl_[a-z0-9]{20}$/);

    const got = await request(t.url).get('/api/v1/admin/clients/imp-alpha').set(admin);
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({
      pending: { company: 'Alpha SAS', email: 'alpha@example.fr', streams: ['EMB'] },
      confirmed_at: null,
      language: 'en',
    });
    expect((await request(t.url).get(`/api/v1/admin/clients/${beta.client_id}`).set(admin)).body.pending.company).toBe('Beta SAS');
    // Pending like after POST /admin/clients: the operator confirms each.
    expect((await request(t.url).post('/api/v1/admin/clients/imp-alpha/confirm').set(admin)).status).toBe(200);

    const audit = await t.pool.query(
      `SELECT client_id, changes FROM audit_events WHERE action = 'client.created' AND client_id = ANY($1) ORDER BY client_id`,
      [[alpha.client_id, beta.client_id]],
    );
    expect(audit.rows).toHaveLength(2);
    for (const row of audit.rows) expect(row.changes).toMatchObject({ source: 'import', company: { from: null } });
    expect(audit.rows.find((r) => r.client_id === 'imp-alpha').changes).toMatchObject({ row: 2, language: { from: null, to: 'en' } });
  });

  it('checks the whole file: every problem at its row and column, and nothing is created, applying or not', async () => {
    await createClient(t, { client_id: 'taken-id', company: 'Déjà Là SA', email: 'deja@la.fr' });
    const csv =
      'client_id;company;email;country;plan;streams;idus\r\n' +
      'ok-one;Un SAS;un@example.fr;FR;business;EMB;\r\n' + // 2: fine
      ';;pas-une-adresse;fr;gold;EMB|NOPE;\r\n' + // 3: company missing, e-mail, country, plan, stream
      'ok-one;Deux SAS;deux@example.fr;FR;business;EMB;\r\n' + // 4: id repeats row 2
      ';UN sas;UN@example.fr;FR;business;EMB;\r\n' + // 5: company and e-mail of row 2
      'taken-id;Autre;autre@example.fr;FR;business;EMB;\r\n' + // 6: id exists
      ';déjà là sa;Deja@la.fr;FR;business;EMB;\r\n' + // 7: an existing client's company and address
      'Bad Id;Trois;trois@example.fr;FR;business;EMB;\r\n'; // 8: id pattern
    const before = await clientCount();
    for (const query of ['', '?dry_run=false']) {
      const res = await importFile(csv, query);
      expect(res.status).toBe(422);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      const found = res.body.errors.map((e: { pointer: string; code: string }) => `${e.pointer} ${e.code}`);
      expect(found).toEqual([
        '/rows/3/email invalid_email',
        '/rows/3/country invalid_country_code',
        '/rows/3/company required',
        '/rows/3/plan unknown_plan',
        '/rows/3/streams unknown_stream',
        '/rows/4/client_id duplicate_client',
        '/rows/5/email duplicate_client',
        '/rows/6/client_id client_exists',
        '/rows/7/email client_exists',
        '/rows/8/client_id matches',
      ]);
      expect(res.body.errors.every((e: { row: number; detail: string }) => e.detail.startsWith(`row ${e.row}: `))).toBe(true);
      expect(await clientCount()).toBe(before);
    }
    expect((await request(t.url).get('/api/v1/admin/clients/ok-one').set(admin)).status).toBe(404);
  });

  it('refuses a file already imported (its clients exist)', async () => {
    const csv = 'client_id,company,email\nagain-1,Encore SAS,encore@example.fr\n';
    expect((await importFile(csv, '?dry_run=false')).status).toBe(201);
    const again = await importFile(csv, '?dry_run=false');
    expect(again.status).toBe(422);
    expect(again.body.errors.map((e: { pointer: string }) => e.pointer)).toEqual(['/rows/2/client_id', '/rows/2/email']);
  });

  it('is all or nothing: a row the database refuses at insert (a client created meanwhile) leaves no client and no entry (409)', async () => {
    // A unique violation on the third row, as when another request creates that client between the check and the insert.
    await t.pool.query(
      `CREATE FUNCTION taken_meanwhile() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE unique_violation USING MESSAGE = 'taken meanwhile'; END $$`,
    );
    await t.pool.query(
      `CREATE TRIGGER taken_meanwhile BEFORE INSERT ON clients FOR EACH ROW WHEN (NEW.client_id = 'whole-3') EXECUTE FUNCTION taken_meanwhile()`,
    );
    const before = await clientCount();
    let res;
    try {
      res = await importFile(
        'client_id,company,email\nwhole-1,Un SAS,un@example.fr\nwhole-2,Deux SAS,deux@example.fr\nwhole-3,Trois SAS,trois@example.fr\n',
        '?dry_run=false',
      );
    } finally {
      await t.pool.query('DROP TRIGGER taken_meanwhile ON clients');
      await t.pool.query('DROP FUNCTION taken_meanwhile()');
    }
    expect([res.status, res.body.code]).toEqual([409, 'conflict']);
    expect(await clientCount()).toBe(before);
    const entries = async () =>
      (await t.pool.query(`SELECT count(*)::int AS n FROM audit_events WHERE client_id LIKE 'whole-%'`)).rows[0].n;
    expect(await entries()).toBe(0);

    // A failure after the clients are inserted (the second row's audit entry): they go too.
    await t.pool.query(`CREATE FUNCTION refuse_entry() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE 'entry refused'; END $$`);
    await t.pool.query(
      `CREATE TRIGGER refuse_entry BEFORE INSERT ON audit_events FOR EACH ROW WHEN (NEW.client_id = 'whole-2') EXECUTE FUNCTION refuse_entry()`,
    );
    // (fetch: a 500 is outside the documented answers that supertest's responses are checked against.)
    let failed: Response;
    try {
      failed = await fetch(`${t.url}/api/v1/admin/clients/import?dry_run=false`, {
        method: 'POST',
        headers: { ...admin, 'content-type': 'text/csv' },
        body: 'client_id,company,email\nwhole-1,Un SAS,un@example.fr\nwhole-2,Deux SAS,deux@example.fr\n',
      });
    } finally {
      await t.pool.query('DROP TRIGGER refuse_entry ON audit_events');
      await t.pool.query('DROP FUNCTION refuse_entry()');
    }
    expect(failed.status).toBe(500);
    expect([await clientCount(), await entries()]).toEqual([before, 0]);
  });

  it('states its bounds: 1,000 clients, a header with known columns, a CSV body', async () => {
    const rows = Array.from({ length: 1001 }, (_, i) => `Société ${i},s${i}@example.fr`).join('\n');
    const big = await importFile(`company,email\n${rows}\n`);
    expect(big.status).toBe(422);
    expect(big.body.errors).toEqual([expect.objectContaining({ pointer: '/rows/1002', code: 'too_many_clients' })]);

    const empty = await importFile('company,email\n');
    expect(empty.status).toBe(422);
    expect(empty.body.errors).toEqual([expect.objectContaining({ pointer: '/rows', code: 'no_clients' })]);
    expect((await request(t.url).post('/api/v1/admin/clients/import').set(admin)).body.errors[0].code).toBe('invalid_csv_header');

    const unknown = await importFile('company,email,colour\nX,x@example.fr,blue\n');
    expect(unknown.status).toBe(422);
    expect(unknown.body.errors[0]).toMatchObject({ pointer: '/rows/1', code: 'unknown_column' });
    const missing = await importFile('company;pays\nX;FR\n');
    expect(missing.body.errors).toEqual([expect.objectContaining({ pointer: '/rows/1', code: 'missing_column' })]);

    const json = await importFile('{"company":"X"}', '', 'application/json');
    expect(json.status).toBe(415);
    expect(json.headers['accept-post']).toBe('text/csv');
    const flag = await importFile('company,email\nX,x@example.fr\n', '?dry_run=no');
    expect(flag.status).toBe(422);
    expect(flag.body.errors[0]).toMatchObject({ pointer: '/query/dry_run', code: 'invalid_boolean' });
    expect((await request(t.url).post('/api/v1/admin/clients/import').set('content-type', 'text/csv').send('company,email\n')).status).toBe(
      401,
    );
  });
});
