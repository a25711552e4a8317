import type { AppConfig } from '../config/config.js';
import { DEFAULT_MAIL_DELIVERY } from './mail-delivery.js';
import { Mailer } from './mailer.js';

const mail = { to: 'a@example.org', subject: 's', text: 't', language: 'fr' as const };

describe('Mailer', () => {
  it('is off without SMTP_URL and says so when asked to send', async () => {
    const mailer = new Mailer({ mail: { smtpUrl: undefined, from: 'f@example.org' } } as AppConfig, DEFAULT_MAIL_DELIVERY);
    expect(mailer.enabled).toBe(false);
    await expect(mailer.send(mail)).rejects.toThrow('Mail is not configured (SMTP_URL)');
  });

  it('makes its transport on the first mail and, when it could not, tries again on the next', async () => {
    const config = { mail: { smtpUrl: 'smtp://%zz', from: 'f@example.org' } } as AppConfig;
    const mailer = new Mailer(config, { ...DEFAULT_MAIL_DELIVERY, smtp: { connectionMs: 2_000, greetingMs: 2_000, socketMs: 2_000 } });
    expect(mailer.enabled).toBe(true);
    await expect(mailer.send(mail)).rejects.toThrow('Invalid URL');
    // A port nothing listens on: the error is the connection's, so a new transport was made for this mail.
    config.mail.smtpUrl = 'smtp://127.0.0.1:1';
    await expect(mailer.send(mail)).rejects.toMatchObject({ code: expect.stringMatching(/^(ECONNREFUSED|ESOCKET|ECONNECTION)$/) });
    await mailer.onApplicationShutdown();
  });
});
