import { Controller, Get, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiProblems } from '../common/openapi.js';
import { AdminApi } from '../caller/audience.js';
import { AuditLogService } from './audit-log.service.js';
import { AuditPageDto, ListAuditQueryDto } from './dto/audit.dto.js';

/** Operator: the audit trail of admin writes (read only: no route changes or deletes it). */
@ApiTags('admin')
@AdminApi()
@Controller('api/v1/admin/audit')
export class AuditAdminController {
  constructor(private readonly log: AuditLogService) {}

  @Get()
  @ApiOperation({
    operationId: 'listAuditEvents',
    summary: 'The audit trail, newest first',
    description: [
      'Every admin write (client created, profile changed, onboarding confirmed, token issued or revoked, operator token created or revoked) and every declaration filed (`declaration.submitted`, with `submitted_by`: the client token’s id and prefix, or the dashboard session), recorded in the same transaction as the write: who (the bootstrap `ADMIN_TOKEN` or a named operator token), when, what (action, target, changed fields; never a secret) and the request id. A write that changed nothing (e.g. revoking a revoked token) records nothing.',
      '',
      'Append-only: no route changes or deletes an entry, and the database refuses UPDATE, DELETE and TRUNCATE on the table. Cursor pagination: pass `next_cursor` as `cursor` with the same filters.',
    ].join('\n'),
  })
  @ApiOkResponse({ description: 'A page of the audit trail, newest first, with `next_cursor` when there are more.', type: AuditPageDto })
  @ApiProblems(422)
  async list(@Query() query: ListAuditQueryDto): Promise<AuditPageDto> {
    return AuditPageDto.from(await this.log.list(ListAuditQueryDto.toQuery(query)));
  }
}
