import { Injectable } from '@nestjs/common';
import { type Page, pageOf, positionOf, UUID_ID } from '../common/paging/keyset-cursor.js';
import { DEFAULT_PAGE_SIZE } from '../common/paging/page-query.dto.js';
import { NotFoundProblem } from '../common/problem/problem.js';
import { DeclarationsAdminRepository } from './declarations-admin.repository.js';
import type { AdminDeclarationsQuery, DeclarationRecord, DeclarationSummary } from './declaration.js';
import { isUuid } from '../common/uuid.js';

/** The operator's view of declarations: every client's, listed and read (never written). */
@Injectable()
export class DeclarationsAdminService {
  constructor(private readonly repository: DeclarationsAdminRepository) {}

  async list(query: AdminDeclarationsQuery): Promise<Page<DeclarationSummary>> {
    // The cursor is bound to the filters by their names in the query string.
    const filters = {
      period: query.period,
      client_id: query.clientId,
      stream: query.stream,
      status: query.status,
      submitted_from: query.submittedFrom,
      submitted_to: query.submittedTo,
    };
    const after = positionOf(query.cursor, filters, UUID_ID);
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const rows = await this.repository.listPage({
      clientId: query.clientId,
      period: query.period,
      stream: query.stream,
      status: query.status,
      submittedFrom: query.submittedFrom,
      submittedTo: query.submittedTo,
      after,
      limit: limit + 1,
    });
    return pageOf(rows, limit, (r) => ({ at: r.submittedAt, id: r.id }), filters);
  }

  async findOne(id: string): Promise<DeclarationRecord> {
    const record = isUuid(id) ? await this.repository.findRecord(id.toLowerCase()) : undefined;
    if (!record) throw new NotFoundProblem('Declaration');
    return record;
  }
}
