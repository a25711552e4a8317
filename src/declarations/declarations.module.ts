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
import { PeriodExportRepository } from '../exports/period-export.repository.js';
import { PeriodExportService } from '../exports/period-export.service.js';
import { PeriodsAdminController } from '../exports/periods-admin.controller.js';
import { AnnualExportRepository } from '../exports/annual-export.repository.js';
import { AnnualExportService } from '../exports/annual-export.service.js';
import { YearsAdminController } from '../exports/years-admin.controller.js';
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

/** Declarations and their lines, validation, revisions, idempotency, listing, each account's obligations; the operator's listing and export. */
@Module({
  imports: [
    TypeOrmModule.forFeature([DeclarationEntity, DeclarationLineEntity, IdempotencyKeyEntity]),
    AuditModule,
    AccountsModule,
    AuthModule,
  ],
  controllers: [
    DeclarationsController,
    ObligationsController,
    YearsController,
    DeclarationsAdminController,
    PeriodsAdminController,
    YearsAdminController,
    RemindersAdminController,
  ],
  providers: [
    DeclarationsService,
    DeclarationsRepository,
    DeclarationsAdminService,
    DeclarationsAdminRepository,
    PeriodExportService,
    PeriodExportRepository,
    AnnualExportService,
    AnnualExportRepository,
    DeclarationValidator,
    IdempotencyStore,
    Clock,
    ObligationsService,
    YearsService,
    YearTotalsRepository,
    RemindersService,
    RemindersRepository,
  ],
  // For the dashboard: the same submissions, listings and obligations as the API's.
  exports: [DeclarationsService, ObligationsService, YearsService, Clock],
})
export class DeclarationsModule {}
