import { simpleParser, type ParsedMail } from 'mailparser';
import type pg from 'pg';
import { SMTPServer } from 'smtp-server';
import { freePort } from './test-app.js';

/** A real SMTP server on a free port of 127.0.0.1, keeping every mail it accepts, parsed. */
export interface Mailbox {
  /** `SMTP_URL` for the app. */
  url: string;
  inbox: ParsedMail[];
  /** While true, every mail is refused (550-like error after its data). */
  refuse: boolean;
  /** How long the server waits before each answer of a conversation (greeting, MAIL FROM, RCPT TO, end of data): a slow server. */
  delayMs: number;
  close(): Promise<void>;
}

export async function startMailbox(): Promise<Mailbox> {
  const port = await freePort();
  const mailbox: Mailbox = { url: `smtp://127.0.0.1:${port}`, inbox: [], refuse: false, delayMs: 0, close: async () => {} };
  const later = (callback: () => void) => (mailbox.delayMs > 0 ? setTimeout(callback, mailbox.delayMs) : callback());
  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onConnect: (_session, callback) => later(() => callback()),
    onMailFrom: (_address, _session, callback) => later(() => callback()),
    onRcptTo: (_address, _session, callback) => later(() => callback()),
    onData(stream, _session, callback) {
      if (mailbox.refuse) {
        stream.resume();
        stream.on('end', () => callback(new Error('mailbox unavailable')));
        return;
      }
      simpleParser(stream)
        .then((mail) => later(() => (mailbox.inbox.push(mail), callback())))
        .catch(callback);
    },
  });
  await new Promise<void>((resolve) => smtp.listen(port, '127.0.0.1', resolve));
  mailbox.close = () => new Promise<void>((resolve) => smtp.close(() => resolve()));
  return mailbox;
}

/** Fast retries for tests: the outbox looks every 200 ms, the second attempt after 100 ms (then 200, 400…), 3 attempts. */
export const FAST_MAIL_DELIVERY = { pollMs: 200, retryBaseMs: 100, maxAttempts: 3 };

/**
 * Waits until the app's mail outbox has nothing queued: every message sent or given up (what
 * tests do instead of sleeping: mail is sent after the answer, in the background).
 */
export async function drainOutbox(t: { pool: pg.Pool }, ms = 30_000): Promise<void> {
  const until = Date.now() + ms;
  for (;;) {
    const { rows } = await t.pool.query(`SELECT count(*)::int AS n FROM mail_outbox WHERE state = 'queued'`);
    if (rows[0].n === 0) return;
    if (Date.now() > until) throw new Error(`${rows[0].n} message(s) still queued after ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
