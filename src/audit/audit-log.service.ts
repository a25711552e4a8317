import { Injectable } from '@nestjs/common';
import { DEFAULT_PAGE_SIZE } from '../common/paging/page-query.dto.js';
import { pageOf, positionOf, UUID_ID } from '../common/paging/keyset-cursor.js';
import { type AuditEventRow, AuditRepository } from './audit.repository.js';
import type { AuditEventDto, AuditPageDto, ListAuditQueryDto } from './dto/audit.dto.js';

const toDto = (r: AuditEventRow): AuditEventDto => ({
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
  constructor(private readonly events: AuditRepository) {}

  async list(query: ListAuditQueryDto): Promise<AuditPageDto> {
    const filters = { client_id: query.client_id, actor: query.actor, action: query.action, from: query.from, to: query.to };
    const after = positionOf(query.cursor, filters, UUID_ID);
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const rows = await this.events.list(
      {
        clientId: query.client_id,
        operatorId: query.actor === 'admin' ? null : query.actor,
        action: query.action,
        from: query.from,
        to: query.to,
      },
      after,
      limit + 1,
    );
    const page = pageOf(rows, limit, (r) => ({ at: r.occurredAt, id: r.id }), filters);
    return { data: page.items.map(toDto), has_more: page.hasMore, next_cursor: page.nextCursor };
  }
}
