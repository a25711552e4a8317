import { Controller, Delete, Get, HttpCode, Param } from '@nestjs/common';
import { ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { AccountsService } from '../../accounts/accounts.service.js';
import { ApiProblems } from '../../common/openapi.js';
import { AdminApi } from '../../caller/audience.js';
import { type Actor, CurrentActor } from '../../caller/actor.js';
import { SESSION_IDLE_MS, SESSION_LIFETIME_MS } from './session-cookie.js';
import { SessionsService } from './sessions.service.js';
import { DashboardSessionDto } from './dto/dashboard-session.dto.js';

const CLIENT_ID_PARAM = { name: 'client_id', description: 'The client id', example: 'exemple-sas' };

/** Operator: a client's live dashboard sessions, and ending them. */
@ApiTags('admin')
@AdminApi()
@Controller('api/v1/admin/clients/:client_id/sessions')
export class SessionsAdminController {
  constructor(
    private readonly sessions: SessionsService,
    private readonly accounts: AccountsService,
  ) {}

  @Get()
  @ApiOperation({
    operationId: 'listSessions',
    summary: "List a client's live dashboard sessions, newest first",
    description:
      `Sessions of the client's people signed in to the dashboard that have not ended: not signed out, not ended by the operator, ` +
      `used within the last ${SESSION_IDLE_MS / 60_000} minutes and less than ${SESSION_LIFETIME_MS / 3_600_000} hours old. The secret of a session is never stored, so never shown.`,
  })
  @ApiParam(CLIENT_ID_PARAM)
  @ApiOkResponse({ description: 'The live sessions, newest first (empty when nobody is signed in).', type: [DashboardSessionDto] })
  @ApiProblems(404)
  async list(@Param('client_id') clientId: string): Promise<DashboardSessionDto[]> {
    await this.accounts.assertExists(clientId);
    return (await this.sessions.list(clientId)).map(DashboardSessionDto.from);
  }

  @Delete()
  @HttpCode(204)
  @ApiOperation({
    operationId: 'endSessions',
    summary: 'End every dashboard session of a client',
    description:
      'Signs every person of the client out of the dashboard, on every replica, from the next request; every sign-in link of the client not used yet (mailed on request, invitations, reminders, links handed over) stops working too. ' +
      'Recorded in the audit trail (`session.ended_all`, with how many sessions ended and links voided) when there was anything to end. Idempotent: 204 whether or not anyone was signed in. ' +
      "The client's API tokens are not affected (revoke them with `DELETE …/tokens/{token_id}`).",
  })
  @ApiParam(CLIENT_ID_PARAM)
  @ApiNoContentResponse({ description: 'Every session of the client has ended.' })
  @ApiProblems(404)
  async end(@Param('client_id') clientId: string, @CurrentActor() actor: Actor): Promise<void> {
    await this.accounts.assertExists(clientId);
    await this.sessions.endAllNow(clientId, actor, 'operator');
  }
}
