import type { ParsedMail } from 'mailparser';
import request from 'supertest';
import { csrfOf, DashboardClient } from './dashboard-browser.js';
import { ADMIN_TOKEN, type TestApp } from './test-app.js';

// The operator's console's tests: an operator named through the admin API, and signed in by the link mailed to her.

/** Names an operator with an address through the admin API. */
export async function nameOperator(t: TestApp, name: string, email: string): Promise<{ id: string; token: string }> {
  const res = await request(t.url)
    .post('/api/v1/admin/operator-tokens')
    .set({ authorization: `Bearer ${ADMIN_TOKEN}` })
    .send({ name, email });
  expect([res.status, res.body.email]).toEqual([201, email]);
  return { id: res.body.id, token: res.body.token };
}

/** A browser signed in to the console as the operator of `email`, by the link mailed to `inbox`. */
export async function consoleSignIn(t: TestApp, inbox: ParsedMail[], email: string, language = 'fr-FR'): Promise<DashboardClient> {
  const browser = new DashboardClient(t.url, language);
  const page = await browser.get('/operator/sign-in');
  expect(page.status).toBe(200);
  const before = inbox.length;
  const asked = await browser.post('/operator/sign-in', { email }, { csrf: csrfOf(page.html) });
  expect(asked.status).toBe(200);
  const mail = await mailTo(() => inbox.slice(before).find((m) => (m.to as { text: string }).text.includes(email)));
  const link = new URL(/(https?:\/\/\S+\/operator\/sign-in\/link\?token=eprl_\S+)/.exec(mail.text ?? '')![1]!);
  const linkPage = await browser.get(`${link.pathname}${link.search}`);
  const token = /name="token" value="([^"]*)"/.exec(linkPage.html)![1]!;
  const used = await browser.post('/operator/sign-in/link', { token }, { csrf: csrfOf(linkPage.html) });
  expect([used.status, used.location]).toEqual([303, '/operator']);
  return browser;
}

/** The mail `find` finds, once it has arrived (20 s at most). */
async function mailTo(find: () => ParsedMail | undefined): Promise<ParsedMail> {
  for (let waited = 0; waited < 20_000; waited += 50) {
    const found = find();
    if (found !== undefined) return found;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('no mail in time');
}
