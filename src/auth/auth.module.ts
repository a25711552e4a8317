import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AccountsModule } from '../accounts/accounts.module.js';
import { AuditModule } from '../audit/audit.module.js';
import { AdminCredential } from './admin-credential.js';
import { AuthGuard } from './auth.guard.js';
import { ClientTokenEntity } from './client-token.entity.js';
import { OperatorsAdminController } from './operators/operators-admin.controller.js';
import { OperatorsService } from './operators/operators.service.js';
import { TokensController } from './tokens.controller.js';
import { TokensService } from './tokens.service.js';

/** Client tokens, the admin credentials (ADMIN_TOKEN, operator tokens) and the global deny-by-default guard. */
@Module({
  imports: [TypeOrmModule.forFeature([ClientTokenEntity]), AccountsModule, AuditModule],
  controllers: [TokensController, OperatorsAdminController],
  providers: [TokensService, OperatorsService, AdminCredential, { provide: APP_GUARD, useClass: AuthGuard }],
  exports: [TokensService],
})
export class AuthModule {}
