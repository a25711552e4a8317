import { Body, Controller, Get, Header, Headers, Param, Post, Query, Req, Res, StreamableFile } from '@nestjs/common';
import {
  ApiBody,
  ApiConsumes,
  ApiCreatedResponse,
  ApiExtension,
  ApiExtraModels,
  ApiHeader,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiQuery,
  ApiResponse,
  ApiTags,
  getSchemaPath,
} from '@nestjs/swagger';
import type { Request, Response } from 'express';
import type { Account } from '../accounts/account.js';
import { CurrentAccount } from '../accounts/current-account.js';
import { type AuthenticatedClient, CurrentClient } from '../caller/current-client.js';
import { Accepts, CsvBody } from '../common/http/request-body.js';
import { ApiProblems } from '../common/openapi.js';
import { ClientApi } from '../caller/audience.js';
import { PROBLEM_CONTENT_TYPE_BASE } from '../common/problem/problem-content-type.js';
import { ProblemDto } from '../common/problem/problem.dto.js';
import { CSV_RESPONSE_EXAMPLE } from './csv/declaration-csv.openapi.js';
import { CSV_DIALECT_QUERY, type CsvDialect, csvDialectQuery } from '../common/csv/csv-dialect.js';
import { CSV_HEADERS, writeDeclarationCsv } from '../common/csv/declaration-file.js';
import { CSV_MEDIA_TYPE } from '../common/csv/write-csv.js';
import { DeclarationsService } from './declarations.service.js';
import type { DeclarationRecord } from './declaration.js';
import { ReferenceCatalogue } from '../reference/reference-catalogue.js';
import { CreateDeclarationDto } from './dto/create-declaration.dto.js';
import { DeclarationDto, DeclarationPageDto, SubmittedDeclarationDto } from './dto/declaration.dto.js';
import { ListDeclarationsQueryDto } from './dto/list-declarations-query.dto.js';
import { PERIOD_PATTERN_TEXT } from '../calendar/half-year.js';
import { submissionOrigin } from './submission-origin.js';

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
  description:
    '`idempotency_key_in_flight`: the first request with this `Idempotency-Key` is still running; retry after `Retry-After` seconds to get its response.',
  headers: { 'Retry-After': { description: 'Seconds to wait before retrying.', schema: { type: 'string', example: '1' } } },
  content: { [PROBLEM_CONTENT_TYPE_BASE]: { schema: { $ref: getSchemaPath(ProblemDto) } } },
};

@ApiTags('client')
@ApiExtraModels(ProblemDto, DeclarationDto)
@ClientApi()
@Controller('api/v1/declarations')
export class DeclarationsController {
  constructor(
    private readonly declarations: DeclarationsService,
    private readonly catalogue: ReferenceCatalogue,
  ) {}

