import { Module } from '@nestjs/common';
import { AuditModule } from '../audit/audit.module.js';
import { DeclarationsModule } from '../declarations/declarations.module.js';
import { ProductsModule } from '../products/products.module.js';
import { TestDataController } from './test-data.controller.js';
import { TestDataService } from './test-data.service.js';

/** A sandbox per client: test tokens reach only the client's test data; this wipes it, through the repositories that own it. */
@Module({
  imports: [AuditModule, DeclarationsModule, ProductsModule],
  controllers: [TestDataController],
  providers: [TestDataService],
})
export class SandboxModule {}
