import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import type { AuditEvent } from './audit-event.js';

/** An entry of the audit trail as stored, its time as text to the microsecond (UTC). */
/** A row of `audit_events`: the domain's entry. */
export type AuditEventRow = AuditEvent;

/** An entry to write: who (as recorded), what, and the request it came with. */
export type NewAuditEvent = Omit<AuditEventRow, 'id' | 'occurredAt'>;

/** The filters of the operator's listing; `operatorId` null: the bootstrap credential (ADMIN_TOKEN). */
export interface AuditFilters {
  clientId?: string;
  operatorId?: string | null;
  action?: string;
  /** Inclusive, an instant as text. */
  from?: string;
  /** Exclusive, an instant as text. */
  to?: string;
}

/** The SQL of the audit trail (`audit_events`). A write runs in the caller's transaction: the entry commits with what it records. */
@Injectable()
export class AuditRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async insert(manager: EntityManager, event: NewAuditEvent): Promise<void> {
    await manager.query(
      `INSERT INTO audit_events (actor_type, operator_id, actor_name, action, target_type, target_id, client_id, changes, request_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb, $9)`,
      [
        event.actorType,
        event.operatorId,
        event.actorName,
        event.action,
        event.targetType,
        event.targetId,
        event.clientId,
        JSON.stringify(event.changes),
        event.requestId,
      ],
    );
  }

  /** Up to `limit` entries matching the filters, newest first, keyset on `(occurred_at, id)` after `after`. */
  list(filters: AuditFilters, after: { at: string; id: string } | undefined, limit: number): Promise<AuditEventRow[]> {
    const where: string[] = [];
    const params: unknown[] = [];
    if (filters.clientId !== undefined) where.push(`client_id = $${params.push(filters.clientId)}`);
    if (filters.operatorId === null) where.push(`actor_type = 'admin'`);
    else if (filters.operatorId !== undefined) where.push(`operator_id = $${params.push(filters.operatorId)}::uuid`);
    if (filters.action !== undefined) where.push(`action = $${params.push(filters.action)}`);
    if (filters.from !== undefined) where.push(`occurred_at >= $${params.push(filters.from)}::timestamptz`);
    if (filters.to !== undefined) where.push(`occurred_at < $${params.push(filters.to)}::timestamptz`);
    if (after) where.push(`(occurred_at, id) < ($${params.push(after.at)}::timestamptz, $${params.push(after.id)}::uuid)`);
    return this.dataSource.query(
      `SELECT id, to_char(occurred_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS "occurredAt", actor_type AS "actorType",
              operator_id AS "operatorId", actor_name AS "actorName", action, target_type AS "targetType", target_id AS "targetId",
              client_id AS "clientId", changes, request_id AS "requestId"
         FROM audit_events
        ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
        ORDER BY occurred_at DESC, id DESC
        LIMIT $${params.push(limit)}`,
      params,
    );
  }
}
