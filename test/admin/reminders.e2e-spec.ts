/**
 * Reminders: `POST /api/v1/admin/reminders` for an ended half-year lists the
 * clients liable and not declared (a dry run by default); applying e-mails each, in its language,
 * what is missing and a fresh sign-in link, through a real SMTP server started here; one reminder
 * per client and half-year unless `force`; every sending audited; without SMTP, applying is refused.
 */
import type { ParsedMail } from 'mailparser';
import { drainOutbox, FAST_MAIL_DELIVERY, type Mailbox, startMailbox } from '../support/mailbox.js';
import request from 'supertest';
import { DashboardClient } from '../support/dashboard-browser.js';
import { createClient, createClientWithToken } from '../support/factories.js';
import { ADMIN_TOKEN, startTestApp, type TestApp } from '../support/test-app.js';

let t: TestApp;
let mailbox: Mailbox;
let inbox: ParsedMail[];

beforeAll(async () => {
  mailbox = await startMailbox();
  inbox = mailbox.inbox;
  t = await startTestApp({ env: { SMTP_URL: mailbox.url, MAIL_FROM: 'operator@epr.example.org' }, mailDelivery: FAST_MAIL_DELIVERY });
}, 60_000);

afterAll(async () => {
  await t?.close();
  await mailbox?.close();
});

const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
const PERIOD = '2025-S2';
const remind = (body: object, query = '') => request(t.url).post(`/api/v1/admin/reminders${query}`).set(admin).send(body);
const liableFrom = (clientId: string, period: string) =>
  request(t.url).put(`/api/v1/admin/clients/${clientId}/streams/EMB`).set(admin).send({ liable_from: period });
const recipient = (mail: ParsedMail) => (mail.to && 'text' in mail.to ? mail.to.text : '').toLowerCase();
const count = async (sql: string, params: unknown[] = []) => Number((await t.pool.query(sql, params)).rows[0].n);

let fr: string;
let en: string;

beforeAll(async () => {
  // Liable for 2025-S2 and not declared: one writes in French, one in English.
  fr = (await createClient(t, { client_id: 'rappel-fr', company: 'Conserverie Exemple SAS', email: 'conformite@conserverie.fr' })).clientId;
  en = (await createClient(t, { client_id: 'reminder-en', company: 'Sample Foods Ltd', email: 'compliance@sample.co.uk' })).clientId;
  await request(t.url).patch(`/api/v1/admin/clients/${en}`).set(admin).send({ language: 'en' }).expect(200);
  for (const id of [fr, en]) await liableFrom(id, '2025-S1').expect(200);
  // Liable and declared: left out.
  const declared = await createClientWithToken(t, { client_id: 'deja-declare' });
  await liableFrom(declared.clientId, '2025-S1').expect(200);
  await request(t.url)
    .post('/api/v1/declarations')
    .set('authorization', `Bearer ${declared.token}`)
    .send({
      period: PERIOD,
      lines: [
        { stream: 'EMB', material: 'glass', unit: 'kg', quantity: 10 },
        { stream: 'EMB', material: 'glass', unit: 'uvc', quantity: 40 },
      ],
    })
    .expect(201);
  // Liable from a later half-year (confirmed today, no liable_from): left out.
  await createClient(t, { client_id: 'nouveau-client' });
  // Liable but suspended: left out (its people cannot sign in).
  const suspended = (await createClient(t, { client_id: 'suspendu' })).clientId;
  await liableFrom(suspended, '2025-S1').expect(200);
  await request(t.url).post(`/api/v1/admin/clients/${suspended}/suspend`).set(admin).send({}).expect(200);
}, 60_000);

