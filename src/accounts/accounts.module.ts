import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditModule } from '../audit/audit.module.js';
import { AccountsRepository } from './accounts.repository.js';
import { AccountsService } from './accounts.service.js';
import { ClientEntity } from './client.entity.js';
import { ClientMessagesAdminController } from './client-messages-admin.controller.js';
import { ClientsAdminController } from './clients-admin.controller.js';
import { MeController } from './me.controller.js';
import { ClientStreamsAdminController } from './client-streams-admin.controller.js';
import { ClientStreamsRepository } from './client-streams.repository.js';
import { ClientStreamsService } from './client-streams.service.js';

/** Clients and their profile (pending vs confirmed), `GET /me`, the admin client routes. */
@Module({
  imports: [TypeOrmModule.forFeature([ClientEntity]), AuditModule],
  controllers: [ClientsAdminController, MeController, ClientStreamsAdminController, ClientMessagesAdminController],
  providers: [AccountsService, AccountsRepository, ClientStreamsRepository, ClientStreamsService],
  exports: [AccountsService, ClientStreamsService],
})
export class AccountsModule {}
