import { Body, Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { ApiProblems } from '../../common/openapi.js';
import { Problem } from '../../common/problem/problem.js';
import { AdminApi } from '../../caller/audience.js';
import { type Actor, CurrentActor } from '../../caller/actor.js';
import { CreatedOperatorTokenDto, CreateOperatorTokenDto, OperatorTokenDto } from './dto/operator-token.dto.js';
import { OperatorsService } from './operators.service.js';

/**
 * Only the bootstrap credential may mint or revoke operator tokens: an operator token that leaks
 * must not be able to make more of itself, nor revoke the others' to lock the operators out.
 */
function onlyAdminToken(actor: Actor, what: string): void {
  if (actor.operator.kind !== 'admin') {
    throw new Problem('insufficient_scope', `Only ADMIN_TOKEN may ${what} operator tokens; an operator token may list them.`);
  }
}

/** Operator: the named tokens of the admin API (besides the bootstrap ADMIN_TOKEN). */
@ApiTags('admin')
@AdminApi()
@Controller('api/v1/admin/operator-tokens')
export class OperatorsAdminController {
  constructor(private readonly operators: OperatorsService) {}

  @Post()
  @ApiOperation({
    operationId: 'createOperatorToken',
    summary: 'Create a named operator token',
    description:
      'An admin API credential for one person or tool, so that the audit trail says who did what. The token (`eprop_…`) is in this response only (`Cache-Control: no-store`); only its SHA-256 is stored. ' +
      'It works on every admin route (never on the client API) until revoked. ' +
      'With an `email`, the operator also signs in to the console (`/operator`) by a single-use link mailed there (409 `conflict` when a live operator has that address); revoking the token ends that too. ' +
      '**Only `ADMIN_TOKEN` may create one**: an operator token gets 403 `insufficient_scope` here.',
  })
  @ApiCreatedResponse({ description: 'The operator token, with its secret: shown this once, never again.', type: CreatedOperatorTokenDto })
  @ApiProblems(400, 403, 409, 413, 415, 422)
  async create(@Body() body: CreateOperatorTokenDto, @CurrentActor() actor: Actor): Promise<CreatedOperatorTokenDto> {
    onlyAdminToken(actor, 'create');
    return CreatedOperatorTokenDto.fromCreated(await this.operators.create(body.name, actor, body.email ?? null));
  }

  @Get()
  @ApiOperation({
    operationId: 'listOperatorTokens',
    summary: 'List operator tokens (metadata only), newest first',
    description: 'Revoked ones included.',
  })
  @ApiOkResponse({ description: 'Every operator token (metadata only, no secret).', type: [OperatorTokenDto] })
  async list(): Promise<OperatorTokenDto[]> {
    return (await this.operators.list()).map(OperatorTokenDto.from);
  }

  @Delete(':operator_token_id')
  @HttpCode(204)
  @ApiOperation({
    operationId: 'revokeOperatorToken',
    summary: 'Revoke an operator token',
    description:
      'Takes effect on the next request. Revoking a revoked token is a no-op (204). ' +
      '**Only `ADMIN_TOKEN` may revoke one**: an operator token gets 403 `insufficient_scope` here.',
  })
  @ApiParam({ name: 'operator_token_id', format: 'uuid', description: 'The operator token id' })
  @ApiNoContentResponse({ description: 'Revoked (or already revoked).' })
  @ApiProblems(403, 404)
  async revoke(@Param('operator_token_id') id: string, @CurrentActor() actor: Actor): Promise<void> {
    onlyAdminToken(actor, 'revoke');
    await this.operators.revoke(id, actor);
  }
}
