import { Controller, Delete, Get, HttpCode, Param } from '@nestjs/common';
import { ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { AdminApi } from '../../caller/audience.js';
import { type Actor, CurrentActor } from '../../caller/actor.js';
import { ApiProblems } from '../../common/openapi.js';
import { OperatorSessionDto } from './dto/operator-session.dto.js';
import { OperatorSessionsService } from './operator-sessions.service.js';

/** Operator: the console's sessions of the named operators, listed and ended. */
@ApiTags('admin')
@AdminApi()
@Controller('api/v1/admin/operator-sessions')
export class OperatorSessionsAdminController {
  constructor(private readonly sessions: OperatorSessionsService) {}

  @Get()
  @ApiOperation({
    operationId: 'listOperatorSessions',
    summary: 'List the live console sessions of named operators, newest first',
    description:
      'The sessions opened on the operator’s console (`/operator`) by a sign-in link, not yet ended, expired, idle past the timeout, or of a revoked operator token. No secret is shown.',
  })
  @ApiOkResponse({ description: 'The live console sessions.', type: [OperatorSessionDto] })
  async list(): Promise<OperatorSessionDto[]> {
    return (await this.sessions.listLive()).map(OperatorSessionDto.from);
  }

  @Delete(':operator_session_id')
  @HttpCode(204)
  @ApiOperation({
    operationId: 'endOperatorSession',
    summary: 'End a console session',
    description:
      'The browser of that session is signed out of the console at its next request, on every replica; the operator can sign in again by a new link (to keep one out, revoke its operator token). ' +
      'Ending a session ended already is a no-op (204). Recorded in the audit trail as `operator_session.ended`, with who ended it and whose session it was.',
  })
  @ApiParam({ name: 'operator_session_id', format: 'uuid', description: 'The console session id (from the list)' })
  @ApiNoContentResponse({ description: 'Ended (or ended already).' })
  @ApiProblems(404)
  async end(@Param('operator_session_id') id: string, @CurrentActor() actor: Actor): Promise<void> {
    await this.sessions.endById(id, actor);
  }
}
