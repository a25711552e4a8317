import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { freePort } from './test-app.js';

/** A real SMTP server on a free port of 127.0.0.1, keeping every mail it accepts, parsed. */
export interface Mailbox {
  /** `SMTP_URL` for the app. */
  url: string;
  inbox: ParsedMail[];
  /** While true, every mail is refused (550-like error after its data). */
  refuse: boolean;
  close(): Promise<void>;
}

export async function startMailbox(): Promise<Mailbox> {
  const port = await freePort();
  const mailbox: Mailbox = { url: `smtp://127.0.0.1:${port}`, inbox: [], refuse: false, close: async () => {} };
  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, _session, callback) {
      if (mailbox.refuse) {
        stream.resume();
        stream.on('end', () => callback(new Error('mailbox unavailable')));
        return;
      }
      simpleParser(stream)
        .then((mail) => mailbox.inbox.push(mail))
        .then(() => callback(), callback);
    },
  });
  await new Promise<void>((resolve) => smtp.listen(port, '127.0.0.1', resolve));
  mailbox.close = () => new Promise<void>((resolve) => smtp.close(() => resolve()));
  return mailbox;
}
