import { Controller, Get, Inject, Req, Res } from '@nestjs/common';
import { ApiExcludeEndpoint, ApiOkResponse, ApiOperation, ApiProduces, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { Public } from '../common/openapi.js';
import { REFERENCE_CACHE_CONTROL, ReferenceFiles } from './reference-files.js';
import { referenceSchemaRef } from './reference-openapi.js';

const ETAG = { required: true, description: 'Strong validator of this representation (one per content coding); send it back in `If-None-Match`.', schema: { type: 'string', example: '"3q2-7w"' } };
const LAST_MODIFIED = { required: true, description: 'When the file was built (HTTP date); `If-Modified-Since` is honoured too.', schema: { type: 'string' } };
const CACHE_CONTROL = { required: true, description: 'Shared caches may keep it 5 minutes, then revalidate.', schema: { type: 'string', example: REFERENCE_CACHE_CONTROL } };
/** Headers of the 200 (a 304 repeats the validators, and no body). */
const VALIDATORS = { ETag: ETAG, 'Last-Modified': LAST_MODIFIED, 'Cache-Control': CACHE_CONTROL };
const NOT_MODIFIED = { status: 304, description: 'Not modified: the `If-None-Match` ETag (or `If-Modified-Since`) is current.', headers: VALIDATORS };

/**
 * The public reference data, as documented in the OpenAPI document. The ReferenceFiles middleware
 * answers these GET and HEAD requests before the router; the handlers answer the same way, with
 * the same `send`, should a request ever reach them.
 */
@ApiTags('reference data')
@Public()
@Controller()
export class ReferenceController {
  constructor(@Inject(ReferenceFiles) private readonly files: ReferenceFiles) {}

  @Get('api/v1/pricing.json')
  @ApiOperation({ operationId: 'getPricing', summary: "The service's plans and prices (EUR, VAT excluded)" })
  @ApiOkResponse({ description: 'The pricing document.', schema: referenceSchemaRef('pricing'), headers: VALIDATORS })
  @ApiResponse(NOT_MODIFIED)
  pricing(@Req() req: Request, @Res() res: Response): void {
    this.files.send('pricing.json', req, res);
  }

  @Get('api/v1/streams.json')
  @ApiOperation({ operationId: 'getStreams', summary: 'EPR streams: units, material categories, eco-organisms, law' })
  @ApiOkResponse({ description: 'The streams document.', schema: referenceSchemaRef('streams'), headers: VALIDATORS })
  @ApiResponse(NOT_MODIFIED)
  streams(@Req() req: Request, @Res() res: Response): void {
    this.files.send('streams.json', req, res);
  }

  @Get('api/v1/law.json')
  @ApiOperation({ operationId: 'getLaw', summary: 'Legal texts on French packaging EPR, with sources' })
  @ApiOkResponse({ description: 'The law document.', schema: referenceSchemaRef('law'), headers: VALIDATORS })
  @ApiResponse(NOT_MODIFIED)
  law(@Req() req: Request, @Res() res: Response): void {
    this.files.send('law.json', req, res);
  }

  @Get('api/v1/obligations.json')
  @ApiOperation({ operationId: 'getObligations', summary: 'What a packaging producer must do, with legal basis' })
  @ApiOkResponse({ description: 'The obligations document.', schema: referenceSchemaRef('obligations'), headers: VALIDATORS })
  @ApiResponse(NOT_MODIFIED)
  obligations(@Req() req: Request, @Res() res: Response): void {
    this.files.send('obligations.json', req, res);
  }

  @Get('api/v1/index.json')
  @ApiOperation({ operationId: 'getIndex', summary: 'Index of the reference data and of the client API' })
  @ApiOkResponse({ description: 'The index document.', schema: referenceSchemaRef('index'), headers: VALIDATORS })
  @ApiResponse(NOT_MODIFIED)
  index(@Req() req: Request, @Res() res: Response): void {
    this.files.send('index.json', req, res);
  }

  /** Same document as /api/v1/index.json. */
  @Get('api/v1')
  @ApiExcludeEndpoint()
  root(@Req() req: Request, @Res() res: Response): void {
    this.files.send('index.json', req, res);
  }

  @Get('llms.txt')
  @ApiOperation({ operationId: 'getLlmsTxt', summary: 'Markdown summary of the service (llms.txt)' })
  @ApiProduces('text/markdown')
  @ApiOkResponse({ description: 'The summary, in Markdown.', content: { 'text/markdown': { schema: { type: 'string' } } }, headers: VALIDATORS })
  @ApiResponse(NOT_MODIFIED)
  llms(@Req() req: Request, @Res() res: Response): void {
    this.files.send('llms.txt', req, res);
  }
}
