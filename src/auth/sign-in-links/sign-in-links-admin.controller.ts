import { Controller, Header, Param, Post } from '@nestjs/common';
import { ApiCreatedResponse, ApiOperation, ApiParam, ApiProperty, ApiTags } from '@nestjs/swagger';
import { ApiProblems } from '../../common/openapi.js';
import { AdminApi } from '../../caller/audience.js';
import { type Actor, CurrentActor } from '../../caller/actor.js';
import { SIGN_IN_LINK_TTL_MS, SignInLinksService } from './sign-in-links.service.js';

export class SignInLinkDto {
  @ApiProperty({ format: 'uuid' })
  id!: string;

  /** The link to give the client's person: it works once, for 15 minutes. Shown this once. */
  @ApiProperty({ example: 'https://epr.example.org/dashboard/sign-in/link?token=eprl_7Gx2kQpXXXXXXXXXXXXXXXXXXXXXXXXX_0a1B2c' })
  url!: string;

  @ApiProperty({ type: String, format: 'date-time' })
  expires_at!: Date;
}

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
      `A single-use URL that signs a person in to the client's dashboard, valid ${SIGN_IN_LINK_TTL_MS / 60_000} minutes, shown in this response only ` +
      '(only its SHA-256 is stored). Opening it shows a page that asks to continue; continuing spends the link and starts a session. ' +
      'Works for a client whose onboarding is not confirmed yet too (the dashboard then shows what is pending). Recorded in the audit trail (`sign_in_link.issued`).',
  })
  @ApiParam({ name: 'client_id', description: 'The client id', example: 'exemple-sas' })
  @ApiCreatedResponse({ description: 'The link, shown this once.', type: SignInLinkDto })
  // No body is read; one sent anyway must be JSON (413 past 1 MiB), like every POST of the API.
  @ApiProblems(404, 413, 415)
  async create(@Param('client_id') clientId: string, @CurrentActor() actor: Actor): Promise<SignInLinkDto> {
    const link = await this.links.issue(clientId, actor);
    return { id: link.id, url: link.url, expires_at: link.expiresAt };
  }
}
