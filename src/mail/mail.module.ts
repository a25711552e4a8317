import { type DynamicModule, Global, Module } from '@nestjs/common';
import { ServiceSecretsRepository } from '../database/service-secrets.repository.js';
import { DEFAULT_MAIL_DELIVERY, MAIL_DELIVERY, type MailDelivery } from './mail-delivery.js';
import { MailOutbox } from './mail-outbox.js';
import { MailOutboxRepository } from './mail-outbox.repository.js';
import { Mailer } from './mailer.js';

/** The service's outgoing mail: the outbox and its sender. Global: whatever decides a mail queues it in the outbox. */
@Global()
@Module({})
export class MailModule {
  static forRoot(delivery: Partial<MailDelivery> = {}): DynamicModule {
    return {
      module: MailModule,
      providers: [
        { provide: MAIL_DELIVERY, useValue: { ...DEFAULT_MAIL_DELIVERY, ...delivery } },
        Mailer,
        MailOutboxRepository,
        ServiceSecretsRepository,
        MailOutbox,
      ],
      exports: [Mailer, MailOutbox, MailOutboxRepository],
    };
  }
}
