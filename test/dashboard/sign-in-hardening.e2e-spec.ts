/**
 * E-mail sign-in, hardened, against a real SMTP server started here
 * whose behaviour each test sets: the link goes only to the stored confirmed address, addresses are
 * compared with ASCII case folding and non-ASCII look-alikes are refused, one mail limit per stored
 * address and a daily one per client, anonymous requests audited as what they are, recipients never
 * in the logs, and the answer waits for neither the database lookup nor the SMTP server.
 */
import { simpleParser, type ParsedMail } from 'mailparser';
import pg from 'pg';
import request from 'supertest';
import { SMTPServer } from 'smtp-server';
import { SIGN_IN_EMAILS_PER_DAY } from '../../src/auth/sign-in-links/sign-in-links.service.js';
import { DashboardClient } from '../support/dashboard-browser.js';
import { createClient } from '../support/factories.js';
import { withinOneWindow } from '../support/rate-window.js';
import { ADMIN_TOKEN, freePort, startTestApp, type TestApp } from '../support/test-app.js';

interface Received {
  mail: ParsedMail;
  /** The envelope's recipients: where the server was asked to deliver. */
  rcptTo: string[];
}

let t: TestApp;
let smtp: SMTPServer;
const inbox: Received[] = [];
/** Recipients the server refuses (as a real one quotes them: `550 5.1.1 <address>: …`). */
const refused = new Set<string>();
/** While set, the server holds every message before answering its DATA. */
let hold: Promise<void> | undefined;
let sequence = 0;

beforeAll(async () => {
  const port = await freePort();
  smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onRcptTo(address, _session, callback) {
      if (!refused.has(address.address)) return callback();
      const error = new Error(`5.1.1 <${address.address}>: Recipient address rejected: User unknown in virtual mailbox table`) as Error & {
        responseCode: number;
      };
      error.responseCode = 550;
      callback(error);
    },
    onData(stream, session, callback) {
      const rcptTo = session.envelope.rcptTo.map((r) => r.address);
      simpleParser(stream)
        .then(async (mail) => {
          await hold;
          inbox.push({ mail, rcptTo });
        })
        .then(() => callback(), callback);
    },
  });
  await new Promise<void>((resolve) => smtp.listen(port, '127.0.0.1', resolve));
  t = await startTestApp({
    env: { SMTP_URL: `smtp://127.0.0.1:${port}`, MAIL_FROM: 'dashboard@epr.example.org', RATE_LIMIT_SIGN_IN_EMAILS_PER_MINUTE: '2' },
  });
}, 60_000);

afterAll(async () => {
  hold = undefined;
  await t?.close();
  await new Promise<void>((resolve) => (smtp ? smtp.close(() => resolve()) : resolve()));
});

const waitFor = async (predicate: () => boolean, ms = 20_000) => {
  for (let waited = 0; !predicate() && waited < ms; waited += 50) await new Promise((r) => setTimeout(r, 50));
};
const settle = () => new Promise((r) => setTimeout(r, 500));
/** A fresh confirmed address per test (the domain too: nothing shared with another test's mail). */
const address = (local = 'compliance') => `${local}@kiwi-${++sequence}-${Date.now().toString(36)}.fr`;
const mailsOf = (clientId: string) => inbox.filter((r) => r.mail.text?.includes(clientId));
const askFor = (email: string) => new DashboardClient(t.url).post('/dashboard/sign-in', { email });
const mainOf = (html: string, email: string) => html.slice(html.indexOf('<main'), html.indexOf('</main>')).replaceAll(email, '<email>');
const audit = async (clientId: string, action = 'sign_in_link.issued') =>
  (await request(t.url).get(`/api/v1/admin/audit?client_id=${clientId}&action=${action}`).set('authorization', `Bearer ${ADMIN_TOKEN}`))
    .body.data as Array<Record<string, unknown>>;

