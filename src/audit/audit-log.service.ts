import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { DEFAULT_PAGE_SIZE } from '../common/paging/page-query.dto.js';
import { pageOf, positionOf, UUID_ID } from '../common/paging/keyset-cursor.js';
import type { AuditEventDto, AuditPageDto, ListAuditQueryDto } from './dto/audit.dto.js';

interface AuditRow {
  id: string;
  occurredAt: string;
  actorType: 'admin' | 'operator' | 'client' | 'anonymous';
  operatorId: string | null;
  actorName: string;
  action: string;
  targetType: string;
  targetId: string;
  clientId: string | null;
  changes: Record<string, unknown>;
  requestId: string | null;
}

const toDto = (r: AuditRow): AuditEventDto => ({
  id: r.id,
  occurred_at: r.occurredAt,
  actor: { type: r.actorType, operator_token_id: r.operatorId, name: r.actorName },
  action: r.action,
  target: { type: r.targetType, id: r.targetId },
  client_id: r.clientId,
  changes: r.changes,
  request_id: r.requestId,
});

/** The audit trail as the operator reads it: newest first, filtered, keyset-paged. Read only. */
@Injectable()
export class AuditLogService {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async list(query: ListAuditQueryDto): Promise<AuditPageDto> {
    const filters = { client_id: query.client_id, actor: query.actor, action: query.action, from: query.from, to: query.to };
    const after = positionOf(query.cursor, filters, UUID_ID);
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const where: string[] = [];
    const params: unknown[] = [];
    if (query.client_id !== undefined) where.push(`client_id = $${params.push(query.client_id)}`);
    if (query.actor === 'admin') where.push(`actor_type = 'admin'`);
    else if (query.actor !== undefined) where.push(`operator_id = $${params.push(query.actor)}::uuid`);
    if (query.action !== undefined) where.push(`action = $${params.push(query.action)}`);
    if (query.from !== undefined) where.push(`occurred_at >= $${params.push(query.from)}::timestamptz`);
    if (query.to !== undefined) where.push(`occurred_at < $${params.push(query.to)}::timestamptz`);
    if (after) where.push(`(occurred_at, id) < ($${params.push(after.at)}::timestamptz, $${params.push(after.id)}::uuid)`);
    const rows: AuditRow[] = await this.dataSource.query(
      `SELECT id, to_char(occurred_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS "occurredAt", actor_type AS "actorType",
              operator_id AS "operatorId", actor_name AS "actorName", action, target_type AS "targetType", target_id AS "targetId",
              client_id AS "clientId", changes, request_id AS "requestId"
         FROM audit_events
        ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
        ORDER BY occurred_at DESC, id DESC
        LIMIT $${params.push(limit + 1)}`,
      params,
    );
    const page = pageOf(rows, limit, (r) => ({ at: r.occurredAt, id: r.id }), filters);
    return { data: page.items.map(toDto), has_more: page.hasMore, next_cursor: page.nextCursor };
  }
}
