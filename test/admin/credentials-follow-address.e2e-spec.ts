/**
 * Every credential follows the address and the account: a new confirmed e-mail address, the
 * operator's "end sessions", a suspension and an offboarding void every unused sign-in link of the
 * client, whoever issued it (a reminder, an invitation, a link handed over); and a mailed link is
 * bound to the address it went to, refused once that is no longer the client's confirmed address.
 * Through a real SMTP server started here.
 */
import type { ParsedMail } from 'mailparser';
import request from 'supertest';
import { DashboardClient } from '../support/dashboard-browser.js';
import { createClient } from '../support/factories.js';
import { drainOutbox, type Mailbox, startMailbox } from '../support/mailbox.js';
import { ADMIN_TOKEN, startTestApp, type TestApp } from '../support/test-app.js';

let t: TestApp;
let mailbox: Mailbox;
let inbox: ParsedMail[];

beforeAll(async () => {
  mailbox = await startMailbox();
  inbox = mailbox.inbox;
  t = await startTestApp({ env: { SMTP_URL: mailbox.url, MAIL_FROM: 'operator@epr.example.org' } });
}, 60_000);

afterAll(async () => {
  await t?.close();
  await mailbox?.close();
});

const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
const client = (clientId: string) => `/api/v1/admin/clients/${clientId}`;
const recipient = (mail: ParsedMail) => (mail.to && 'text' in mail.to ? mail.to.text : '').toLowerCase();
const linkIn = (mail: ParsedMail) => /https?:\/\/\S+\/dashboard\/sign-in\/link\?token=eprl_\S+/.exec(mail.text!)![0];
/** A 7-day invitation mailed by the service to the client's confirmed address; its URL as the mail holds it. */
const invitation = async (clientId: string) => {
  const res = await request(t.url)
    .post(`${client(clientId)}/sign-in-links`)
    .set(admin)
    .send({ expires_in_minutes: 7 * 24 * 60, send: true });
  expect(res.status).toBe(201);
  await drainOutbox(t);
  return linkIn(inbox.find((m) => m.text?.includes(res.body.url))!);
};
/** A 7-day link the operator hands over (not mailed). */
const handedOver = async (clientId: string) =>
  (
    await request(t.url)
      .post(`${client(clientId)}/sign-in-links`)
      .set(admin)
      .send({ expires_in_minutes: 7 * 24 * 60 })
  ).body.url as string;
/** Whether the link still signs in (303 to the dashboard; 400 when refused). */
const signsIn = async (url: string) => {
  const res = await new DashboardClient(t.url).signIn(url);
  expect([303, 400]).toContain(res.status);
  return res.status === 303;
};
const sessions = async (clientId: string) =>
  Number((await t.pool.query('SELECT count(*) AS n FROM dashboard_sessions WHERE client_id = $1', [clientId])).rows[0].n);

describe('a new confirmed e-mail address', () => {
  it('voids the reminder mailed to the old address: its link no longer signs in, and no session or token comes of it', async () => {
    const old = `conformite.${Date.now()}@ancienne-adresse.fr`;
    const { clientId } = await createClient(t, { company: 'Conserverie Exemple SAS', email: old });
    await request(t.url)
      .put(`${client(clientId)}/streams/EMB`)
      .set(admin)
      .send({ liable_from: '2025-S1' })
      .expect(200);
    const reminded = await request(t.url).post('/api/v1/admin/reminders?dry_run=false').set(admin).send({ period: '2025-S2' });
    expect(reminded.status).toBe(200);
    await drainOutbox(t);
    const mail = inbox.find((m) => recipient(m) === old && m.text?.includes(clientId))!;
    const reminderLink = linkIn(mail);
    const invited = await invitation(clientId);
    const handed = await handedOver(clientId);

    const changed = await request(t.url)
      .patch(client(clientId))
      .set(admin)
      .send({ email: `nouvelle.${Date.now()}@exemple.fr` });
    expect(changed.status).toBe(200);
    expect(
      (
        await request(t.url)
          .post(`${client(clientId)}/confirm`)
          .set(admin)
          .send({})
      ).status,
    ).toBe(200);

    for (const url of [reminderLink, invited, handed]) expect(await signsIn(url)).toBe(false);
    expect(await sessions(clientId)).toBe(0);
    const audit = await request(t.url).get(`/api/v1/admin/audit?client_id=${clientId}&action=session.ended_all`).set(admin);
    expect(audit.body.data[0].changes).toEqual({ reason: 'email_changed', sessions: 0, links_voided: 3 });
    // A link issued now, to the new address, works.
    expect(await signsIn(await invitation(clientId))).toBe(true);
  });
});

