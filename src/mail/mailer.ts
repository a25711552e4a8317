import { Inject, Injectable, type OnApplicationShutdown, Optional } from '@nestjs/common';
import type { Transporter } from 'nodemailer';
import { METRICS, type Metrics } from '../common/metrics.js';
import { APP_CONFIG } from '../config/config.module.js';
import type { AppConfig } from '../config/config.js';
import type { Language } from '../i18n/language.js';
import { MESSAGES } from '../i18n/messages/index.js';
import { MAIL_DELIVERY, type MailDelivery } from './mail-delivery.js';

/** A message to send: plain text (no HTML, nothing remote to load). */
export interface Mail {
  to: string;
  subject: string;
  text: string;
  language: Language;
}

/**
 * The SMTP side of the service's mail, through nodemailer on SMTP_URL (`smtp://` with STARTTLS when
 * the server offers it, or `smtps://`), with timeouts of seconds. Without SMTP_URL there is no mail:
 * `enabled` is false and the dashboard says e-mail sign-in is off. Only the outbox's sender
 * (MailOutbox) calls `send`, never inside a database transaction.
 *
 * From: MAIL_FROM with a display name (MAIL_FROM_NAME, else the service's name in the mail's
 * language); Reply-To: CONTACT_EMAIL when set, so that an answer reaches the operator.
 */
@Injectable()
export class Mailer implements OnApplicationShutdown {
  /** Made on the first mail: nodemailer takes about 0.2 s of CPU to load, which a start without mail need not pay. */
  private transport: Promise<Transporter> | undefined;
  private readonly config: AppConfig['mail'];
  private readonly replyTo: string | undefined;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    @Inject(MAIL_DELIVERY) private readonly delivery: MailDelivery,
    @Optional() @Inject(METRICS) private readonly metrics: Metrics | null = null,
  ) {
    this.config = config.mail;
    this.replyTo = config.contactEmail;
  }

  get enabled(): boolean {
    return this.config.smtpUrl !== undefined;
  }

  /** Sends a message; throws what the mail server or the network said. */
  async send(mail: Mail): Promise<void> {
    const url = this.config.smtpUrl;
    if (url === undefined) throw new Error('Mail is not configured (SMTP_URL)');
    try {
      const transport = await (this.transport ??= this.connect(url));
      await transport.sendMail({
        from: { name: this.config.fromName ?? MESSAGES[mail.language].site.serviceName, address: this.config.from },
        ...(this.replyTo ? { replyTo: this.replyTo } : {}),
        to: mail.to,
        subject: mail.subject,
        text: mail.text,
      });
      this.metrics?.mailDone(true);
    } catch (error) {
      this.metrics?.mailDone(false);
      throw error;
    }
  }

  /** The transport, made once; a failure to make it is not kept, so the next mail tries again. */
  private async connect(url: string): Promise<Transporter> {
    try {
      const { default: nodemailer } = await import('nodemailer');
      const { connectionMs, greetingMs, socketMs } = this.delivery.smtp;
      return nodemailer.createTransport({ url, connectionTimeout: connectionMs, greetingTimeout: greetingMs, socketTimeout: socketMs });
    } catch (error) {
      this.transport = undefined;
      throw error;
    }
  }

  async onApplicationShutdown(): Promise<void> {
    (await this.transport?.catch(() => undefined))?.close();
  }
}
