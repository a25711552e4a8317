/**
 * The mail outbox: no e-mail is sent inside a database transaction or a request. Against a real
 * SMTP server started here that waits seconds before each answer, invitations and a reminder run
 * answer at once while another client is served, no session of the service idles inside a
 * transaction, the mail arrives afterwards, and each message's delivery is visible to the operator.
 */
import request from 'supertest';
import { DataSource } from 'typeorm';
import { createClient, createClientWithToken } from '../support/factories.js';
import { DEFAULT_MAIL_DELIVERY } from '../../src/mail/mail-delivery.js';
import { drainOutbox, FAST_MAIL_DELIVERY, type Mailbox, startMailbox } from '../support/mailbox.js';
import { reportFigure } from '../support/spawned-app.js';
import {
  ADMIN_TOKEN,
  createTestDatabase,
  SERVER_DATABASE_URL,
  startTestApp,
  type TestApp,
  type TestDatabase,
} from '../support/test-app.js';

/** How long the slow server waits before each answer (greeting, MAIL FROM, RCPT TO, end of data): a message takes 4 times this. */
const SMTP_DELAY_MS = 3_000;
/**
 * What an answer that waits for no mail server takes at most, on a 2-core machine busy with other work: well
 * under the 12 s one message takes through the slow server, so an answer that waited for one cannot pass.
 */
const PROMPT_MS = 8_000;
/** Messages the sender takes at once. */
const FAST_MAIL_DELIVERY_BATCH = DEFAULT_MAIL_DELIVERY.batch;

let t: TestApp;
let mailbox: Mailbox;
const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };

beforeAll(async () => {
  mailbox = await startMailbox();
  t = await startTestApp({
    env: { SMTP_URL: mailbox.url, MAIL_FROM: 'operator@epr.example.org', CONTACT_EMAIL: 'contact@epr.example.org' },
    mailDelivery: FAST_MAIL_DELIVERY,
  });
}, 60_000);

afterAll(async () => {
  await t?.close();
  await mailbox?.close();
});

afterEach(() => {
  mailbox.delayMs = 0;
  mailbox.refuse = false;
});

const timed = async <T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> => {
  const start = performance.now();
  const value = await work();
  return { value, ms: performance.now() - start };
};

/**
 * Samples pg_stat_activity until stopped: the most sessions of the app (its application_name) seen
 * at once idle inside an open transaction for over a second (a transaction waiting on something
 * outside the database, e.g. a mail server). Only on a PostgreSQL server.
 */
