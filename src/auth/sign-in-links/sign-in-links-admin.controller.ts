import { Body, Controller, Delete, Get, Header, HttpCode, Param, Post } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { ApiProblems } from '../../common/openapi.js';
import { AdminApi } from '../../caller/audience.js';
import { type Actor, CurrentActor } from '../../caller/actor.js';
import { INVITATION_TTL_MS, SignInLinksService } from './sign-in-links.service.js';
import { CreateSignInLinkDto, OutstandingSignInLinkDto, SignInLinkDto } from './dto/sign-in-link.dto.js';

/** Operator: sign-in links to a client's dashboard. */
@ApiTags('admin')
@AdminApi()
@Controller('api/v1/admin/clients/:client_id/sign-in-links')
export class SignInLinksAdminController {
  constructor(private readonly links: SignInLinksService) {}

  @Post()
  @Header('Cache-Control', 'no-store')
  @ApiOperation({
    operationId: 'createSignInLink',
    summary: "Create a sign-in link to a client's dashboard",
    description:
      `A single-use URL that signs a person in to the client's dashboard (an invitation), valid ${INVITATION_TTL_MS / 86_400_000} days unless \`expires_in_minutes\` says less (a link a person asks for herself on the sign-in page lasts 15 minutes), shown in this response only ` +
      '(only its SHA-256 is stored). Opening it shows a page that asks to continue; continuing spends the link and starts a session. ' +
      'Works for a client whose onboarding is not confirmed yet too (the dashboard then shows what is pending). ' +
      "With `send: true` the service e-mails it to the client's confirmed address, in the client's language (`language` of the client, French unless set): 409 when SMTP_URL is not configured or the client has no confirmed address. " +
      'The e-mail is queued with the link in one transaction and sent after the answer (`message_id`; its delivery, retries included, at `GET /admin/clients/{client_id}/messages`); ' +
      'if it is finally given up, the link stops working. An offboarded client gets none (409). Recorded in the audit trail (`sign_in_link.issued`, with `sent_to` when sent).',
  })
  @ApiParam({ name: 'client_id', description: 'The client id', example: 'exemple-sas' })
  @ApiCreatedResponse({ description: 'The link, shown this once.', type: SignInLinkDto })
  @ApiProblems(404, 409, 413, 415, 422)
  async create(
    @Param('client_id') clientId: string,
    @Body() body: CreateSignInLinkDto,
    @CurrentActor() actor: Actor,
  ): Promise<SignInLinkDto> {
    const minutes = body?.expires_in_minutes;
    const link = await this.links.issue(clientId, actor, {
      ttlMs: minutes === undefined ? undefined : minutes * 60_000,
      send: body?.send === true,
    });
    return {
      id: link.id,
      url: link.url,
      expires_at: link.expiresAt,
      ...(link.sentTo ? { sent_to: link.sentTo } : {}),
      ...(link.messageId ? { message_id: link.messageId } : {}),
    };
  }

  @Get()
  @ApiOperation({
    operationId: 'listSignInLinks',
    summary: "A client's outstanding sign-in links",
    description: 'The links not yet used, revoked or expired, newest first: never their URL, which is not kept.',
  })
  @ApiParam({ name: 'client_id', description: 'The client id', example: 'exemple-sas' })
  @ApiOkResponse({ description: 'The outstanding links.', type: [OutstandingSignInLinkDto] })
  @ApiProblems(404)
  async list(@Param('client_id') clientId: string): Promise<OutstandingSignInLinkDto[]> {
    return (await this.links.outstanding(clientId)).map((l) => ({
      id: l.id,
      issued_via: l.issuedVia,
      created_at: l.createdAt,
      expires_at: l.expiresAt,
    }));
  }

  @Delete(':link_id')
  @HttpCode(204)
  @ApiOperation({
    operationId: 'revokeSignInLink',
    summary: 'Revoke an outstanding sign-in link',
    description:
      'It stops working at once. 404 when the client has no such outstanding link (already used, revoked or expired). Recorded as `sign_in_link.revoked`.',
  })
  @ApiParam({ name: 'client_id', description: 'The client id', example: 'exemple-sas' })
  @ApiParam({ name: 'link_id', description: 'The link id', schema: { type: 'string', format: 'uuid' } })
  @ApiNoContentResponse({ description: 'Revoked.' })
  @ApiProblems(404)
  async revoke(@Param('client_id') clientId: string, @Param('link_id') linkId: string, @CurrentActor() actor: Actor): Promise<void> {
    await this.links.revoke(clientId, linkId, actor);
  }
}
