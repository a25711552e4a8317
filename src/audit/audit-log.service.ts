import { Injectable } from '@nestjs/common';
import { DEFAULT_PAGE_SIZE } from '../common/paging/page-query.dto.js';
import { type Page, pageOf, positionOf, UUID_ID } from '../common/paging/keyset-cursor.js';
import type { AuditEvent, AuditQuery } from './audit-event.js';
import { AuditRepository } from './audit.repository.js';

/** The audit trail as the operator reads it: newest first, filtered, keyset-paged. Read only. */
@Injectable()
export class AuditLogService {
  constructor(private readonly events: AuditRepository) {}

  async list(query: AuditQuery): Promise<Page<AuditEvent>> {
    // The cursor is bound to the filters by their names in the query string.
    const filters = { client_id: query.clientId, actor: query.actor, action: query.action, from: query.from, to: query.to };
    const after = positionOf(query.cursor, filters, UUID_ID);
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const rows = await this.events.list(
      {
        clientId: query.clientId,
        operatorId: query.actor === 'admin' ? null : query.actor,
        action: query.action,
        from: query.from,
        to: query.to,
      },
      after,
      limit + 1,
    );
    return pageOf(rows, limit, (r) => ({ at: r.occurredAt, id: r.id }), filters);
  }
}