describe('where the link goes', () => {
  it('a look-alike of a client’s address (İ for i) is refused on the page: no link, no mail, to either address', async () => {
    const email = address();
    const { clientId } = await createClient(t, { email });
    const lookAlike = email.replace('kiwi', 'kİwi');
    const res = await askFor(lookAlike);
    expect(res.status).toBe(422);
    expect(res.html).toContain('id="email-error"');
    expect(res.html).toContain('with Latin letters');
    for (const other of [`${email}\u200b`, email.replace('c', 'с'), email.replace('@', '\uff20'), email.replace('.fr', '.fr\u00a0x')])
      expect((await askFor(other)).status).toBe(422);
    await settle();
    expect(mailsOf(clientId)).toEqual([]);
    expect((await t.pool.query(`SELECT count(*)::int AS n FROM sign_in_links WHERE client_id = $1`, [clientId])).rows[0].n).toBe(0);
  });

  it('mails the link to the address as stored, never as typed (A–Z folded: a different case still finds it)', async () => {
    const email = address('Compliance.Team');
    const { clientId } = await createClient(t, { email });
    const typed = email.toUpperCase();
    expect((await askFor(typed)).status).toBe(200);
    await waitFor(() => mailsOf(clientId).length > 0);
    const [received] = mailsOf(clientId);
    expect(received!.rcptTo).toEqual([email]);
    expect(received!.mail.to && 'text' in received!.mail.to ? received!.mail.to.text : '').toBe(email);
    // The e-mail states how long the link works, in the client's language (French unless the operator set another).
    expect(received!.mail.text).toContain('pendant 15 minutes');
    expect(received!.mail.text).not.toContain('within 15 minutes');
  });

  it('one mail limit per stored address, each mail counted: three clients of one address get two links a minute', async () => {
    // The limit counts in minute windows on the clock: an attempt that crosses one proves nothing, and is made again with a new address.
    await withinOneWindow(async () => {
      const email = address();
      const clients = [
        await createClient(t, { email }),
        await createClient(t, { email: email.toUpperCase() }),
        await createClient(t, { email }),
      ];
      expect((await askFor(email)).status).toBe(200);
      await waitFor(() => clients.filter((c) => mailsOf(c.clientId).length > 0).length >= 2);
      await settle();
      expect(inbox.filter((r) => r.rcptTo.some((to) => to.toLowerCase() === email)).length).toBe(2);
      // The address typed in another case is the same address: no more mail this minute.
      expect((await askFor(email.toUpperCase())).status).toBe(200);
      await settle();
      expect(inbox.filter((r) => r.rcptTo.some((to) => to.toLowerCase() === email)).length).toBe(2);
    });
  });
});

describe('the audit trail of anonymous requests', () => {
  it('a mailed link is recorded as an anonymous request, not as the client; unknown addresses record nothing', async () => {
    const email = address();
    const { clientId } = await createClient(t, { email });
    const before = Number((await t.pool.query('SELECT count(*) FROM audit_events')).rows[0].count);
    for (let i = 0; i < 5; i++) expect((await askFor(address('nobody'))).status).toBe(200);
    await settle();
    expect(Number((await t.pool.query('SELECT count(*) FROM audit_events')).rows[0].count)).toBe(before);
    await askFor(email);
    await waitFor(() => mailsOf(clientId).length > 0);
    const [entry] = await audit(clientId);
    expect(entry).toMatchObject({
      actor: { type: 'anonymous', operator_token_id: null, name: 'sign-in e-mail request' },
      client_id: clientId,
      changes: expect.objectContaining({ issued_via: 'email' }),
    });
    expect(JSON.stringify(entry)).not.toContain(email);
  });

  it(`at most ${SIGN_IN_EMAILS_PER_DAY} links a day per client, whoever asks: past it no link, no mail, no audit entry`, async () => {
    const email = address();
    const { clientId } = await createClient(t, { email });
    // Nine links mailed earlier today (the per-minute limit is the other bound), then one more asked for.
    await t.pool.query(
      `INSERT INTO sign_in_links (client_id, token_hash, issued_via, created_at, expires_at)
       SELECT $1, md5(random()::text) || md5(random()::text), 'email', now() - interval '23 hours', now() - interval '22 hours' FROM generate_series(1, $2::int)`,
      [clientId, SIGN_IN_EMAILS_PER_DAY - 1],
    );
    await askFor(email);
    await waitFor(() => mailsOf(clientId).length > 0);
    expect(mailsOf(clientId)).toHaveLength(1);
    expect(await audit(clientId)).toHaveLength(1);
    await askFor(email);
    await settle();
    expect(mailsOf(clientId)).toHaveLength(1);
    expect(await audit(clientId)).toHaveLength(1);
    const { rows } = await t.pool.query(`SELECT count(*)::int AS n FROM sign_in_links WHERE client_id = $1`, [clientId]);
    expect(rows[0].n).toBe(SIGN_IN_EMAILS_PER_DAY);
  });
});

