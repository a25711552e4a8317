import { Body, Controller, Get, Header, Headers, Param, Post, Query, Req, Res } from '@nestjs/common';
import {
  ApiBody,
  ApiConsumes,
  ApiCreatedResponse,
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
import { ClientApi } from '../caller/audience.js';
import { type AuthenticatedClient, CurrentClient } from '../caller/current-client.js';
import { Accepts, CsvBody } from '../common/http/request-body.js';
import { ApiProblems } from '../common/openapi.js';
import { HEAVY_READS_PER_CALLER, HEAVY_READS_PER_PROCESS_TEXT, HeavyRead } from '../rate-limit/heavy-reads.js';
import { PageQueryDto } from '../common/paging/page-query.dto.js';
import { PROBLEM_CONTENT_TYPE_BASE } from '../common/problem/problem-content-type.js';
import { ProblemDto } from '../common/problem/problem.dto.js';
import { DeclarationDto } from '../declarations/dto/declaration.dto.js';
import { PERIOD_PATTERN_TEXT } from '../calendar/half-year.js';
import { CreateProductsDto, CreateSalesDto } from './dto/product-input.dto.js';
import { PRODUCT_CSV_COLUMNS, SALE_CSV_COLUMNS } from './csv/product-csv.js';
import { csvHeader } from '../i18n/csv-columns.js';
import {
  DerivedDeclarationDto,
  ProductContributionPageDto,
  ProductDto,
  ProductPageDto,
  ProductsResultDto,
  SalesResultDto,
} from './dto/product.dto.js';
import { MAX_CATALOGUE_PRODUCTS, MAX_ELEMENTS, MAX_VERSIONS_PER_PRODUCT } from './product-rules.js';
import { submissionOrigin } from '../declarations/submission-origin.js';
import { type ClientWriter, PAGE_VERSIONS, PREVIEW_CONTRIBUTIONS, ProductsService } from './products.service.js';
import { ReferenceCatalogue } from '../reference/reference-catalogue.js';
import type { DeclarationRecord } from '../declarations/declaration.js';

const NO_STORE = { description: 'Always `no-store`.', schema: { type: 'string', example: 'no-store' } };
const FILED_HEADERS = {
  Location: { description: 'The declaration: `/api/v1/declarations/{id}`.', schema: { type: 'string' } },
  'Idempotent-Replayed': {
    description: '`true` when this is the stored response of an earlier request with the same `Idempotency-Key` (absent otherwise).',
    schema: { type: 'string', enum: ['true'] },
  },
  'Cache-Control': NO_STORE,
};
const PERIOD_PARAM = {
  name: 'period',
  description: 'The half-year, `YYYY-S1` or `YYYY-S2` (else 422 `invalid_period_format`, pointer `/path/period`).',
  schema: { type: 'string', pattern: PERIOD_PATTERN_TEXT },
};

const writerOf = (client: AuthenticatedClient, req: Request): ClientWriter => ({
  clientId: client.clientId,
  mode: client.mode,
  tokenId: client.tokenId,
  sessionId: null,
  requestId: typeof req.id === 'string' ? req.id : null,
});

@ApiTags('products')
@ApiExtraModels(ProblemDto, DeclarationDto)
@ClientApi()
@Controller('api/v1')
export class ProductsController {
  constructor(
    private readonly products: ProductsService,
    private readonly catalogue: ReferenceCatalogue,
  ) {}

  @Post('products')
  @Header('Cache-Control', 'no-store')
  @ApiOperation({
    operationId: 'importProducts',
    summary: 'Add products, with their packaging, to your catalogue',
    description: [
      'Each product is your reference, a name, its stream, an optional GTIN, the half-year its packaging applies from (`valid_from`) and its packaging elements (material category of the stream, grams of one element, elements per sales unit; for EPRO, packaging category and reuse status). All or nothing: every problem is reported at once (422, one `{pointer, detail, code}` each), nothing is stored then.',
      '',
      `**Bounds**: a catalogue holds at most ${MAX_CATALOGUE_PRODUCTS.toLocaleString('en')} products per mode (your live data and your test data each), a product at most ${MAX_VERSIONS_PER_PRODUCT} versions and a version at most ${MAX_ELEMENTS} packaging elements; a request that would pass one is refused whole: 422 \`catalogue_full\` (pointer \`/products\`), \`too_many_versions\` (\`/products/{i}/valid_from\`) or \`too_many_elements\`, each error's \`detail\` stating the bound. Beyond ${MAX_CATALOGUE_PRODUCTS.toLocaleString('en')} products, declare per material with \`POST /api/v1/declarations\`.`,
      '',
      '**Versions**: a product posted again with another `valid_from` gets one more version; a derived declaration uses, for each product, the version with the latest `valid_from` not after its period. The same reference and `valid_from` again replaces that version (`replaced`), or changes nothing if identical (`unchanged`) — unless a filed derived declaration used it: then the request is refused (`product_version_filed`), since what was filed never changes; post the new packaging with the half-year it applies from.',
      '',
      `**From a spreadsheet** (\`text/csv\`): one row per packaging element, the product's cells repeated on each of its rows: \`reference\`, \`name\`, \`stream\`, \`gtin\` (optional), \`valid_from\`, \`material\`, \`weight_g\`, \`per_unit\` (optional, 1), \`packaging_category\`, \`reuse_status\` (optional, EPRO) — or in French ${csvHeader(
        'products',
        PRODUCT_CSV_COLUMNS,
        'fr',
      )
        .map((c) => `\`${c}\``)
        .join(
          ', ',
        )}, in any order. Comma or semicolon separated (in a semicolon file, weights may use a decimal comma), UTF-8 or Windows-1252; at most ${(5000).toLocaleString('en')} element rows and 1 MiB. Problems point at cells: \`/rows/7/weight_g\`, with \`row\` (header = 1).`,
    ].join('\n'),
  })
  @Accepts('json', 'csv')
  @ApiConsumes('application/json', 'text/csv')
  @ApiBody({ type: CreateProductsDto })
  @ApiCreatedResponse({
    description: 'What each (reference, valid_from) became.',
    type: ProductsResultDto,
    headers: { 'Cache-Control': NO_STORE },
  })
  @ApiProblems(400, 413, 415, 422)
  async importProducts(
    @CurrentClient() client: AuthenticatedClient,
    @Body() body: unknown,
    @Req() req: Request,
  ): Promise<ProductsResultDto> {
    const writer = writerOf(client, req);
    return ProductsResultDto.from(
      body instanceof CsvBody ? await this.products.importProductsCsv(writer, body) : await this.products.importProducts(writer, body),
    );
  }

  @Get('products')
  @Header('Cache-Control', 'no-store')
  @ApiOperation({
    operationId: 'listProducts',
    summary: 'Your products with their packaging, by reference',
    description: `Every version of each product, the latest \`valid_from\` first. Cursor pagination: pass \`next_cursor\` as \`cursor\` until it is null. A page holds at most \`limit\` products and at most ${PAGE_VERSIONS} versions in all (the first product whatever its number), so it may hold fewer products than \`limit\` while \`has_more\` is true.`,
  })
  @ApiOkResponse({
    description: 'A page of your products, by reference, with `next_cursor` when there are more.',
    type: ProductPageDto,
    headers: { 'Cache-Control': NO_STORE },
  })
  @ApiProblems(400, 422)
  async list(@CurrentClient() client: AuthenticatedClient, @Query() query: PageQueryDto): Promise<ProductPageDto> {
    return ProductPageDto.from(await this.products.list(client, query), this.catalogue);
  }

  @Get('products/:reference')
  @Header('Cache-Control', 'no-store')
  @ApiOperation({
    operationId: 'getProduct',
    summary: 'One of your products, every version',
    description: "Another client's product and an unknown reference get the same 404.",
  })
  @ApiParam({ name: 'reference', schema: { type: 'string' } })
  @ApiOkResponse({
    description: 'The product with every version of its packaging.',
    type: ProductDto,
    headers: { 'Cache-Control': NO_STORE },
  })
  @ApiProblems(404)
  async findOne(@CurrentClient() client: AuthenticatedClient, @Param('reference') reference: string): Promise<ProductDto> {
    return ProductDto.from(await this.products.findOne(client, reference), this.catalogue);
  }

  @Post('sales')
  @Header('Cache-Control', 'no-store')
  @ApiOperation({
    operationId: 'recordSales',
    summary: 'Record the units sold per product in a half-year',
    description: [
      'Sets, for each product listed, its units placed on the French market in the half-year of `?period=` (the period must have started: `period_not_started`); products not listed keep what they had. All or nothing. Refused: a reference that is not one of your products (`unknown_product`), a product without a version in force in the period (`no_version_for_period`), a product twice (`duplicate_reference`).',
      '',
      `**From a spreadsheet** (\`text/csv\`): columns \`reference\`, \`units\` (or ${csvHeader('sales', SALE_CSV_COLUMNS, 'fr')
        .map((c) => `\`${c}\``)
        .join(', ')}), one row per product; same rules, problems at cells (\`/rows/3/units\`).`,
    ].join('\n'),
  })
  @Accepts('json', 'csv')
  @ApiConsumes('application/json', 'text/csv')
  @ApiBody({ type: CreateSalesDto })
  @ApiQuery({
    name: 'period',
    required: true,
    description: 'The half-year, `YYYY-S1` or `YYYY-S2`; else 422 pointer `/query/period`.',
    schema: { type: 'string', pattern: PERIOD_PATTERN_TEXT },
  })
  @ApiOkResponse({ description: 'Recorded; what the period holds now.', type: SalesResultDto, headers: { 'Cache-Control': NO_STORE } })
  @ApiProblems(400, 413, 415, 422)
  async recordSales(
    @CurrentClient() client: AuthenticatedClient,
    @Body() body: unknown,
    @Query('period') period: unknown,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<SalesResultDto> {
    const writer = writerOf(client, req);
    const at = typeof period === 'string' ? period : undefined;
    const result =
      body instanceof CsvBody ? await this.products.recordSalesCsv(writer, at, body) : await this.products.recordSales(writer, at, body);
    res.status(200);
    return SalesResultDto.from(result);
  }

  @Get('periods/:period/derived-declaration')
  @HeavyRead()
  @Header('Cache-Control', 'no-store')
  @ApiOperation({
    operationId: 'previewDerivedDeclaration',
    summary: 'The declaration your catalogue and sales give for a half-year',
    description: [
      'Computed by the database, nothing stored: for each stream and material category, kg = Σ units × elements per unit × grams / 1000, exact (`kg_exact`), and the declaration line rounded to the gram once (`kg`); for household packaging (EMB) the count of sales units whose packaging carries that material (`uvc`). Each product uses the version in force in the period (latest `valid_from` not after it). `contributions` says which product gave what; `declaration_lines` are the lines `POST` files.',
      '',
      `**Size**: when more than ${PREVIEW_CONTRIBUTIONS.toLocaleString('en')} products gave the lines, \`contributions_included\` is false and each line's \`contributions\` is empty: read them page by page from \`GET /api/v1/periods/{period}/derived-declaration/contributions\`. A catalogue holds at most ${MAX_CATALOGUE_PRODUCTS.toLocaleString('en')} products of ${MAX_ELEMENTS} elements each (\`POST /api/v1/products\`). At most ${HEAVY_READS_PER_CALLER} previews, pages of contributions and exports of a client run at once: another answers 429 \`rate_limited\` with \`Retry-After\`. ${HEAVY_READS_PER_PROCESS_TEXT}`,
    ].join('\n'),
  })
  @ApiParam(PERIOD_PARAM)
  @ApiOkResponse({
    description: 'The derived declaration, computed now.',
    type: DerivedDeclarationDto,
    headers: { 'Cache-Control': NO_STORE },
  })
  @ApiProblems(422)
  async preview(@CurrentClient() client: AuthenticatedClient, @Param('period') period: string): Promise<DerivedDeclarationDto> {
    return DerivedDeclarationDto.from(await this.products.preview(client, period), this.catalogue);
  }

  @Get('periods/:period/derived-declaration/contributions')
  @HeavyRead()
  @Header('Cache-Control', 'no-store')
  @ApiOperation({
    operationId: 'listDerivedContributions',
    summary: 'What each product gives the derived declaration, page by page',
    description: [
      "The preview's per-product detail for any catalogue size: each product sold in the half-year with a version in force, by reference, its units and, per material category, the elements and kg it gives (the same figures as the preview's `contributions`). Cursor pagination: pass `next_cursor` as `cursor` until it is null; pages are read as the catalogue is then (use the preview's `lines` for totals).",
    ].join('\n'),
  })
  @ApiParam(PERIOD_PARAM)
  @ApiOkResponse({
    description: 'A page of products, by reference, with `next_cursor` when there are more.',
    type: ProductContributionPageDto,
    headers: { 'Cache-Control': NO_STORE },
  })
  @ApiProblems(400, 422)
  async contributions(
    @CurrentClient() client: AuthenticatedClient,
    @Param('period') period: string,
    @Query() query: PageQueryDto,
  ): Promise<ProductContributionPageDto> {
    return ProductContributionPageDto.from(await this.products.contributionPage(client, period, query), this.catalogue);
  }

  @Post('periods/:period/derived-declaration')
  @Header('Cache-Control', 'no-store')
  @ApiOperation({
    operationId: 'fileDerivedDeclaration',
    summary: 'File the derived declaration as a revision',
    description: [
      'Files the lines of the preview as an ordinary declaration revision: the same rules (your registered streams, the period started), revisions and answers as `POST /api/v1/declarations` (201 new revision, 200 identical to the current one: nothing new is stored then). The revision is recorded as derived, with what each product version gave each line, in the same transaction; the versions it used can no longer be replaced. No body.',
      '',
      '`Idempotency-Key` works as for `POST /api/v1/declarations` (the lines computed are the request compared). No sales in the period: 422 `nothing_to_derive`. If the catalogue or sales change while filing: 409 `conflict`, nothing filed.',
    ].join('\n'),
  })
  @ApiParam(PERIOD_PARAM)
  @ApiHeader({
    name: 'Idempotency-Key',
    required: false,
    description: '1–255 visible ASCII characters (e.g. a UUID); see `POST /api/v1/declarations`.',
    schema: { type: 'string', minLength: 1, maxLength: 257 },
  })
  @ApiCreatedResponse({ description: 'A new revision, derived.', type: DeclarationDto, headers: FILED_HEADERS })
  @ApiOkResponse({
    description: 'Identical to the current revision: nothing new was stored.',
    type: DeclarationDto,
    headers: FILED_HEADERS,
  })
  @ApiResponse({
    status: 409,
    description: '`idempotency_key_in_flight`, or `conflict`: the catalogue or sales changed while filing.',
    content: { [PROBLEM_CONTENT_TYPE_BASE]: { schema: { $ref: getSchemaPath(ProblemDto) } } },
  })
  @ApiProblems(400, 422)
  async file(
    @CurrentAccount() account: Account,
    @CurrentClient() client: AuthenticatedClient,
    @Param('period') period: string,
    @Headers('idempotency-key') idempotencyKey: string | undefined,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<DeclarationDto> {
    const answer = (declaration: DeclarationRecord) => DeclarationDto.from(declaration, this.catalogue);
    const result = await this.products.file(account, writerOf(client, req), period, submissionOrigin(req), {
      idempotency: { key: idempotencyKey, answer },
    });
    const filed = result.replayed ? DeclarationDto.reorder(result.answer as DeclarationDto) : answer(result.declaration);
    res.status(result.status);
    res.setHeader('Location', `/api/v1/declarations/${filed.id}`);
    if (result.replayed) res.setHeader('Idempotent-Replayed', 'true');
    return filed;
  }
}
