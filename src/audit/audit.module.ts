import { Module } from '@nestjs/common';
import { AuditAdminController } from './audit-admin.controller.js';
import { AuditLogService } from './audit-log.service.js';
import { AuditTrail } from './audit-trail.js';

/** The audit trail: written by the services of admin writes (AuditTrail), read by the operator. */
@Module({
  controllers: [AuditAdminController],
  providers: [AuditTrail, AuditLogService],
  exports: [AuditTrail],
})
export class AuditModule {}
