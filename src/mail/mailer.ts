import { Inject, Injectable, Logger, Module, type OnApplicationShutdown, Optional } from '@nestjs/common';
import nodemailer, { type Transporter } from 'nodemailer';
import { METRICS, type Metrics } from '../common/metrics.js';
import { APP_CONFIG } from '../config/config.module.js';
import type { AppConfig } from '../config/config.js';

/** A message to send: plain text (no HTML, nothing remote to load). */
export interface Mail {
  to: string;
  subject: string;
  text: string;
}

/**
 * The service's outgoing mail, through nodemailer on SMTP_URL (`smtp://` with STARTTLS when the
 * server offers it, or `smtps://`). Without SMTP_URL there is no mail: `enabled` is false and the
 * dashboard says e-mail sign-in is off.
 */
@Injectable()
export class Mailer implements OnApplicationShutdown {
  private readonly logger = new Logger(Mailer.name);
  private readonly transport: Transporter | undefined;
  private readonly from: string;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    @Optional() @Inject(METRICS) private readonly metrics: Metrics | null = null,
  ) {
    this.from = config.mail.from;
    this.transport = config.mail.smtpUrl ? nodemailer.createTransport(config.mail.smtpUrl) : undefined;
  }

  get enabled(): boolean {
    return this.transport !== undefined;
  }

  /** Sends a message; a failure is logged (without the message, which may hold a sign-in link) and thrown. */
  async send(mail: Mail): Promise<void> {
    if (!this.transport) throw new Error('Mail is not configured (SMTP_URL)');
    try {
      await this.transport.sendMail({ from: this.from, to: mail.to, subject: mail.subject, text: mail.text });
      this.metrics?.mailDone(true);
    } catch (error) {
      this.metrics?.mailDone(false);
      this.logger.error({ err: error instanceof Error ? error.message : String(error) }, 'could not send mail');
      throw error;
    }
  }

  onApplicationShutdown(): void {
    this.transport?.close();
  }
}

@Module({ providers: [Mailer], exports: [Mailer] })
export class MailModule {}
