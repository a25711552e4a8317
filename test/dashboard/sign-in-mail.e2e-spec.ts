/**
 * Sign-in by e-mail against a real SMTP server started here (smtp-server), the link read from the
 * message as received (mailparser). The page answers the same for any address; only a confirmed
 * client's address gets mail, at most RATE_LIMIT_SIGN_IN_EMAILS_PER_MINUTE times a minute.
 */
import type { ParsedMail } from 'mailparser';
import { type Mailbox, startMailbox } from '../support/mailbox.js';
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
  t = await startTestApp({
    env: {
      SMTP_URL: mailbox.url,
      MAIL_FROM: 'dashboard@epr.example.org',
      MAIL_FROM_NAME: 'Conformité Emballages Exemple',
      CONTACT_EMAIL: 'aide@epr.example.org',
      RATE_LIMIT_SIGN_IN_EMAILS_PER_MINUTE: '2',
    },
  });
}, 60_000);

afterAll(async () => {
  await t?.close();
  await mailbox?.close();
});

const waitFor = async (predicate: () => boolean, ms = 20_000) => {
  for (let waited = 0; !predicate() && waited < ms; waited += 50) await new Promise((r) => setTimeout(r, 50));
};
/** The page's main content, without what differs between any two requests (the CSRF token, the address echoed). */
const mainOf = (html: string, email: string) => html.slice(html.indexOf('<main'), html.indexOf('</main>')).replaceAll(email, '<email>');