  @Post()
  @Header('Cache-Control', 'no-store')
  @ApiOperation({
    operationId: 'submitDeclaration',
    summary: 'Submit a declaration for a half-year',
    description: [
      'Validates the whole declaration against the published reference data and your confirmed account, and reports every problem at once (422, one `{pointer, detail, code}` per problem; nothing is stored). A client whose profile was never confirmed gets 422 `account_not_confirmed` (pointer `""`).',
      '',
      "Every new revision records who filed it (`submitted_by`: the token's id and prefix, or the dashboard session) and is written to the operator's audit trail (`declaration.submitted`); a replay or an identical resubmission records nothing.",
      '',
      "**Warnings** (never errors): the answer's `warnings` lists what to check in a declaration that was accepted, each with `pointer`, `code` and `detail` (an empty array when there is nothing to say): `material_uncategorised` for a material that names no category of the stream's published grid (it is stored as written, but will not match a line of the eco-organism's grid), `quantity_maybe_tonnes` for a kg line that gives under 0.1 g of its material per consumer sales unit of the same material's uvc line (tonnes typed as kilograms). Warnings are not part of the declaration (nor of what makes two submissions identical); a replay with the same `Idempotency-Key` gives the same ones.",
      '',
      'Declarations are never overwritten: a submission for a period you already declared is revision n+1, the previous one becomes `superseded` and stays readable. Content identical to the current revision (same lines, in any order, and the same `units_sold`) creates nothing: 200 with the current revision.',
      '',
      '**Units sold** (optional, added in this version; a body without it is read as before): `units_sold` states, once per stream that counts sales units (household packaging, `EMB`), the consumer sales units (UVC) placed on the market in the half-year, every unit once. A `uvc` line counts the units whose packaging contains its material (a glass jar with a steel lid is on the glass line and on the steel line), so the lines are never added up across materials: `totals` holds `kg` only, and the filing tier (`GET /api/v1/me/years/{year}`) is computed from `units_sold` where stated, else given as a range. In a CSV file, a row in `uvc` with the material cell empty states them (`EMB,,uvc,90000`).',
      '',
      `**From a spreadsheet**: send the lines as \`text/csv\` with the period in the address (\`?period=2025-S1\`): a header row naming the columns \`stream\`, \`material\`, \`unit\`, \`quantity\` (or ${CSV_HEADERS.fr.map((name) => `\`${name}\``).join(', ')}) in any order, then one row per line. Comma or semicolon separated (detected), UTF-8 with or without BOM or Windows-1252, CRLF or LF, quoted cells; in a semicolon-separated file quantities may use a decimal comma (\`12,5\`). Blank rows and trailing empty cells are ignored. Problems point at cells as a spreadsheet numbers rows (header = row 1): \`/rows/12/quantity\`, with \`row\`. Same rules, limits (1,000 lines, 1 MiB), revisions, idempotency and answers as JSON. A blank template: \`GET /api/v1/declaration-template.csv\`.`,
      '',
      '**Idempotency**: send an `Idempotency-Key` (1–255 visible ASCII characters, e.g. a UUID) to retry safely. Keys are per client and kept 24 hours. The same key with the same body (compared as JSON, key order ignored) replays the first response with `Idempotent-Replayed: true`; with another body → 422 `idempotency_key_reused`; while the first request is still running → 409 `idempotency_key_in_flight` with `Retry-After`. Requests that fail are not remembered. A 503 or a lost connection does not say whether the declaration was stored (the database may have committed it as the connection failed): send the same request with the same key, and the answer is the stored declaration if it was, a new filing if it was not.',
    ].join('\n'),
  })
  @ApiHeader({
    name: 'Idempotency-Key',
    required: false,
    description:
      '1–255 visible ASCII characters; the quoted form of the IETF draft (`"…"`) names the same key. Else 422 pointer `/headers/idempotency-key`.',
    schema: { type: 'string', minLength: 1, maxLength: 257, pattern: '^[\\x21-\\x7E]{1,255}$|^"[\\x21\\x23-\\x5B\\x5D-\\x7E]{1,255}"$' },
  })
  @Accepts('json', 'csv')
  @ApiConsumes('application/json', 'text/csv')
  @ApiBody({
    type: CreateDeclarationDto,
    // Examples that succeed as they stand (test/openapi-examples.e2e-spec.ts runs them): household packaging
    // (EMB) declares each material in kg AND in uvc (reference-data/streams.yaml, unit_requirements).
    examples: {
      household: {
        summary: 'Household packaging: each material in kg and in uvc',
        value: {
          period: '2025-S1',
          lines: [
            { stream: 'EMB', material: 'glass', unit: 'kg', quantity: 1200.5 },
            { stream: 'EMB', material: 'glass', unit: 'uvc', quantity: 4800 },
            { stream: 'EMB', material: 'paper_cardboard', unit: 'kg', quantity: 310 },
            { stream: 'EMB', material: 'paper_cardboard', unit: 'uvc', quantity: 1500 },
          ],
        },
      },
      unitsSold: {
        summary: 'Household packaging with the units sold: 6,000 units, 4,800 of them in glass, 1,500 with cardboard',
        value: {
          period: '2025-S1',
          lines: [
            { stream: 'EMB', material: 'glass', unit: 'kg', quantity: 1200.5 },
            { stream: 'EMB', material: 'glass', unit: 'uvc', quantity: 4800 },
            { stream: 'EMB', material: 'paper_cardboard', unit: 'kg', quantity: 310 },
            { stream: 'EMB', material: 'paper_cardboard', unit: 'uvc', quantity: 1500 },
          ],
          units_sold: [{ stream: 'EMB', quantity: 6000 }],
        },
      },
    },
  })
  @ApiQuery({
    name: 'period',
    required: false,
    description:
      'With a `text/csv` body only (required then): the half-year the file declares, `YYYY-S1` or `YYYY-S2`. Else 422 pointer `/query/period`.',
    // No example: Swagger UI would send it with every JSON body too.
    schema: { type: 'string', pattern: PERIOD_PATTERN_TEXT },
  })
  @ApiCreatedResponse({
    description: 'A new revision, stored, with what to check in it (`warnings`).',
    type: SubmittedDeclarationDto,
    headers: { Location: LOCATION, 'Idempotent-Replayed': REPLAYED, 'Cache-Control': NO_STORE },
  })
  @ApiOkResponse({
    description: 'Identical to the current revision: nothing new was stored; the current revision, with what to check in it (`warnings`).',
    type: SubmittedDeclarationDto,
    headers: { Location: LOCATION, 'Idempotent-Replayed': REPLAYED, 'Cache-Control': NO_STORE },
  })
  @ApiResponse(IN_FLIGHT)
  @ApiProblems(400, 413, 415, 422)
  async submit(
    @CurrentAccount() account: Account,
    @CurrentClient() client: AuthenticatedClient,
    // Validated by DeclarationValidator on the raw JSON, so that every problem is reported at once.
    @Body() body: unknown,
    @Query('period') period: unknown,
    @Headers('idempotency-key') idempotencyKey: string | undefined,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<SubmittedDeclarationDto> {
    const origin = submissionOrigin(req);
    const answer = (declaration: DeclarationRecord) => DeclarationDto.from(declaration, this.catalogue);
    const options = { idempotency: { key: idempotencyKey, answer } };
    const result =
      body instanceof CsvBody
        ? await this.declarations.submitCsv(account, body, typeof period === 'string' ? period : undefined, origin, options)
        : await this.declarations.submit(account, body, origin, options);
    const filed = result.replayed ? DeclarationDto.reorder(result.answer as DeclarationDto) : answer(result.declaration);
    res.status(result.status);
    res.setHeader('Location', `/api/v1/declarations/${filed.id}`);
    if (result.replayed) res.setHeader('Idempotent-Replayed', 'true');
    return { ...filed, warnings: result.warnings.map(({ pointer, code, detail }) => ({ pointer, code, detail })) };
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
  @ApiOkResponse({
    description: 'A page of your declarations, newest first, with `next_cursor` when there are more.',
    type: DeclarationPageDto,
    headers: { 'Cache-Control': NO_STORE },
  })
  @ApiProblems(400, 422)
  async list(@CurrentClient() client: AuthenticatedClient, @Query() query: ListDeclarationsQueryDto): Promise<DeclarationPageDto> {
    return DeclarationPageDto.from(await this.declarations.list(client.clientId, query, client.mode));
  }

  // Before ':id', which would otherwise take `<uuid>.csv` as an id.
  @Get(':id.csv')
  @Header('Cache-Control', 'no-store')
  @ApiOperation({
    operationId: 'getDeclarationCsv',
    summary: 'One of your declarations, as a CSV file',
    description:
      'The lines of `GET /api/v1/declarations/{id}` as a CSV file (the same as that route with `Accept: text/csv`), in an operation of its own so that a generated client types the answer as text without a cast. ' +
      `UTF-8 with BOM, comma-separated, CRLF, header \`stream,material,unit,quantity\`, a file name in \`Content-Disposition\`; with \`dialect=fr\`, French Excel's: \`;\`, decimal comma, header \`${CSV_HEADERS.fr.join(';')}\`. Either uploads again unchanged (a quantity such as 1.234, which could be read as thousands, is written 1.2340). Cells a spreadsheet would run as a formula get one more \`'\` before the dangerous character, which an upload removes again. Another client's, another mode's, an unknown or a malformed id: 404.`,
  })
  @ApiParam({ name: 'id', schema: { type: 'string', format: 'uuid' } })
  @ApiQuery(CSV_DIALECT_QUERY)
  @ApiOkResponse({
    description: "The declaration's lines as a CSV file.",
    headers: {
      'Cache-Control': NO_STORE,
      'Content-Disposition': { description: '`attachment; filename="declaration-2025-S1-r1.csv"`.', schema: { type: 'string' } },
    },
    content: { 'text/csv': { schema: { type: 'string', example: CSV_RESPONSE_EXAMPLE } } },
  })
  @ApiProblems(404, 422)
  async findOneCsv(
    @CurrentClient() client: AuthenticatedClient,
    @Param('id') id: string,
    @Query('dialect') dialect: unknown,
  ): Promise<StreamableFile> {
    const csvDialect = csvDialectQuery(dialect);
    return declarationCsv(
      DeclarationDto.from(await this.declarations.findOne(client.clientId, id, client.mode), this.catalogue),
      csvDialect,
    );
  }

  @Get(':id')
  @Header('Cache-Control', 'no-store')
  @ApiOperation({
    operationId: 'getDeclaration',
    summary: 'One of your declarations, with its lines',
    description:
      "Any revision, current or superseded. Another client's declaration, an unknown id and a malformed id all get the same 404.\n\n" +
      "Its lines as a CSV file are the operation `getDeclarationCsv` (`GET /api/v1/declarations/{id}.csv`), typed as text for generated clients; `Accept: text/csv` here answers that same file (with `dialect=fr`, French Excel's).",
  })
  @ApiExtension('x-csv-operation', 'getDeclarationCsv')
  @ApiParam({ name: 'id', schema: { type: 'string', format: 'uuid' } })
  @ApiOkResponse({
    description: 'The declaration.',
    headers: { 'Cache-Control': NO_STORE },
    content: { 'application/json': { schema: { $ref: getSchemaPath(DeclarationDto) } } },
  })
  @ApiQuery(CSV_DIALECT_QUERY)
  @ApiProblems(404, 422)
  async findOne(
    @CurrentClient() client: AuthenticatedClient,
    @Param('id') id: string,
    @Query('dialect') dialect: unknown,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<DeclarationDto | StreamableFile> {
    const csvDialect = csvDialectQuery(dialect);
    const declaration = DeclarationDto.from(await this.declarations.findOne(client.clientId, id, client.mode), this.catalogue);
    res.setHeader('Vary', 'Accept');
    if (req.accepts(['application/json', 'text/csv']) !== 'text/csv') return declaration;
    return declarationCsv(declaration, csvDialect);
  }
}

/** A declaration's lines as the CSV file both routes send, in the dialect asked for. */
function declarationCsv(declaration: DeclarationDto, dialect: CsvDialect): StreamableFile {
  return new StreamableFile(
    writeDeclarationCsv(
      declaration.lines.map((line) => ({ ...line, quantity: String(line.quantity) })),
      dialect,
      declaration.units_sold.map((entry) => ({ stream: entry.stream, quantity: String(entry.quantity) })),
    ),
    {
      type: CSV_MEDIA_TYPE,
      disposition: `attachment; filename="declaration-${declaration.period}-r${declaration.revision}.csv"`,
    },
  );
}
