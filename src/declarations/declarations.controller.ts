import { Body, Controller, Get, Header, Headers, Param, Post, Query, Res } from '@nestjs/common';
import { ApiBody, ApiCreatedResponse, ApiExtraModels, ApiHeader, ApiOkResponse, ApiOperation, ApiParam, ApiResponse, ApiTags, getSchemaPath } from '@nestjs/swagger';
import type { Response } from 'express';
import { type AuthenticatedClient, CurrentClient } from '../auth/current-client.decorator.js';
import { ApiProblems, ClientApi } from '../common/openapi.js';
import { PROBLEM_CONTENT_TYPE_BASE } from '../common/problem/problem-content-type.js';
import { ProblemDto } from '../common/problem/problem.dto.js';
import { DeclarationsService } from './declarations.service.js';
import { CreateDeclarationDto } from './dto/create-declaration.dto.js';
import { DeclarationDto, DeclarationPageDto } from './dto/declaration.dto.js';
import { ListDeclarationsQueryDto } from './dto/list-declarations-query.dto.js';

const LOCATION = {
  description: 'The declaration: `/api/v1/declarations/{id}`.',
  schema: { type: 'string', example: '/api/v1/declarations/0b6f1c2e-6a55-4c1e-9a7e-3f3f1d2a9b10' },
};
const REPLAYED = {
  description: '`true` when this is the stored response of an earlier request with the same `Idempotency-Key` (absent otherwise).',
  schema: { type: 'string', enum: ['true'] },
};
const NO_STORE = { description: 'Always `no-store`.', schema: { type: 'string', example: 'no-store' } };
const IN_FLIGHT = {
  status: 409,
  description: '`idempotency_key_in_flight`: the first request with this `Idempotency-Key` is still running; retry after `Retry-After` seconds to get its response.',
  headers: { 'Retry-After': { description: 'Seconds to wait before retrying.', schema: { type: 'string', example: '1' } } },
  content: { [PROBLEM_CONTENT_TYPE_BASE]: { schema: { $ref: getSchemaPath(ProblemDto) } } },
};

@ApiTags('client')
@ApiExtraModels(ProblemDto)
@ClientApi()
@Controller('api/v1/declarations')
export class DeclarationsController {
  constructor(private readonly declarations: DeclarationsService) {}

  @Post()
  @Header('Cache-Control', 'no-store')
  @ApiOperation({
    operationId: 'submitDeclaration',
    summary: 'Submit a declaration for a half-year',
    description: [
      'Validates the whole declaration against the published reference data and your confirmed account, and reports every problem at once (422, one `{pointer, detail, code}` per problem; nothing is stored). A client whose profile was never confirmed gets 422 `account_not_confirmed` (pointer `""`).',
      '',
      'Declarations are never overwritten: a submission for a period you already declared is revision n+1, the previous one becomes `superseded` and stays readable. Content identical to the current revision (same lines, in any order) creates nothing: 200 with the current revision.',
      '',
      '**Idempotency**: send an `Idempotency-Key` (1–255 visible ASCII characters, e.g. a UUID) to retry safely. Keys are per client and kept 24 hours. The same key with the same body (compared as JSON, key order ignored) replays the first response with `Idempotent-Replayed: true`; with another body → 422 `idempotency_key_reused`; while the first request is still running → 409 `idempotency_key_in_flight` with `Retry-After`. Requests that fail are not remembered.',
    ].join('\n'),
  })
  @ApiHeader({
    name: 'Idempotency-Key',
    required: false,
    description: '1–255 visible ASCII characters; the quoted form of the IETF draft (`"…"`) names the same key. Else 422 pointer `/headers/idempotency-key`.',
    schema: { type: 'string', minLength: 1, maxLength: 257, pattern: '^[\\x21-\\x7E]{1,255}$|^"[\\x21\\x23-\\x5B\\x5D-\\x7E]{1,255}"$' },
  })
  @ApiBody({ type: CreateDeclarationDto })
  @ApiCreatedResponse({ description: 'A new revision, stored.', type: DeclarationDto, headers: { Location: LOCATION, 'Idempotent-Replayed': REPLAYED, 'Cache-Control': NO_STORE } })
  @ApiOkResponse({
    description: 'Identical to the current revision: nothing new was stored; the current revision.',
    type: DeclarationDto,
    headers: { Location: LOCATION, 'Idempotent-Replayed': REPLAYED, 'Cache-Control': NO_STORE },
  })
  @ApiResponse(IN_FLIGHT)
  @ApiProblems(400, 413, 415, 422)
  async submit(
    @CurrentClient() client: AuthenticatedClient,
    // Validated by DeclarationValidator on the raw JSON, so that every problem is reported at once.
    @Body() body: unknown,
    @Headers('idempotency-key') idempotencyKey: string | undefined,
    @Res({ passthrough: true }) res: Response,
  ): Promise<DeclarationDto> {
    const result = await this.declarations.submit(client.account, body, idempotencyKey);
    res.status(result.status);
    res.setHeader('Location', `/api/v1/declarations/${result.body.id}`);
    if (result.replayed) res.setHeader('Idempotent-Replayed', 'true');
    return result.body;
  }

  @Get()
  @Header('Cache-Control', 'no-store')
  @ApiOperation({
    operationId: 'listDeclarations',
    summary: 'List your declarations, newest first',
    description: [
      'Every revision by default (`status=current` for the ones in force), newest first by `submitted_at` then `id`. Items are summaries: the record without `lines`, with `line_count` and the exact `totals`; the full record is `GET /api/v1/declarations/{id}`.',
      '',
      'Cursor pagination only: pass `next_cursor` as `cursor` with the same filters until it is null. Pages stay consistent while new declarations arrive (no row is skipped or repeated).',
    ].join('\n'),
  })
  @ApiOkResponse({ description: 'A page of your declarations, newest first, with `next_cursor` when there are more.', type: DeclarationPageDto, headers: { 'Cache-Control': NO_STORE } })
  @ApiProblems(400, 422)
  list(@CurrentClient() client: AuthenticatedClient, @Query() query: ListDeclarationsQueryDto): Promise<DeclarationPageDto> {
    return this.declarations.list(client.clientId, query);
  }

  @Get(':id')
  @Header('Cache-Control', 'no-store')
  @ApiOperation({
    operationId: 'getDeclaration',
    summary: 'One of your declarations, with its lines',
    description: 'Any revision, current or superseded. Another client\'s declaration, an unknown id and a malformed id all get the same 404.',
  })
  @ApiParam({ name: 'id', schema: { type: 'string', format: 'uuid' } })
  @ApiOkResponse({ description: 'The declaration revision, with its lines and totals.', type: DeclarationDto, headers: { 'Cache-Control': NO_STORE } })
  @ApiProblems(404)
  findOne(@CurrentClient() client: AuthenticatedClient, @Param('id') id: string): Promise<DeclarationDto> {
    return this.declarations.findOne(client.clientId, id);
  }
}
