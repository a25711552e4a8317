import { Module } from '@nestjs/common';
import { DeclarationsModule } from '../declarations/declarations.module.js';
import { ProductsModule } from '../products/products.module.js';
import { AnnualExportRepository } from './annual-export.repository.js';
import { AnnualExportService } from './annual-export.service.js';
import { PeriodExportRepository } from './period-export.repository.js';
import { PeriodExportService } from './period-export.service.js';
import { PeriodsAdminController } from './periods-admin.controller.js';
import { YearsAdminController } from './years-admin.controller.js';

/** The operator's period and annual exports: the filings of every client, with the products a derived one used. */
@Module({
  imports: [DeclarationsModule, ProductsModule],
  controllers: [PeriodsAdminController, YearsAdminController],
  providers: [PeriodExportService, PeriodExportRepository, AnnualExportService, AnnualExportRepository],
  // The operator's console: the admin API's own exports.
  exports: [PeriodExportService, AnnualExportService],
})
export class ExportsModule {}
