import { Module } from '@nestjs/common';
import { AuditModule } from '../audit/audit.module.js';
import { TestDataController } from './test-data.controller.js';
import { TestDataRepository } from './test-data.repository.js';
import { TestDataService } from './test-data.service.js';

/** A sandbox per client: test tokens reach only the client's test data; this wipes it. */
@Module({
  imports: [AuditModule],
  controllers: [TestDataController],
  providers: [TestDataService, TestDataRepository],
})
export class SandboxModule {}
