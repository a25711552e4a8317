import { Body, Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiBody, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { ApiProblems } from '../../common/openapi.js';
import { AdminApi } from '../../caller/audience.js';
import { type Actor, CurrentActor } from '../../caller/actor.js';
import { IssuedTokenDto, IssueTokenDto, TokenDto } from './dto/token.dto.js';
import { ClientTokensService } from './client-tokens.service.js';

const CLIENT_ID_PARAM = { name: 'client_id', description: 'The client id', example: 'exemple-sas' };

/** Operator: a client's bearer tokens. */
@ApiTags('admin')
@AdminApi()
@Controller('api/v1/admin/clients/:client_id/tokens')
export class TokensAdminController {
  constructor(private readonly tokens: ClientTokensService) {}

  @Post()
  @ApiOperation({
    operationId: 'issueToken',
    summary: 'Issue a token to a client',
    description:
      'The token is in this response only (`Cache-Control: no-store`); only its SHA-256 is stored. ' +
      'Optional `name` and `expires_at` (at most 2 years ahead); without `expires_at` the token does not expire. ' +
      'The body itself is optional: without one, a live token with neither name nor expiry.\n\n' +
      '**Sandbox**: `"mode": "test"` issues a test token (`eprt_…` instead of `eprc_…`). With it every client operation works as with a live token, ' +
      "against the client's test data only: test declarations (receipts `TEST-…`) never appear in the operator's listings, exports and summaries, " +
      'nor through a live token, and the other way round. They persist between calls; `DELETE /api/v1/test-data` with the test token wipes them.\n\n' +
      'An offboarded client is given no new token: 409 `conflict`.',
  })
  @ApiBody({
    type: IssueTokenDto,
    required: false,
    examples: {
      test: { summary: 'A test token (eprt_…) for the sandbox', value: { mode: 'test', name: 'ERP recette' } },
      live: { summary: 'A live token (eprc_…)', value: { name: 'ERP production' } },
    },
  })
  @ApiParam(CLIENT_ID_PARAM)
  @ApiCreatedResponse({ description: 'The token, with its secret: shown this once, never again.', type: IssuedTokenDto })
  @ApiProblems(400, 404, 409, 413, 415, 422)
  async issue(@Param('client_id') clientId: string, @Body() body: IssueTokenDto, @CurrentActor() actor: Actor): Promise<IssuedTokenDto> {
    const expiresAt = typeof body.expires_at === 'string' ? new Date(body.expires_at) : null;
    return IssuedTokenDto.fromIssued(await this.tokens.issue(clientId, { name: body.name, expiresAt, mode: body.mode }, actor));
  }

  @Get()
  @ApiOperation({
    operationId: 'listTokens',
    summary: "List a client's tokens (metadata only), newest first",
    description: 'Revoked and expired tokens included. The secret is never shown again: only its prefix, to recognise it.',
  })
  @ApiParam(CLIENT_ID_PARAM)
  @ApiOkResponse({ description: "The client's tokens (metadata only, no secret), newest first.", type: [TokenDto] })
  @ApiProblems(404)
  async list(@Param('client_id') clientId: string): Promise<TokenDto[]> {
    return (await this.tokens.list(clientId)).map(TokenDto.from);
  }

  @Delete(':token_id')
  @HttpCode(204)
  @ApiOperation({
    operationId: 'revokeToken',
    summary: 'Revoke a token',
    description: 'Takes effect on the next request. Revoking a revoked token is a no-op (204).',
  })
  @ApiParam(CLIENT_ID_PARAM)
  @ApiParam({ name: 'token_id', format: 'uuid', description: 'The token id' })
  @ApiNoContentResponse({ description: 'Revoked (or already revoked).' })
  @ApiProblems(404)
  async revoke(@Param('client_id') clientId: string, @Param('token_id') tokenId: string, @CurrentActor() actor: Actor): Promise<void> {
    await this.tokens.revoke(clientId, tokenId, actor);
  }
}