describe('ending the sessions, suspending and offboarding void every unused link', () => {
  it('DELETE …/sessions', async () => {
    const { clientId } = await createClient(t);
    const links = [await invitation(clientId), await handedOver(clientId)];
    expect(
      (
        await request(t.url)
          .delete(`${client(clientId)}/sessions`)
          .set(admin)
      ).status,
    ).toBe(204);
    for (const url of links) expect(await signsIn(url)).toBe(false);
    expect(await sessions(clientId)).toBe(0);
  });

  it('a suspension (its links stay void after reactivation), recorded as sign_in_link.voided_all', async () => {
    const { clientId } = await createClient(t);
    const links = [await invitation(clientId), await handedOver(clientId)];
    expect(
      (
        await request(t.url)
          .post(`${client(clientId)}/suspend`)
          .set(admin)
          .send({})
      ).status,
    ).toBe(200);
    expect(
      (
        await request(t.url)
          .post(`${client(clientId)}/reactivate`)
          .set(admin)
          .send({})
      ).status,
    ).toBe(200);
    for (const url of links) expect(await signsIn(url)).toBe(false);
    const audit = await request(t.url).get(`/api/v1/admin/audit?client_id=${clientId}&action=sign_in_link.voided_all`).set(admin);
    expect(audit.body.data.map((e: { changes: unknown }) => e.changes)).toEqual([{ reason: 'suspended', links_voided: 2 }]);
    expect(
      (
        await request(t.url)
          .get(`${client(clientId)}/sign-in-links`)
          .set(admin)
      ).body,
    ).toEqual([]);
  });

  it('an offboarding: the links are void, not only refused', async () => {
    const { clientId } = await createClient(t);
    await invitation(clientId);
    await handedOver(clientId);
    expect(
      (
        await request(t.url)
          .post(`${client(clientId)}/offboard`)
          .set(admin)
          .send({})
      ).status,
    ).toBe(200);
    const { rows } = await t.pool.query('SELECT count(*)::int AS n FROM sign_in_links WHERE client_id = $1 AND expires_at > now()', [
      clientId,
    ]);
    expect(rows[0].n).toBe(0);
  });
});

describe('a mailed link is bound to the address it was mailed to', () => {
  it('refused once that is no longer the client’s confirmed address, even if nothing voided it; a link handed over is not bound', async () => {
    const email = `Lea.Martin.${Date.now()}@Exemple.fr`;
    const { clientId } = await createClient(t, { email });
    const mailed = await invitation(clientId);
    const handed = await handedOver(clientId);
    const { rows } = await t.pool.query('SELECT address_hash FROM sign_in_links WHERE client_id = $1 ORDER BY created_at', [clientId]);
    expect(rows.map((r) => r.address_hash)).toEqual([expect.stringMatching(/^[0-9a-f]{64}$/), null]);
    // The address changed by a way that forgot to void the links (written straight into the table).
    await t.pool.query(`UPDATE clients SET confirmed_email = 'autre@exemple.fr' WHERE client_id = $1`, [clientId]);
    expect(await signsIn(mailed)).toBe(false);
    expect(await signsIn(handed)).toBe(true);
    // The same address in other A–Z case is the same address.
    const again = await invitation(clientId);
    await t.pool.query(`UPDATE clients SET confirmed_email = $2 WHERE client_id = $1`, [clientId, 'AUTRE@EXEMPLE.FR']);
    expect(await signsIn(again)).toBe(true);
  });
});
