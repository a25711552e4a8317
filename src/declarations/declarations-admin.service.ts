import { Injectable } from '@nestjs/common';
import { pageOf, positionOf, UUID_ID } from '../common/paging/keyset-cursor.js';
import { DEFAULT_PAGE_SIZE } from '../common/paging/page-query.dto.js';
import { NotFoundProblem } from '../common/problem/problem.js';
import { ReferenceCatalogue } from '../reference/reference-catalogue.js';
import { DeclarationsAdminRepository } from './declarations-admin.repository.js';
import { DeclarationDto, DeclarationPageDto, DeclarationSummaryDto } from './dto/declaration.dto.js';
import type { ListAdminDeclarationsQueryDto } from './dto/list-admin-declarations-query.dto.js';
import { isUuid } from '../common/uuid.js';

/** The operator's view of declarations: every client's, listed and read (never written). */
@Injectable()
export class DeclarationsAdminService {
  constructor(
    private readonly repository: DeclarationsAdminRepository,
    private readonly catalogue: ReferenceCatalogue,
  ) {}

  async list(query: ListAdminDeclarationsQueryDto): Promise<DeclarationPageDto> {
    const filters = {
      period: query.period,
      client_id: query.client_id,
      stream: query.stream,
      status: query.status,
      submitted_from: query.submitted_from,
      submitted_to: query.submitted_to,
    };
    const after = positionOf(query.cursor, filters, UUID_ID);
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const rows = await this.repository.listPage({
      clientId: query.client_id,
      period: query.period,
      stream: query.stream,
      status: query.status,
      submittedFrom: query.submitted_from,
      submittedTo: query.submitted_to,
      after,
      limit: limit + 1,
    });
    const page = pageOf(rows, limit, (r) => ({ at: r.submittedAt, id: r.id }), filters);
    return { data: page.items.map(DeclarationSummaryDto.from), has_more: page.hasMore, next_cursor: page.nextCursor };
  }

  async findOne(id: string): Promise<DeclarationDto> {
    const record = isUuid(id) ? await this.repository.findRecord(id.toLowerCase()) : undefined;
    if (!record) throw new NotFoundProblem('Declaration');
    // A retired code still names its category (the catalogue keeps retired materials).
    return DeclarationDto.from(record, (stream, code) => this.catalogue.categoryName(stream, code));
  }
}
