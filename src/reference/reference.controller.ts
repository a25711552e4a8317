import { Controller, Get, Inject, Req, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { Public } from '../caller/audience.js';
import { REFERENCE_CACHE_CONTROL, ReferenceFiles } from './reference-files.js';
import { referenceSchemaRef } from './reference-openapi.js';

const ETAG = {
  required: true,
  description: 'Strong validator of this representation (one per content coding); send it back in `If-None-Match`.',
  schema: { type: 'string', example: '"3q2-7w"' },
};
const LAST_MODIFIED = {
  required: true,
  description: 'When the file was built (HTTP date); `If-Modified-Since` is honoured too.',
  schema: { type: 'string' },
};
const CACHE_CONTROL = {
  required: true,
  description: 'Shared caches may keep it 5 minutes, then revalidate.',
  schema: { type: 'string', example: REFERENCE_CACHE_CONTROL },
};
/** Headers of the 200 (a 304 repeats the validators, and no body). */
export const VALIDATORS = { ETag: ETAG, 'Last-Modified': LAST_MODIFIED, 'Cache-Control': CACHE_CONTROL };
/** What every file's operation says about fetching it, after what the file holds. */
export function describe(what: string): string {
  return `${what}\n\nPublic: no token, CORS open to any origin, content under CC BY 4.0. Built from the sources in \`reference-data/\` when the service is released and served from memory, compressed with brotli or gzip when \`Accept-Encoding\` allows. Cache it: send the \`ETag\` back in \`If-None-Match\` (or \`Last-Modified\` in \`If-Modified-Since\`) and get an empty 304 while it is unchanged; shared caches may keep it 5 minutes.`;
}
export const NOT_MODIFIED = {
  status: 304,
  description: 'Not modified: the `If-None-Match` ETag (or `If-Modified-Since`) is current.',
  headers: VALIDATORS,
};

/**
 * The public reference data, as documented in the OpenAPI document. The edge's public-files step
 * (src/edge/public-files.ts) answers these GET and HEAD requests before Nest; the handlers answer the same way, with
 * the same `send`, should a request ever reach them.
 */
@ApiTags('reference data')
@Public()
@Controller()
export class ReferenceController {
  constructor(@Inject(ReferenceFiles) private readonly files: ReferenceFiles) {}

  @Get('api/v1/pricing.json')
  @ApiOperation({
    operationId: 'getPricing',
    summary: "The service's plans and prices (EUR, VAT excluded)",
    description: describe(
      'Each plan with its yearly price, the streams it covers and what it includes. These are the prices of this service, not eco-contributions.',
    ),
  })
  @ApiOkResponse({ description: 'The pricing document.', schema: referenceSchemaRef('pricing'), headers: VALIDATORS })
  @ApiResponse(NOT_MODIFIED)
  pricing(@Req() req: Request, @Res() res: Response): void {
    this.files.send('pricing.json', req, res);
  }

  @Get('api/v1/streams.json')
  @ApiOperation({
    operationId: 'getStreams',
    summary: 'EPR streams: units, material categories, eco-organisms, law',
    description: describe(
      'Each stream a client can declare (its `code` is what a declaration line names), with the units it is declared in, its material categories, its eco-organisms, the half-year it is declarable from, its legal texts and sources. Where a fact is not verified, its `verification` field says so.',
    ),
  })
  @ApiOkResponse({ description: 'The streams document.', schema: referenceSchemaRef('streams'), headers: VALIDATORS })
  @ApiResponse(NOT_MODIFIED)
  streams(@Req() req: Request, @Res() res: Response): void {
    this.files.send('streams.json', req, res);
  }

  @Get('api/v1/law.json')
  @ApiOperation({
    operationId: 'getLaw',
    summary: 'Legal texts on French packaging EPR, with sources',
    description: describe(
      'Each text with its reference, date, status, a summary, the streams it concerns, its official address and sources. Not legal advice.',
    ),
  })
  @ApiOkResponse({ description: 'The law document.', schema: referenceSchemaRef('law'), headers: VALIDATORS })
  @ApiResponse(NOT_MODIFIED)
  law(@Req() req: Request, @Res() res: Response): void {
    this.files.send('law.json', req, res);
  }

  @Get('api/v1/obligations.json')
  @ApiOperation({
    operationId: 'getObligations',
    summary: 'What a packaging producer must do, with legal basis',
    description: describe(
      'Each obligation with whom it applies to, its streams, legal basis, periodicity, deadline, the consequence of missing it and sources. Not legal advice.',
    ),
  })
  @ApiOkResponse({ description: 'The obligations document.', schema: referenceSchemaRef('obligations'), headers: VALIDATORS })
  @ApiResponse(NOT_MODIFIED)
  obligations(@Req() req: Request, @Res() res: Response): void {
    this.files.send('obligations.json', req, res);
  }

  @Get('api/v1/index.json')
  @ApiOperation({
    operationId: 'getIndex',
    summary: 'Index of the reference data and of the client API',
    description: describe(
      "The address of every reference file and of the Markdown summary, the client API's base address and endpoints, the licence and the contact. Also served at `/api/v1`.",
    ),
  })
  @ApiOkResponse({ description: 'The index document.', schema: referenceSchemaRef('index'), headers: VALIDATORS })
  @ApiResponse(NOT_MODIFIED)
  index(@Req() req: Request, @Res() res: Response): void {
    this.files.send('index.json', req, res);
  }

  @Get('api/v1')
  @ApiOperation({
    operationId: 'getApiRoot',
    summary: 'Index of the reference data and of the client API (the API root)',
    description: describe('The same document as `/api/v1/index.json`, at the root of the API.'),
  })
  @ApiOkResponse({ description: 'The index document.', schema: referenceSchemaRef('index'), headers: VALIDATORS })
  @ApiResponse(NOT_MODIFIED)
  root(@Req() req: Request, @Res() res: Response): void {
    this.files.send('index.json', req, res);
  }

  @Get('api/v1/declaration-template.csv')
  @ApiOperation({
    operationId: 'getDeclarationTemplate',
    summary: 'A blank declaration file (CSV) to fill in a spreadsheet',
    description: describe(
      'The header `stream,material,unit,quantity` and one example row per published unit (UTF-8 with BOM, comma-separated, CRLF), built from the streams data. Fill it in, then send it to `POST /api/v1/declarations?period=…` as `text/csv`.',
    ),
  })
  @ApiOkResponse({ description: 'The template.', content: { 'text/csv': { schema: { type: 'string' } } }, headers: VALIDATORS })
  @ApiResponse(NOT_MODIFIED)
  declarationTemplate(@Req() req: Request, @Res() res: Response): void {
    this.files.send('declaration-template.csv', req, res);
  }
}
