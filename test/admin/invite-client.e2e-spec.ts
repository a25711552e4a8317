/**
 * Inviting a client in one call: `POST /admin/clients` with `"confirm": true, "invite": true`
 * creates, confirms, records the streams' eco-organism and liability, and e-mails a 7-day sign-in
 * link in the client's language through the outbox to a real SMTP server started here; all or nothing.
 */
import type { ParsedMail } from 'mailparser';
import request from 'supertest';
import { DashboardClient } from '../support/dashboard-browser.js';
import { drainOutbox, FAST_MAIL_DELIVERY, type Mailbox, startMailbox } from '../support/mailbox.js';
import { ADMIN_TOKEN, startTestApp, type TestApp } from '../support/test-app.js';

let t: TestApp;
let noMail: TestApp;
let mailbox: Mailbox;
let inbox: ParsedMail[];

beforeAll(async () => {
  mailbox = await startMailbox();
  inbox = mailbox.inbox;
  t = await startTestApp({ env: { SMTP_URL: mailbox.url, MAIL_FROM: 'operator@epr.example.org' }, mailDelivery: FAST_MAIL_DELIVERY });
  noMail = await startTestApp();
}, 90_000);

afterAll(async () => {
  await t?.close();
  await noMail?.close();
  await mailbox?.close();
});

const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
const DAY = 24 * 3_600_000;
let sequence = 0;

/** A new client's body: a small French producer of household packaging. */
function body(extra: Record<string, unknown> = {}): Record<string, unknown> {
  sequence += 1;
  return {
    client_id: `invite-${sequence}-${Date.now()}`,
    email: `conformite.${sequence}.${Date.now()}@exemple.fr`,
    company: `Confiserie ${sequence} SAS`,
    country: 'FR',
    plan: 'starter',
    streams: ['EMB'],
    idus: ['FR000000_01ABCD'],
    ...extra,
  };
}

const invite = (app: TestApp, sent: Record<string, unknown>) => request(app.url).post('/api/v1/admin/clients').set(admin).send(sent);

/** Everything the service keeps about a client: none of it may exist after a refusal. */
async function traces(app: TestApp, clientId: string): Promise<Record<string, number>> {
  const count = async (sql: string) => ((await app.pool.query(sql, [clientId])).rows[0] as { n: number }).n;
  return {
    clients: await count('SELECT count(*)::int AS n FROM clients WHERE client_id = $1'),
    streams: await count('SELECT count(*)::int AS n FROM client_streams WHERE client_id = $1'),
    links: await count('SELECT count(*)::int AS n FROM sign_in_links WHERE client_id = $1'),
    mails: await count('SELECT count(*)::int AS n FROM mail_outbox WHERE client_id = $1'),
    audit: await count('SELECT count(*)::int AS n FROM audit_events WHERE client_id = $1'),
  };
}
const NOTHING = { clients: 0, streams: 0, links: 0, mails: 0, audit: 0 };

