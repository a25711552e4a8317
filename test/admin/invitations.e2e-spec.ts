/**
 * Invitations: sign-in links that last up to 7 days, sent by the service to the
 * client's confirmed address through a real SMTP server started here (after the answer, through the
 * mail outbox); listed and revoked.
 */
import type { ParsedMail } from 'mailparser';
import { drainOutbox, FAST_MAIL_DELIVERY, type Mailbox, startMailbox } from '../support/mailbox.js';
import request from 'supertest';
import { DashboardClient } from '../support/dashboard-browser.js';
import { createClient } from '../support/factories.js';
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
const links = (clientId: string) => `/api/v1/admin/clients/${clientId}/sign-in-links`;
const create = (clientId: string, body?: object) => {
  const req = request(t.url).post(links(clientId)).set(admin);
  return body === undefined ? req : req.send(body);
};

describe('invitations: longer sign-in links, sent by the service', () => {
  it("a link lasts what the operator asks, up to 7 days; without a body it is an invitation's 7 days", async () => {
    const { clientId } = await createClient(t);
    const before = Date.now();
    const plain = await create(clientId);
    expect(plain.status).toBe(201);
    const byDefault = Date.parse(plain.body.expires_at) - before;
    expect(byDefault).toBeGreaterThan(7 * 24 * 3_600_000 - 60_000);
    expect(byDefault).toBeLessThanOrEqual(7 * 24 * 3_600_000 + 60_000);
    expect(plain.body.sent_to).toBeUndefined();
    const hour = await create(clientId, { expires_in_minutes: 60 });
    expect(Date.parse(hour.body.expires_at) - Date.now()).toBeLessThanOrEqual(60 * 60_000);

    const week = await create(clientId, { expires_in_minutes: 7 * 24 * 60 });
    expect(week.status).toBe(201);
    const lasts = Date.parse(week.body.expires_at) - Date.now();
    expect(lasts).toBeGreaterThan(7 * 24 * 3_600_000 - 60_000);
    expect(lasts).toBeLessThanOrEqual(7 * 24 * 3_600_000);

    for (const wrong of [0, 7 * 24 * 60 + 1, 1.5, '60']) {
      const res = await create(clientId, { expires_in_minutes: wrong });
      expect(res.status).toBe(422);
      expect(res.body.errors).toEqual([expect.objectContaining({ pointer: '/expires_in_minutes', code: 'link_lifetime_out_of_range' })]);
    }
    expect((await create(clientId, { send: 'yes' })).body.errors[0]).toMatchObject({ pointer: '/send', code: 'invalid_boolean' });

    // Still single use, still through the confirmation page.
    const browser = new DashboardClient(t.url);
    const page = await browser.get(new URL(week.body.url).pathname + new URL(week.body.url).search);
    expect(page.status).toBe(200);
    expect((await browser.signIn(week.body.url)).status).toBe(303);
    expect((await new DashboardClient(t.url).signIn(week.body.url)).status).toBe(400);
  });

  it('sends it to the confirmed address, in French, and the audit trail records it', async () => {
    const email = `invite.${Date.now()}@example.fr`;
    const { clientId } = await createClient(t, { email, company: 'Biscuiterie Exemple SAS' });
    const res = await create(clientId, { expires_in_minutes: 3 * 24 * 60, send: true });
    expect(res.status).toBe(201);
    expect(res.body.sent_to).toBe(email);
    expect(res.body.message_id).toEqual(expect.any(String));
    await drainOutbox(t);
    const mail = inbox.find((m) => m.text?.includes(clientId))!;
    expect(mail).toBeDefined();
    expect((mail.to && 'text' in mail.to ? mail.to.text : '').toLowerCase()).toBe(email.toLowerCase());
    expect(mail.subject).toBe('Votre accès au tableau de bord des déclarations REP de Biscuiterie Exemple SAS');
    expect(mail.text).toContain(res.body.url);
    expect(mail.text).toContain('Bonjour');
    expect(mail.text).toContain('déclarations semestrielles');
    const audit = await request(t.url).get(`/api/v1/admin/audit?client_id=${clientId}&action=sign_in_link.issued`).set(admin);
    expect(audit.body.data[0].changes).toMatchObject({ issued_via: 'operator', sent_to: email, language: 'fr' });
    expect(JSON.stringify(audit.body)).not.toContain(new URL(res.body.url).searchParams.get('token'));
    // The link of the mail signs in.
    expect((await new DashboardClient(t.url).signIn(res.body.url)).status).toBe(303);
  });

  it('writes to a client whose language is English in English', async () => {
    const { clientId } = await createClient(t, { company: 'Sample Foods Ltd' });
    await request(t.url).patch(`/api/v1/admin/clients/${clientId}`).set(admin).send({ language: 'en' }).expect(200);
    const res = await create(clientId, { send: true });
    expect(res.status).toBe(201);
    await drainOutbox(t);
    const mail = inbox.find((m) => m.text?.includes(clientId))!;
    expect(mail.subject).toBe('Your access to the EPR declarations dashboard of Sample Foods Ltd');
    expect(mail.text).toContain('Hello');
    const audit = await request(t.url).get(`/api/v1/admin/audit?client_id=${clientId}&action=sign_in_link.issued`).set(admin);
    expect(audit.body.data[0].changes).toMatchObject({ sent_to: res.body.sent_to, language: 'en' });
  });

  it('will not send to a client without a confirmed address; a mail the server keeps refusing is tried again, then given up, and its link voided', async () => {
    const { clientId } = await createClient(t, {}, { confirm: false });
    const unconfirmed = await create(clientId, { send: true });
    expect(unconfirmed.status).toBe(409);
    expect(unconfirmed.body.detail).toContain('confirmed e-mail address');

    const confirmed = await createClient(t);
    mailbox.refuse = true;
    let failed;
    try {
      failed = await create(confirmed.clientId, { send: true });
      expect(failed.status).toBe(201);
      await drainOutbox(t);
    } finally {
      mailbox.refuse = false;
    }
    const messages = await request(t.url).get(`/api/v1/admin/clients/${confirmed.clientId}/messages`).set(admin);
    expect(messages.status).toBe(200);
    expect(messages.body.data).toEqual([
      expect.objectContaining({
        id: failed.body.message_id,
        kind: 'invitation',
        state: 'failed',
        attempts: FAST_MAIL_DELIVERY.maxAttempts,
      }),
    ]);
    expect(messages.body.data[0].last_error).toContain('mailbox unavailable');
    // Nobody got the link: it is no longer outstanding, and does not sign in.
    expect((await request(t.url).get(links(confirmed.clientId)).set(admin)).body).toEqual([]);
    expect((await new DashboardClient(t.url).signIn(failed.body.url)).status).toBe(400);
    const { rows } = await t.pool.query('SELECT body FROM mail_outbox WHERE id = $1', [failed.body.message_id]);
    expect(rows).toEqual([{ body: null }]);
  });

  it('lists a client’s outstanding links and revokes one: it stops working at once', async () => {
    const { clientId } = await createClient(t);
    const first = await create(clientId, { expires_in_minutes: 60 });
    const second = await create(clientId, { expires_in_minutes: 120 });
    const used = await create(clientId);
    expect((await new DashboardClient(t.url).signIn(used.body.url)).status).toBe(303);

    const listed = await request(t.url).get(links(clientId)).set(admin);
    expect(listed.status).toBe(200);
    expect(listed.body.map((l: { id: string }) => l.id)).toEqual([second.body.id, first.body.id]);
    expect(listed.body[0]).toEqual({
      id: second.body.id,
      issued_via: 'operator',
      created_at: expect.any(String),
      expires_at: second.body.expires_at,
    });
    expect(JSON.stringify(listed.body)).not.toContain('eprl_');

    const revoked = await request(t.url)
      .delete(`${links(clientId)}/${first.body.id}`)
      .set(admin);
    expect(revoked.status).toBe(204);
    expect((await new DashboardClient(t.url).signIn(first.body.url)).status).toBe(400);
    expect((await request(t.url).get(links(clientId)).set(admin)).body.map((l: { id: string }) => l.id)).toEqual([second.body.id]);
    const audit = await request(t.url).get(`/api/v1/admin/audit?client_id=${clientId}&action=sign_in_link.revoked`).set(admin);
    expect(audit.body.data.map((e: { target: { id: string } }) => e.target.id)).toEqual([first.body.id]);

    // Again, a used one, another client's, a malformed id: 404.
    expect(
      (
        await request(t.url)
          .delete(`${links(clientId)}/${first.body.id}`)
          .set(admin)
      ).status,
    ).toBe(404);
    expect(
      (
        await request(t.url)
          .delete(`${links(clientId)}/${used.body.id}`)
          .set(admin)
      ).status,
    ).toBe(404);
    const other = await createClient(t);
    expect(
      (
        await request(t.url)
          .delete(`${links(other.clientId)}/${second.body.id}`)
          .set(admin)
      ).status,
    ).toBe(404);
    expect(
      (
        await request(t.url)
          .delete(`${links(clientId)}/not-a-uuid`)
          .set(admin)
      ).status,
    ).toBe(404);
    expect((await request(t.url).get(links('no-such-client')).set(admin)).status).toBe(404);
  });
});
