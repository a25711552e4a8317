import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditEventEntity } from './audit-event.entity.js';
import { AuditAdminController } from './audit-admin.controller.js';
import { AuditLogService } from './audit-log.service.js';
import { AuditTrail } from './audit-trail.js';
import { AuditRepository } from './audit.repository.js';
import { RefusedActions, RefusedActionsInterceptor } from './refused-actions.js';

/** The audit trail: written by the services of admin writes (AuditTrail) and for refused operator actions (RefusedActions), read by the operator. */
@Module({
  imports: [TypeOrmModule.forFeature([AuditEventEntity])],
  controllers: [AuditAdminController],
  providers: [AuditTrail, AuditRepository, AuditLogService, RefusedActions, RefusedActionsInterceptor],
  exports: [AuditTrail, RefusedActions, RefusedActionsInterceptor, AuditLogService],
})
export class AuditModule {}
