import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditEventEntity } from './audit-event.entity.js';
import { AuditAdminController } from './audit-admin.controller.js';
import { AuditLogService } from './audit-log.service.js';
import { AuditTrail } from './audit-trail.js';
import { AuditRepository } from './audit.repository.js';

/** The audit trail: written by the services of admin writes (AuditTrail), read by the operator. */
@Module({
  imports: [TypeOrmModule.forFeature([AuditEventEntity])],
  controllers: [AuditAdminController],
  providers: [AuditTrail, AuditRepository, AuditLogService],
  exports: [AuditTrail],
})
export class AuditModule {}
