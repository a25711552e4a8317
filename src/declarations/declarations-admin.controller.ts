import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { ApiProblems } from '../common/openapi.js';
import { AdminApi } from '../caller/audience.js';
import { ReferenceCatalogue } from '../reference/reference-catalogue.js';
import { DeclarationsAdminService } from './declarations-admin.service.js';
import { DeclarationDto, DeclarationPageDto } from './dto/declaration.dto.js';
import { ListAdminDeclarationsQueryDto } from './dto/list-admin-declarations-query.dto.js';

/** Operator: every client's declarations. */
@ApiTags('admin')
@AdminApi()
@Controller('api/v1/admin/declarations')
export class DeclarationsAdminController {
  constructor(
    private readonly declarations: DeclarationsAdminService,
    private readonly catalogue: ReferenceCatalogue,
  ) {}

  @Get()
  @ApiOperation({
    operationId: 'adminListDeclarations',
    summary: "List every client's declarations, newest first",
    description: [
      'Every revision of every client by default, newest first by `submitted_at` then `id`; filters: `period`, `client_id`, `stream` (declarations with a line of that stream), `status`, and `submitted_from` (inclusive) / `submitted_to` (exclusive). Items are summaries with `line_count` and exact `totals`; the record is `GET /api/v1/admin/declarations/{id}`.',
      '',
      'Cursor pagination: pass `next_cursor` as `cursor` with the same filters until it is null.',
    ].join('\n'),
  })
  @ApiOkResponse({
    description: 'A page of declarations of every client, newest first, with `next_cursor` when there are more.',
    type: DeclarationPageDto,
  })
  @ApiProblems(422)
  async list(@Query() query: ListAdminDeclarationsQueryDto): Promise<DeclarationPageDto> {
    return DeclarationPageDto.from(await this.declarations.list(ListAdminDeclarationsQueryDto.toQuery(query)));
  }

  @Get(':id')
  @ApiOperation({
    operationId: 'adminGetDeclaration',
    summary: "Any client's declaration, with its lines",
    description: 'Any revision. An unknown or malformed id is a 404.',
  })
  @ApiParam({ name: 'id', schema: { type: 'string', format: 'uuid' } })
  @ApiOkResponse({ description: 'The declaration revision, with its lines and totals.', type: DeclarationDto })
  @ApiProblems(404)
  async findOne(@Param('id') id: string): Promise<DeclarationDto> {
    return DeclarationDto.from(await this.declarations.findOne(id), this.catalogue);
  }
}