describe('inviting a client in one call', () => {
  it('creates, confirms, records the streams and e-mails a 7-day link in French that signs in; the answer says what was sent and until when', async () => {
    const sent = body({
      streams: [{ stream: 'emb', eco_organism: 'citeo', liable_from: '2026-S1' }],
      language: 'FR',
      confirm: true,
      invite: true,
    });
    const before = Date.now();
    const res = await invite(t, sent);
    expect(res.status).toBe(201);
    const clientId = sent.client_id as string;
    expect(res.headers.location).toBe(`/api/v1/admin/clients/${clientId}`);
    expect(res.body).toMatchObject({
      client_id: clientId,
      language: 'fr',
      confirmed: { email: sent.email, plan: 'starter', streams: ['EMB'] },
      unconfirmed_changes: false,
      streams: [
        {
          stream: 'EMB',
          confirmed: true,
          eco_organism: 'Citeo',
          liable_from_set: '2026-S1',
          liable_from: '2026-S1',
          href: `/api/v1/admin/clients/${clientId}/streams/EMB`,
        },
      ],
      invitation: { id: expect.any(String), sent_to: sent.email, language: 'fr', message_id: expect.any(String) },
    });
    expect(res.body.liability).toContain('EMB from 2026-S1');
    expect(res.body.liability).toContain(`PUT /api/v1/admin/clients/${clientId}/streams/{stream}`);
    expect(JSON.stringify(res.body)).not.toContain('eprl_');
    // 7 days, not the 15 minutes of a link a person asks for herself.
    const lasts = Date.parse(res.body.invitation.expires_at) - before;
    expect(lasts).toBeGreaterThan(7 * DAY - 60_000);
    expect(lasts).toBeLessThanOrEqual(7 * DAY + 60_000);

    await drainOutbox(t);
    const mail = inbox.find((m) => m.text?.includes(clientId))!;
    expect(mail).toBeDefined();
    expect(mail.subject).toBe(`Votre accès au tableau de bord des déclarations REP de ${sent.company as string}`);
    expect(mail.text).toContain('Bonjour');
    const url = /https?:\/\/\S+token=\S+/.exec(mail.text ?? '')![0];
    const messages = await request(t.url).get(`/api/v1/admin/clients/${clientId}/messages`).set(admin);
    expect(messages.body.data).toEqual([
      expect.objectContaining({ id: res.body.invitation.message_id, kind: 'invitation', state: 'sent' }),
    ]);
    const links = await request(t.url).get(`/api/v1/admin/clients/${clientId}/sign-in-links`).set(admin);
    expect(links.body).toEqual([expect.objectContaining({ id: res.body.invitation.id, expires_at: res.body.invitation.expires_at })]);
    expect((await new DashboardClient(t.url).signIn(url)).status).toBe(303);

    // Audited as the separate routes write it.
    const audit = await request(t.url).get(`/api/v1/admin/audit?client_id=${clientId}&limit=100`).set(admin);
    const actions = (audit.body.data as { action: string; changes: Record<string, unknown> }[]).map((e) => e.action).reverse();
    expect(actions.slice(0, 4)).toEqual(['client.created', 'client.confirmed', 'client.stream_updated', 'sign_in_link.issued']);
    const issued = audit.body.data.find((e: { action: string }) => e.action === 'sign_in_link.issued');
    expect(issued.changes).toMatchObject({ issued_via: 'operator', sent_to: sent.email, language: 'fr' });
    const stream = audit.body.data.find((e: { action: string }) => e.action === 'client.stream_updated');
    expect(stream.changes).toEqual({
      stream: 'EMB',
      eco_organism: { from: null, to: 'Citeo' },
      liable_from: { from: null, to: '2026-S1' },
    });
  });

  it('writes in English to a client whose language is English', async () => {
    const sent = body({ company: 'Sample Sweets Ltd', country: 'GB', streams: [{ stream: 'EMB', eco_organism: 'LEKO' }], language: 'en' });
    const res = await invite(t, { ...sent, confirm: true, invite: true });
    expect(res.status).toBe(201);
    expect(res.body.streams[0]).toMatchObject({ eco_organism: 'Léko', liable_from_set: null });
    expect(res.body.invitation.language).toBe('en');
    await drainOutbox(t);
    const mail = inbox.find((m) => m.text?.includes(sent.client_id as string))!;
    expect(mail.subject).toBe('Your access to the EPR declarations dashboard of Sample Sweets Ltd');
    expect(mail.text).toContain('Hello');
    expect((await new DashboardClient(t.url).signIn(/https?:\/\/\S+token=\S+/.exec(mail.text ?? '')![0])).status).toBe(303);
  });

  it('matches eco-organisms, plans, streams and languages without regard to case and accents, and answers them as published', async () => {
    for (const [organism, published] of [
      ['léko', 'Léko'],
      ['LEKO', 'Léko'],
      ['adelphe', 'Adelphe'],
    ] as const) {
      const sent = body({ plan: 'Starter', streams: [{ stream: 'Emb', eco_organism: organism }], language: 'En' });
      const res = await invite(t, sent);
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ pending: { plan: 'starter', streams: ['EMB'] }, language: 'en' });
      expect(res.body.streams).toEqual([expect.objectContaining({ stream: 'EMB', eco_organism: published, liable_from: null })]);
      // Not confirmed: liable from the half-year of its first confirmation, and the answer says how to change it.
      expect(res.body.liability).toMatch(/EMB from the half-year of its first confirmation \(\d{4}-S[12] if confirmed now\)/);
      expect(res.body.invitation).toBeNull();
    }
    // The operator's filters and the annual export read names the same way.
    const found = await request(t.url).get('/api/v1/admin/clients?eco_organism=LEKO&plan=STARTER&stream=emb').set(admin);
    expect(found.status).toBe(200);
    expect(found.body.data.length).toBeGreaterThanOrEqual(2);
    const annual = await request(t.url).get('/api/v1/admin/years/2026/export?eco_organism=leko').set(admin);
    expect(annual.status).toBe(200);
    expect(annual.body.eco_organism).toBe('Léko');
    // The stream's own route spells the same way.
    const { client_id } = body();
    await invite(t, { ...body(), client_id, confirm: true }).expect(201);
    const put = await request(t.url)
      .put(`/api/v1/admin/clients/${client_id as string}/streams/EMB`)
      .set(admin)
      .send({ eco_organism: 'CITÉO' });
    expect(put.status).toBe(200);
    expect(put.body.eco_organism).toBe('Citeo');
  });

  it('without SMTP, or without a confirmed address, is 409 and writes nothing', async () => {
    const withoutSmtp = body({ confirm: true, invite: true });
    const res = await invite(noMail, withoutSmtp);
    expect(res.status).toBe(409);
    expect(res.body.detail).toContain('SMTP_URL');
    expect(await traces(noMail, withoutSmtp.client_id as string)).toEqual(NOTHING);

    const unconfirmed = body({ invite: true });
    const refused = await invite(t, unconfirmed);
    expect(refused.status).toBe(409);
    expect(refused.body.detail).toContain('"confirm": true');
    expect(await traces(t, unconfirmed.client_id as string)).toEqual(NOTHING);

    // A profile that cannot be confirmed: 422 at the body's own pointers, nothing written.
    const incomplete = body({ country: null, confirm: true, invite: true });
    const unconfirmable = await invite(t, incomplete);
    expect(unconfirmable.status).toBe(422);
    expect(unconfirmable.body.errors).toEqual([expect.objectContaining({ pointer: '/country', code: 'required' })]);
    expect(await traces(t, incomplete.client_id as string)).toEqual(NOTHING);
  });

  it("an eco-organism the stream's published approval does not cover from its liable_from is 422 and writes nothing", async () => {
    // Citeo Pro's published approval for CHR starts on 14 March 2024: it covers 2024-S1, not 2023-S2.
    const early = body({
      plan: 'business',
      streams: ['EMB', { stream: 'CHR', eco_organism: 'citeo pro', liable_from: '2023-S2' }],
      confirm: true,
      invite: true,
    });
    const res = await invite(t, early);
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([expect.objectContaining({ pointer: '/streams/1/eco_organism', code: 'unknown_eco_organism' })]);
    expect(await traces(t, early.client_id as string)).toEqual(NOTHING);

    // A coordinating body is no eco-organism a producer joins; an unknown name neither.
    const wrong = body({ streams: [{ stream: 'EMB', eco_organism: 'ocapem' }, { stream: 'EMB_X' }], confirm: true, invite: true });
    const refused = await invite(t, wrong);
    expect(refused.status).toBe(422);
    expect(await traces(t, wrong.client_id as string)).toEqual(NOTHING);

    const covered = await invite(t, {
      ...early,
      client_id: `${early.client_id as string}-b`,
      streams: ['EMB', { stream: 'CHR', eco_organism: 'citeo pro', liable_from: '2024-S1' }],
    });
    expect(covered.status).toBe(201);
    expect(covered.body.streams).toEqual([
      expect.objectContaining({ stream: 'CHR', eco_organism: 'Citeo Pro', liable_from: '2024-S1' }),
      expect.objectContaining({ stream: 'EMB', eco_organism: null }),
    ]);
  });

  it('refuses a malformed stream item, liable_from or flag at its pointer', async () => {
    const res = await invite(t, body({ streams: [{ stream: 'EMB', liable_from: '2026-1', extra: 1 }, 5], confirm: 'yes', invite: 1 }));
    expect(res.status).toBe(422);
    const problems = (res.body.errors as { pointer: string; code: string }[]).map((e) => `${e.pointer} ${e.code}`);
    expect(problems).toEqual(
      expect.arrayContaining([
        '/streams/0/liable_from invalid_period_format',
        '/streams/0/extra unknown_field',
        '/confirm invalid_boolean',
        '/invite invalid_boolean',
      ]),
    );
    expect(problems.some((p) => p.startsWith('/streams/1 '))).toBe(true);
  });
});
