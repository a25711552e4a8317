import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Clock } from '../calendar/clock.js';
import { DeclarationValidator } from './declaration-validator.js';
import { DeclarationsAdminController } from './declarations-admin.controller.js';
import { DeclarationsAdminRepository } from './declarations-admin.repository.js';
import { DeclarationsAdminService } from './declarations-admin.service.js';
import { DeclarationsController } from './declarations.controller.js';
import { DeclarationsRepository } from './declarations.repository.js';
import { DeclarationsService } from './declarations.service.js';
import { DeclarationLineEntity } from './entities/declaration-line.entity.js';
import { DeclarationEntity } from './entities/declaration.entity.js';
import { IdempotencyKeyEntity } from './entities/idempotency-key.entity.js';
import { IdempotencyStore } from './idempotency-store.js';
import { ObligationsController } from './obligations/obligations.controller.js';
import { ObligationsService } from './obligations/obligations.service.js';
import { AccountsModule } from '../accounts/accounts.module.js';
import { AuditModule } from '../audit/audit.module.js';
import { AuthModule } from '../auth/auth.module.js';
import { RemindersAdminController } from './reminders/reminders-admin.controller.js';
import { RemindersRepository } from './reminders/reminders.repository.js';
import { RemindersService } from './reminders/reminders.service.js';
import { YearTotalsRepository } from './years/year-totals.repository.js';
import { YearsController } from './years/years.controller.js';
import { YearsService } from './years/years.service.js';

/** Declarations and their lines, validation, revisions, idempotency, listing, each account's obligations; the operator's listing and reminders. */
@Module({
  imports: [
    TypeOrmModule.forFeature([DeclarationEntity, DeclarationLineEntity, IdempotencyKeyEntity]),
    AuditModule,
    AccountsModule,
    AuthModule,
  ],
  controllers: [DeclarationsController, ObligationsController, YearsController, DeclarationsAdminController, RemindersAdminController],
  providers: [
    DeclarationsService,
    DeclarationsRepository,
    DeclarationsAdminService,
    DeclarationsAdminRepository,
    DeclarationValidator,
    IdempotencyStore,
    Clock,
    ObligationsService,
    YearsService,
    YearTotalsRepository,
    RemindersService,
    RemindersRepository,
  ],
  // For the dashboard: the same submissions, listings and obligations as the API's; the repository for the sandbox's wipe.
  exports: [
    DeclarationsService,
    ObligationsService,
    YearsService,
    Clock,
    DeclarationsRepository,
    // The operator's console: the admin API's own services.
    DeclarationsAdminService,
    RemindersService,
  ],
})
export class DeclarationsModule {}