function watchIdleInTransaction(): { stop(): Promise<number> } {
  let running = true;
  let most = 0;
  const loop = (async () => {
    while (running && SERVER_DATABASE_URL) {
      const { rows } = await t.pool.query(
        `SELECT count(*)::int AS n FROM pg_stat_activity
          WHERE datname = current_database() AND application_name = 'epr-declarations'
            AND state LIKE 'idle in transaction%' AND now() - state_change > interval '1 second'`,
      );
      most = Math.max(most, rows[0].n);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return most;
    },
  };
}

describe('a slow mail server holds no database connection and no request', () => {
  it('12 invitations at once answer promptly, another client is served meanwhile, no transaction waits, and every mail arrives', async () => {
    const clients = await Promise.all(Array.from({ length: 12 }, (_, i) => createClient(t, { email: `invite.${i}@exemple.fr` })));
    const other = await createClientWithToken(t);
    mailbox.delayMs = SMTP_DELAY_MS;
    const watch = watchIdleInTransaction();
    const invitations = await Promise.all(
      clients.map(({ clientId }) =>
        timed(() => request(t.url).post(`/api/v1/admin/clients/${clientId}/sign-in-links`).set(admin).send({ send: true })),
      ),
    );
    const meanwhile = await timed(() => request(t.url).get('/api/v1/declarations').set('authorization', `Bearer ${other.token}`));
    expect(invitations.map(({ value }) => value.status)).toEqual(Array(12).fill(201));
    expect(Math.max(...invitations.map(({ ms }) => ms))).toBeLessThan(PROMPT_MS);
    expect(meanwhile.value.status).toBe(200);
    expect(meanwhile.ms).toBeLessThan(PROMPT_MS);

    // While queued, the text (with the link's secret) is not in the database in clear.
    const token = new URL(invitations[0]!.value.body.url).searchParams.get('token')!;
    const { rows: stored } = await t.pool.query(
      `SELECT count(*)::int AS n FROM mail_outbox WHERE position(convert_to($1, 'UTF8') IN body) > 0 OR position(convert_to('eprl_', 'UTF8') IN body) > 0`,
      [token],
    );
    expect(stored[0].n).toBe(0);

    await drainOutbox(t, 120_000);
    expect(await watch.stop()).toBe(0);
    // The backstop: on a server, PostgreSQL ends a session of the service idle in a transaction for 30 s (not on the embedded one).
    const [setting] = await t.app.get(DataSource).query('SHOW idle_in_transaction_session_timeout');
    expect(setting.idle_in_transaction_session_timeout).toBe(SERVER_DATABASE_URL ? '30s' : '0');
    for (const { clientId } of clients) expect(mailbox.inbox.some((mail) => mail.text?.includes(clientId))).toBe(true);
    expect(mailbox.inbox.find((mail) => mail.text?.includes(token))).toBeDefined();
    // Sent: the text is gone from the outbox.
    const { rows } = await t.pool.query(`SELECT count(*)::int AS n FROM mail_outbox WHERE body IS NOT NULL`);
    expect(rows[0].n).toBe(0);
  }, 180_000);

  it('a reminder run for 200 clients answers at once and the reminders are sent in the background', async () => {
    const header = 'company,email,country,plan,streams,client_id\n';
    const csv =
      header + Array.from({ length: 200 }, (_, i) => `Rappel ${i} SAS,rappel.${i}@exemple.fr,FR,business,EMB,rappel-${i}\n`).join('');
    const imported = await request(t.url)
      .post('/api/v1/admin/clients/import?dry_run=false')
      .set(admin)
      .set('content-type', 'text/csv')
      .send(Buffer.from(csv));
    expect(imported.status).toBe(201);
    for (let i = 0; i < 200; i += 10) {
      await Promise.all(
        Array.from({ length: 10 }, (_, j) =>
          request(t.url)
            .post(`/api/v1/admin/clients/rappel-${i + j}/confirm`)
            .set(admin)
            .send({})
            .expect(200),
        ),
      );
    }
    // Liable for 2025-S2 (confirmed before it ended, as far as the reminders can tell).
    await t.pool.query(`UPDATE clients SET first_confirmed_at = '2025-01-01T00:00:00Z' WHERE client_id LIKE 'rappel-%'`);

    mailbox.delayMs = SMTP_DELAY_MS;
    const before = mailbox.inbox.length;
    const watch = watchIdleInTransaction();
    const run = await timed(() => request(t.url).post('/api/v1/admin/reminders?dry_run=false').set(admin).send({ period: '2025-S2' }));
    expect(run.value.status).toBe(200);
    expect(run.value.body.queued).toBeGreaterThanOrEqual(200);
    // 200 messages through this server take 200 × 4 × 3 s / 5 at a time = 8 minutes; the answer, seconds (a minute at most when busy).
    expect(run.ms).toBeLessThan(60_000);
    reportFigure(`reminder run of ${run.value.body.queued} clients answered in ${Math.round(run.ms)} ms`);
    expect(await watch.stop()).toBe(0);

    mailbox.delayMs = 0;
    await drainOutbox(t, 120_000);
    expect(mailbox.inbox.length - before).toBeGreaterThanOrEqual(200);
    const messages = await request(t.url).get('/api/v1/admin/clients/rappel-7/messages').set(admin);
    expect(messages.body.data).toEqual([expect.objectContaining({ kind: 'reminder', state: 'sent', to: 'rappel.7@exemple.fr' })]);
  }, 240_000);
});

describe('a queued invitation whose link is voided before it goes', () => {
  it('is not sent: its link never reaches the mailbox, and the operator sees why', async () => {
    const busy = await Promise.all(Array.from({ length: FAST_MAIL_DELIVERY_BATCH }, () => createClient(t)));
    const { clientId } = await createClient(t, { email: 'ancienne.adresse@exemple.fr' });
    // The sender is busy with a batch of slow messages: the next one waits for it.
    mailbox.delayMs = SMTP_DELAY_MS;
    for (const other of busy) {
      await request(t.url).post(`/api/v1/admin/clients/${other.clientId}/sign-in-links`).set(admin).send({ send: true }).expect(201);
    }
    const link = await request(t.url).post(`/api/v1/admin/clients/${clientId}/sign-in-links`).set(admin).send({ send: true });
    expect(link.status).toBe(201);
    await request(t.url).delete(`/api/v1/admin/clients/${clientId}/sign-in-links/${link.body.id}`).set(admin).expect(204);
    await drainOutbox(t, 60_000);
    const token = new URL(link.body.url).searchParams.get('token')!;
    expect(mailbox.inbox.some((mail) => mail.text?.includes(token))).toBe(false);
    const messages = await request(t.url).get(`/api/v1/admin/clients/${clientId}/messages`).set(admin);
    expect(messages.body.data).toEqual([
      expect.objectContaining({ state: 'failed', last_error: 'not sent: the sign-in link it carries was revoked, used or has expired' }),
    ]);
  }, 90_000);
});

(SERVER_DATABASE_URL ? describe : describe.skip)('two replicas on one database', () => {
  let db: TestDatabase;
  let replicas: TestApp[] = [];
  let shared: Mailbox;
  beforeAll(async () => {
    shared = await startMailbox();
    db = await createTestDatabase();
    const env = { SMTP_URL: shared.url };
    replicas = [await startTestApp({ database: db, env, mailDelivery: FAST_MAIL_DELIVERY })];
    replicas.push(await startTestApp({ database: db, env: { ...env, MIGRATIONS_RUN: 'false' }, mailDelivery: FAST_MAIL_DELIVERY }));
  }, 60_000);
  afterAll(async () => {
    for (const replica of replicas.reverse()) await replica.close({ keepDatabase: true });
    await db?.close();
    await shared?.close();
  });

  it('deliver each message once (rows claimed with FOR UPDATE SKIP LOCKED), whichever queued it', async () => {
    const [a, b] = replicas as [TestApp, TestApp];
    const clients = await Promise.all(Array.from({ length: 20 }, () => createClient(a)));
    shared.delayMs = 200;
    const links = await Promise.all(
      clients.map(({ clientId }, i) =>
        request((i % 2 ? b : a).url)
          .post(`/api/v1/admin/clients/${clientId}/sign-in-links`)
          .set(admin)
          .send({ send: true })
          .expect(201),
      ),
    );
    await drainOutbox(a, 60_000);
    expect(shared.inbox).toHaveLength(20);
    for (const link of links) {
      const token = new URL(link.body.url).searchParams.get('token')!;
      expect(shared.inbox.filter((mail) => mail.text?.includes(token))).toHaveLength(1);
    }
    const { rows } = await a.pool.query(`SELECT count(*)::int AS n FROM mail_outbox WHERE state = 'sent' AND attempts = 1`);
    expect(rows[0].n).toBe(20);
  }, 90_000);
});

describe('GET /api/v1/admin/clients/{client_id}/messages', () => {
  it('lists a client’s e-mails newest first, paged, with their state and never their text; a failure is retried, then given up', async () => {
    const { clientId } = await createClient(t, { email: 'suivi@exemple.fr', company: 'Suivi SAS' });
    const sent = await request(t.url).post(`/api/v1/admin/clients/${clientId}/sign-in-links`).set(admin).send({ send: true });
    await drainOutbox(t);
    mailbox.refuse = true;
    const refused = await request(t.url).post(`/api/v1/admin/clients/${clientId}/sign-in-links`).set(admin).send({ send: true });
    await drainOutbox(t);
    mailbox.refuse = false;

    const first = await request(t.url).get(`/api/v1/admin/clients/${clientId}/messages?limit=1`).set(admin);
    expect(first.status).toBe(200);
    expect(first.headers['cache-control']).toBe('no-store');
    expect(first.body.data).toEqual([
      {
        id: refused.body.message_id,
        kind: 'invitation',
        to: 'suivi@exemple.fr',
        subject: 'Votre accès au tableau de bord des déclarations REP de Suivi SAS',
        language: 'fr',
        state: 'failed',
        attempts: FAST_MAIL_DELIVERY.maxAttempts,
        last_error: expect.stringContaining('mailbox unavailable'),
        created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/),
        next_attempt_at: null,
        sent_at: null,
      },
    ]);
    expect(first.body.has_more).toBe(true);
    const second = await request(t.url)
      .get(`/api/v1/admin/clients/${clientId}/messages?limit=1&cursor=${first.body.next_cursor}`)
      .set(admin);
    expect(second.body).toMatchObject({ has_more: false, next_cursor: null });
    expect(second.body.data).toEqual([
      expect.objectContaining({ id: sent.body.message_id, state: 'sent', attempts: 1, last_error: null, sent_at: expect.any(String) }),
    ]);
    expect(JSON.stringify([first.body, second.body])).not.toContain('eprl_');

    expect((await request(t.url).get('/api/v1/admin/clients/no-such-client/messages').set(admin)).status).toBe(404);
    expect((await request(t.url).get(`/api/v1/admin/clients/${clientId}/messages?cursor=nope`).set(admin)).status).toBe(400);
    expect((await request(t.url).get(`/api/v1/admin/clients/${clientId}/messages?limit=0`).set(admin)).status).toBe(422);
    const client = await createClientWithToken(t);
    expect(
      (await request(t.url).get(`/api/v1/admin/clients/${client.clientId}/messages`).set('authorization', `Bearer ${client.token}`)).status,
    ).toBe(403);
  });
});