describe('logs', () => {
  it('an SMTP server refusing the recipient: the error is logged (and kept in the outbox), the address is not', async () => {
    const email = address('refused.person');
    refused.add(email);
    const { clientId } = await createClient(t, { email });
    await askFor(email);
    await waitFor(() => t.logs.some((line) => line.includes('mail not sent, will retry')));
    const errors = t.logs.filter((line) => line.includes('mail not sent, will retry'));
    expect(errors.length).toBeGreaterThan(0);
    expect(errors.join('\n')).toContain('Recipient address rejected');
    const logs = t.logs.join('\n').toLowerCase();
    expect(logs).not.toContain(email.toLowerCase());
    expect(logs).not.toContain(email.split('@')[1]!.toLowerCase());
    expect(mailsOf(clientId)).toEqual([]);
    const { rows } = await t.pool.query(`SELECT last_error FROM mail_outbox WHERE client_id = $1`, [clientId]);
    expect(rows[0].last_error).toContain('Recipient address rejected');
    expect(rows[0].last_error).not.toContain(email.split('@')[1]!.toLowerCase());
  });
});

describe('the answer waits for nothing', () => {
  it('while the SMTP server holds every message, a known and an unknown address get the same answer, before any mail is delivered', async () => {
    const email = address();
    const { clientId } = await createClient(t, { email });
    let release!: () => void;
    hold = new Promise<void>((resolve) => (release = resolve));
    try {
      const nobody = address('nobody');
      const known = await askFor(email);
      const unknown = await askFor(nobody);
      expect([known.status, unknown.status]).toEqual([200, 200]);
      expect(mainOf(known.html, email)).toBe(mainOf(unknown.html, nobody));
      await settle();
      expect(mailsOf(clientId)).toEqual([]);
    } finally {
      release();
      hold = undefined;
    }
    await waitFor(() => mailsOf(clientId).length > 0);
    expect(mailsOf(clientId)).toHaveLength(1);
  });

  it('while the clients table is locked (the lookup cannot run), the page answers; the mail goes once the lookup can run', async () => {
    // Only a server lets one connection wait on a lock while others run.
    if (!process.env.DATABASE_URL) return;
    const email = address();
    const { clientId } = await createClient(t, { email });
    const locker = new pg.Client({ connectionString: t.config.databaseUrl });
    locker.on('error', () => {});
    await locker.connect();
    try {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE clients IN ACCESS EXCLUSIVE MODE');
      const res = await askFor(email);
      expect(res.status).toBe(200);
      expect(res.html).toContain('a sign-in link is on its way');
      await settle();
      expect(mailsOf(clientId)).toEqual([]);
      await locker.query('COMMIT');
    } finally {
      await locker.end();
    }
    await waitFor(() => mailsOf(clientId).length > 0);
    expect(mailsOf(clientId)).toHaveLength(1);
  });
});