describe('sign-in by e-mail', () => {
  it('writes to each client in its language: French by default, English once the operator sets it; the link opens the dashboard in it', async () => {
    const french = await createClient(t, { email: `achats.${Date.now()}@exemple.fr` });
    const english = await createClient(t, { email: `buyer.en.${Date.now()}@example.co.uk` });
    const patched = await request(t.url)
      .patch(`/api/v1/admin/clients/${english.clientId}`)
      .set('authorization', `Bearer ${ADMIN_TOKEN}`)
      .send({ language: 'en' });
    expect([patched.status, patched.body.language]).toEqual([200, 'en']);
    const wrong = await request(t.url)
      .patch(`/api/v1/admin/clients/${english.clientId}`)
      .set('authorization', `Bearer ${ADMIN_TOKEN}`)
      .send({ language: 'de' });
    expect(wrong.status).toBe(422);
    expect(wrong.body.errors.map((e: { pointer: string }) => e.pointer)).toEqual(['/language']);
    expect(
      (await request(t.url).get(`/api/v1/admin/clients/${french.clientId}`).set('authorization', `Bearer ${ADMIN_TOKEN}`)).body.language,
    ).toBe('fr');

    for (const client of [french, english]) {
      const { rows } = await t.pool.query(`SELECT confirmed_email FROM clients WHERE client_id = $1`, [client.clientId]);
      expect((await new DashboardClient(t.url).post('/dashboard/sign-in', { email: rows[0].confirmed_email })).status).toBe(200);
    }
    await waitFor(() => inbox.some((m) => m.text?.includes(french.clientId)) && inbox.some((m) => m.text?.includes(english.clientId)));
    const fr = inbox.find((m) => m.text?.includes(french.clientId))!;
    const en = inbox.find((m) => m.text?.includes(english.clientId))!;
    expect(fr.subject).toBe('Votre lien de connexion au tableau de bord des déclarations REP');
    expect(fr.text).toContain('Bonjour,');
    expect(fr.text).toContain('pendant 15 minutes\u00a0:');
    expect(fr.text).not.toMatch(/Hello|within/);
    expect(en.subject).toBe('Your sign-in link to the EPR declarations dashboard');
    expect(en.text).toContain('within 15 minutes:');
    expect(en.text).not.toMatch(/Bonjour|pendant/);

    // The link opens its page in the mail's language, whatever the browser prefers, and remembers it.
    const url = /(https?:\/\/\S+\/dashboard\/sign-in\/link\?token=eprl_\S+)/.exec(en.text ?? '')![1]!;
    expect(new URL(url).searchParams.get('lang')).toBe('en');
    const browser = new DashboardClient(t.url, 'fr-FR,fr;q=0.9');
    expect((await browser.signIn(url)).status).toBe(303);
    const overview = await browser.get('/dashboard');
    expect(overview.html).toContain('<html lang="en">');
    expect(browser.cookies.get('lang')).toBe('en');
  });
  it('mails a single-use link to a confirmed client’s address, says the same for an unknown one, and the link signs in', async () => {
    const email = `buyer.${Date.now()}@example.fr`;
    const { clientId } = await createClient(t, { email });
    const browser = new DashboardClient(t.url);
    const form = await browser.get('/dashboard/sign-in');
    expect(form.html).toContain('name="email"');

    const known = await browser.post('/dashboard/sign-in', { email: email.toUpperCase() });
    const unknown = await new DashboardClient(t.url).post('/dashboard/sign-in', { email: 'nobody@example.fr' });
    expect(known.status).toBe(200);
    expect(unknown.status).toBe(200);
    expect(mainOf(known.html, email.toUpperCase())).toBe(mainOf(unknown.html, 'nobody@example.fr'));

    await waitFor(() => inbox.some((m) => m.text?.includes(clientId)));
    const mails = inbox.filter((m) => m.text?.includes(clientId));
    expect(mails).toHaveLength(1);
    const mail = mails[0]!;
    expect((mail.to && 'text' in mail.to ? mail.to.text : '').toLowerCase()).toBe(email.toLowerCase());
    // From the configured display name; answers go to the operator's contact address.
    expect(mail.from?.value).toEqual([{ name: 'Conformité Emballages Exemple', address: 'dashboard@epr.example.org' }]);
    expect(mail.replyTo?.value).toEqual([{ name: '', address: 'aide@epr.example.org' }]);
    const url = /(https?:\/\/\S+\/dashboard\/sign-in\/link\?token=eprl_\S+)/.exec(mail.text ?? '')![1]!;
    // Nobody else got mail: the unknown address has none.
    expect(inbox.filter((m) => JSON.stringify(m.to).includes('nobody@example.fr'))).toEqual([]);

    const signIn = await browser.signIn(url);
    expect(signIn.status).toBe(303);
    expect((await browser.get('/dashboard')).html).toContain(clientId);
    expect((await new DashboardClient(t.url).signIn(url)).status).toBe(400);
    const { rows } = await t.pool.query(`SELECT issued_via FROM sign_in_links WHERE client_id = $1`, [clientId]);
    expect(rows).toEqual([{ issued_via: 'email' }]);
  });

  it('a pending client gets no mail; past the per-address limit no more mail is sent, and the page does not tell', async () => {
    const pendingEmail = `pending.${Date.now()}@example.fr`;
    const { clientId: pending } = await createClient(t, { email: pendingEmail }, { confirm: false });
    await new DashboardClient(t.url).post('/dashboard/sign-in', { email: pendingEmail });

    const email = `limited.${Date.now()}@example.fr`;
    const { clientId } = await createClient(t, { email });
    const pages: string[] = [];
    for (let i = 0; i < 4; i++) pages.push(mainOf((await new DashboardClient(t.url).post('/dashboard/sign-in', { email })).html, email));
    expect(new Set(pages).size).toBe(1);
    await waitFor(() => inbox.filter((m) => m.text?.includes(clientId)).length >= 2);
    await new Promise((r) => setTimeout(r, 500));
    expect(inbox.filter((m) => m.text?.includes(clientId))).toHaveLength(2);
    expect(inbox.filter((m) => m.text?.includes(pending))).toHaveLength(0);
  });

  it('an address that is not one is refused on the page (422)', async () => {
    const res = await new DashboardClient(t.url).post('/dashboard/sign-in', { email: 'not an address' });
    expect(res.status).toBe(422);
    expect(res.html).toContain('id="email-error"');
  });
});

describe('without SMTP_URL', () => {
  let plain: TestApp;
  beforeAll(async () => {
    plain = await startTestApp();
  }, 60_000);
  afterAll(async () => {
    await plain?.close();
  });

  it('the sign-in page says e-mail sign-in is off, and its form is refused', async () => {
    const browser = new DashboardClient(plain.url);
    const page = await browser.get('/dashboard/sign-in');
    expect(page.html).toContain('E-mail sign-in is off on this installation');
    expect(page.html).not.toContain('name="email"');
    expect((await browser.post('/dashboard/sign-in', { email: 'someone@example.fr' })).status).toBe(409);
  });
});