describe('POST /api/v1/admin/reminders', () => {
  it('is a dry run by default: who would get what, and nothing is sent or recorded', async () => {
    const links = await count('SELECT count(*) AS n FROM sign_in_links');
    const res = await remind({ period: PERIOD });
    expect(res.status).toBe(200);
    const missing = [{ stream: 'EMB', name: { fr: 'Emballages ménagers', en: 'Household packaging' }, due_date: '2026-02-28' }];
    expect(res.body).toEqual({
      period: PERIOD,
      dry_run: true,
      queued: 0,
      reminders: [
        {
          client_id: 'rappel-fr',
          company: 'Conserverie Exemple SAS',
          email: 'conformite@conserverie.fr',
          language: 'fr',
          missing,
          last_reminded_at: null,
          outcome: 'would_send',
        },
        {
          client_id: 'reminder-en',
          company: 'Sample Foods Ltd',
          email: 'compliance@sample.co.uk',
          language: 'en',
          missing,
          last_reminded_at: null,
          outcome: 'would_send',
        },
      ],
    });
    expect(inbox).toHaveLength(0);
    expect(await count('SELECT count(*) AS n FROM reminders')).toBe(0);
    expect(await count('SELECT count(*) AS n FROM sign_in_links')).toBe(links);
    expect(await count(`SELECT count(*) AS n FROM audit_events WHERE action = 'reminder.sent'`)).toBe(0);
  });

  it('applied, e-mails each client in its language what is missing and a sign-in link; each sending audited', async () => {
    const res = await remind({ period: PERIOD }, '?dry_run=false');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ dry_run: false, queued: 2 });
    expect(res.body.reminders.map((r: { outcome: string }) => r.outcome)).toEqual(['queued', 'queued']);
    await drainOutbox(t);
    expect(inbox.map(recipient).sort()).toEqual(['compliance@sample.co.uk', 'conformite@conserverie.fr']);

    const french = inbox.find((m) => recipient(m) === 'conformite@conserverie.fr')!;
    expect(french.subject).toBe(
      'Rappel\u00a0: déclaration REP de Conserverie Exemple SAS pour le second semestre 2025, à déposer au plus tard le 28 février 2026',
    );
    expect(french.text).toContain('Bonjour');
    expect(french.text).toContain(
      'n’a pas encore déposé sa déclaration des emballages mis sur le marché au second semestre 2025 (2025-S2)',
    );
    expect(french.text).toMatch(/- Emballages ménagers \(EMB\)\u00a0: à déclarer au plus tard le 28 février 2026/);
    const english = inbox.find((m) => recipient(m) === 'compliance@sample.co.uk')!;
    expect(english.subject).toBe('Reminder: the EPR declaration of Sample Foods Ltd for the second half of 2025, due by 28 February 2026');
    expect(english.text).toContain(
      'has not yet filed its declaration of packaging placed on the market in the second half of 2025 (2025-S2)',
    );
    expect(english.text).toMatch(/- Household packaging \(EMB\): to file by 28 February 2026/);

    // A fresh single-use link, lasting 7 days, that signs the client in.
    const url = /https?:\/\/\S+\/dashboard\/sign-in\/link\?token=eprl_\S+/.exec(french.text!)![0];
    const { rows: links } = await t.pool.query(`SELECT expires_at FROM sign_in_links WHERE client_id = $1`, [fr]);
    expect(links).toHaveLength(1);
    expect(Date.parse(links[0].expires_at) - Date.now()).toBeGreaterThan(7 * 24 * 3_600_000 - 120_000);
    expect((await new DashboardClient(t.url).signIn(url)).status).toBe(303);

    const audit = await request(t.url).get(`/api/v1/admin/audit?client_id=${fr}&action=reminder.sent`).set(admin);
    expect(audit.body.data).toHaveLength(1);
    expect(audit.body.data[0].changes).toMatchObject({
      period: PERIOD,
      missing: ['EMB'],
      sent_to: 'conformite@conserverie.fr',
      language: 'fr',
      forced: false,
    });
    expect(JSON.stringify(audit.body)).not.toContain('eprl_');
  });

  it('sends one reminder per client and half-year, unless the operator insists', async () => {
    const before = inbox.length;
    const again = await remind({ period: PERIOD }, '?dry_run=false');
    expect(again.status).toBe(200);
    expect(again.body.queued).toBe(0);
    expect(again.body.reminders.map((r: { outcome: string }) => r.outcome)).toEqual(['already_reminded', 'already_reminded']);
    expect(again.body.reminders[0].last_reminded_at).toEqual(expect.any(String));
    expect(inbox.length).toBe(before);
    expect((await remind({ period: PERIOD })).body.reminders[1].outcome).toBe('already_reminded');

    const forced = await remind({ period: PERIOD, force: true }, '?dry_run=false');
    expect(forced.body.queued).toBe(2);
    await drainOutbox(t);
    expect(inbox.length).toBe(before + 2);
    expect(await count(`SELECT count(*) AS n FROM reminders WHERE client_id = $1 AND period = $2`, [fr, PERIOD])).toBe(2);
    expect(await count(`SELECT count(*) AS n FROM audit_events WHERE action = 'reminder.sent' AND changes->>'forced' = 'true'`)).toBe(2);

    // Another half-year is another deadline (and the client that declared 2025-S2 has not declared 2025-S1).
    const earlier = await remind({ period: '2025-S1' });
    expect(earlier.body.reminders.map((r: { client_id: string; outcome: string }) => `${r.client_id} ${r.outcome}`)).toEqual([
      'deja-declare would_send',
      'rappel-fr would_send',
      'reminder-en would_send',
    ]);
  });

  it('a reminder the mail server keeps refusing is given up, visibly, and its link voided: applying again sends it', async () => {
    mailbox.refuse = true;
    let res;
    try {
      res = await remind({ period: '2025-S1' }, '?dry_run=false');
      expect(res.status).toBe(200);
      expect(res.body.reminders.map((r: { outcome: string }) => r.outcome)).toEqual(['queued', 'queued', 'queued']);
      await drainOutbox(t);
    } finally {
      mailbox.refuse = false;
    }
    const messages = await request(t.url).get(`/api/v1/admin/clients/${fr}/messages`).set(admin);
    expect(messages.body.data[0]).toMatchObject({ kind: 'reminder', state: 'failed', attempts: FAST_MAIL_DELIVERY.maxAttempts });
    expect(messages.body.data[0].last_error).toContain('mailbox unavailable');
    // The links of the reminders given up no longer work.
    expect(await count(`SELECT count(*) AS n FROM mail_outbox WHERE state = 'failed'`)).toBe(3);
    expect(
      await count(
        `SELECT count(*) AS n FROM mail_outbox m JOIN sign_in_links l ON l.id = m.sign_in_link_id WHERE m.state = 'failed' AND l.revoked_at IS NULL`,
      ),
    ).toBe(0);
    const again = await remind({ period: '2025-S1' }, '?dry_run=false');
    expect(again.body.queued).toBe(3);
    await drainOutbox(t);
    expect((await request(t.url).get(`/api/v1/admin/clients/${fr}/messages`).set(admin)).body.data[0]).toMatchObject({
      kind: 'reminder',
      state: 'sent',
      attempts: 1,
    });
  });

  it('refuses a half-year not ended or not written as one, and a wrong flag', async () => {
    const open = await remind({ period: '2099-S2' });
    expect(open.status).toBe(422);
    expect(open.body.errors).toEqual([expect.objectContaining({ pointer: '/period', code: 'period_not_ended' })]);
    expect((await remind({ period: '2025-s2' })).body.errors).toEqual([expect.objectContaining({ pointer: '/period', code: 'matches' })]);
    expect((await remind({})).body.errors).toEqual([expect.objectContaining({ pointer: '/period', code: 'required' })]);
    expect((await remind({ period: PERIOD, force: 'yes' })).body.errors).toEqual([
      expect.objectContaining({ pointer: '/force', code: 'invalid_boolean' }),
    ]);
    expect((await remind({ period: PERIOD }, '?dry_run=0')).body.errors).toEqual([
      expect.objectContaining({ pointer: '/query/dry_run', code: 'invalid_boolean' }),
    ]);
    expect((await request(t.url).post('/api/v1/admin/reminders').send({ period: PERIOD })).status).toBe(401);
  });

  // (After the tests above: the clients made here are liable too.)
  it('a declaration of the sandbox (a test token) does not stand for the live one: the client is still reminded', async () => {
    const { clientId } = await createClient(t, { client_id: 'bac-a-sable' });
    await liableFrom(clientId, '2025-S1').expect(200);
    const testToken = await request(t.url).post(`/api/v1/admin/clients/${clientId}/tokens`).set(admin).send({ mode: 'test' });
    expect([testToken.status, testToken.body.mode]).toEqual([201, 'test']);
    await request(t.url)
      .post('/api/v1/declarations')
      .set('authorization', `Bearer ${testToken.body.token}`)
      .send({
        period: PERIOD,
        lines: [
          { stream: 'EMB', material: 'glass', unit: 'kg', quantity: 10 },
          { stream: 'EMB', material: 'glass', unit: 'uvc', quantity: 40 },
        ],
      })
      .expect(201);
    const res = await remind({ period: PERIOD });
    expect(res.body.reminders.find((r: { client_id: string }) => r.client_id === clientId)).toMatchObject({
      outcome: 'would_send',
      missing: [expect.objectContaining({ stream: 'EMB' })],
    });
  });

  it('a client first confirmed at 23:59:59 on 30 June in Paris is liable for that half-year; one at midnight, from the next', async () => {
    const late = (await createClient(t, { client_id: 'trente-juin' })).clientId;
    const next = (await createClient(t, { client_id: 'premier-juillet' })).clientId;
    // 30 June 2025, 23:59:59 and 1 July, 00:00:00 in Paris (UTC+2 in summer).
    await t.pool.query(`UPDATE clients SET first_confirmed_at = '2025-06-30T21:59:59.999Z' WHERE client_id = $1`, [late]);
    await t.pool.query(`UPDATE clients SET first_confirmed_at = '2025-06-30T22:00:00Z' WHERE client_id = $1`, [next]);
    const listed = async (period: string) =>
      (await remind({ period })).body.reminders
        .map((r: { client_id: string }) => r.client_id)
        .filter((id: string) => id === late || id === next);
    expect(await listed('2025-S1')).toEqual([late]);
    expect((await listed('2025-S2')).sort()).toEqual([next, late].sort());
  });
});

describe('reminders without SMTP', () => {
  let bare: TestApp;
  beforeAll(async () => {
    bare = await startTestApp();
  }, 60_000);
  afterAll(async () => {
    await bare?.close();
  });

  it('the dry run works; applying is refused with a clear problem and sends nothing', async () => {
    const { clientId } = await createClient(bare, { client_id: 'sans-smtp' });
    await request(bare.url).put(`/api/v1/admin/clients/${clientId}/streams/EMB`).set(admin).send({ liable_from: '2025-S1' }).expect(200);
    const dry = await request(bare.url).post('/api/v1/admin/reminders').set(admin).send({ period: PERIOD });
    expect(dry.status).toBe(200);
    expect(dry.body.reminders.map((r: { client_id: string }) => r.client_id)).toEqual(['sans-smtp']);
    const applied = await request(bare.url).post('/api/v1/admin/reminders?dry_run=false').set(admin).send({ period: PERIOD });
    expect(applied.status).toBe(409);
    expect(applied.body.detail).toContain('SMTP_URL is not configured');
    expect(Number((await bare.pool.query('SELECT count(*) AS n FROM reminders')).rows[0].n)).toBe(0);
  });
});
