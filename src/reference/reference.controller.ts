import { Controller, Get, Inject, Req, Res } from '@nestjs/common';
import { ApiExcludeEndpoint, ApiOkResponse, ApiOperation, ApiProduces, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { OutgoingHttpHeaders } from 'node:http';
import type { Request, Response } from 'express';
import { Public } from '../common/openapi.js';
import type { PublishedFileName } from './build/reference-files.js';
import { type Encoding, ReferenceStore } from './reference-store.js';
import { referenceSchemaRef } from './reference-openapi.js';

/** Browsers and CDNs may keep a copy 5 minutes, then revalidate with the ETag (cheap 304). */
export const REFERENCE_CACHE_CONTROL = 'public, max-age=300, stale-while-revalidate=86400';

/** Where each published file is served (also `GET /api/v1` for the index). */
export const PUBLISHED_PATHS = [
  'api/v1/pricing.json',
  'api/v1/streams.json',
  'api/v1/law.json',
  'api/v1/obligations.json',
  'api/v1/index.json',
  'llms.txt',
];

const ETAG = { required: true, description: 'Strong validator of this representation (one per content coding); send it back in `If-None-Match`.', schema: { type: 'string', example: '"3q2-7w"' } };
const LAST_MODIFIED = { required: true, description: 'When the file was built (HTTP date); `If-Modified-Since` is honoured too.', schema: { type: 'string' } };
const CACHE_CONTROL = { required: true, description: 'Shared caches may keep it 5 minutes, then revalidate.', schema: { type: 'string', example: REFERENCE_CACHE_CONTROL } };
/** Headers of the 200 (a 304 repeats the validators, and no body). */
const VALIDATORS = { ETag: ETAG, 'Last-Modified': LAST_MODIFIED, 'Cache-Control': CACHE_CONTROL };
const NOT_MODIFIED = { status: 304, description: 'Not modified: the `If-None-Match` ETag (or `If-Modified-Since`) is current.', headers: VALIDATORS };

/** The public reference data: prebuilt bytes from memory, with validators, compression and CORS. */
@ApiTags('reference data')
@Public()
@Controller()
export class ReferenceController {
  private readonly prepared = new Map<string, PreparedResponse>();

  constructor(@Inject(ReferenceStore) private readonly store: ReferenceStore) {}

  @Get('api/v1/pricing.json')
  @ApiOperation({ operationId: 'getPricing', summary: "The service's plans and prices (EUR, VAT excluded)" })
  @ApiOkResponse({ description: 'The pricing document.', schema: referenceSchemaRef('pricing'), headers: VALIDATORS })
  @ApiResponse(NOT_MODIFIED)
  pricing(@Req() req: Request, @Res() res: Response): void {
    this.send('pricing.json', req, res);
  }

  @Get('api/v1/streams.json')
  @ApiOperation({ operationId: 'getStreams', summary: 'EPR streams: units, material categories, eco-organisms, law' })
  @ApiOkResponse({ description: 'The streams document.', schema: referenceSchemaRef('streams'), headers: VALIDATORS })
  @ApiResponse(NOT_MODIFIED)
  streams(@Req() req: Request, @Res() res: Response): void {
    this.send('streams.json', req, res);
  }

  @Get('api/v1/law.json')
  @ApiOperation({ operationId: 'getLaw', summary: 'Legal texts on French packaging EPR, with sources' })
  @ApiOkResponse({ description: 'The law document.', schema: referenceSchemaRef('law'), headers: VALIDATORS })
  @ApiResponse(NOT_MODIFIED)
  law(@Req() req: Request, @Res() res: Response): void {
    this.send('law.json', req, res);
  }

  @Get('api/v1/obligations.json')
  @ApiOperation({ operationId: 'getObligations', summary: 'What a packaging producer must do, with legal basis' })
  @ApiOkResponse({ description: 'The obligations document.', schema: referenceSchemaRef('obligations'), headers: VALIDATORS })
  @ApiResponse(NOT_MODIFIED)
  obligations(@Req() req: Request, @Res() res: Response): void {
    this.send('obligations.json', req, res);
  }

  @Get('api/v1/index.json')
  @ApiOperation({ operationId: 'getIndex', summary: 'Index of the reference data and of the client API' })
  @ApiOkResponse({ description: 'The index document.', schema: referenceSchemaRef('index'), headers: VALIDATORS })
  @ApiResponse(NOT_MODIFIED)
  index(@Req() req: Request, @Res() res: Response): void {
    this.send('index.json', req, res);
  }

  /** Same document as /api/v1/index.json. */
  @Get('api/v1')
  @ApiExcludeEndpoint()
  root(@Req() req: Request, @Res() res: Response): void {
    this.send('index.json', req, res);
  }

  @Get('llms.txt')
  @ApiOperation({ operationId: 'getLlmsTxt', summary: 'Markdown summary of the service (llms.txt)' })
  @ApiProduces('text/markdown')
  @ApiOkResponse({ description: 'The summary, in Markdown.', content: { 'text/markdown': { schema: { type: 'string' } } }, headers: VALIDATORS })
  @ApiResponse(NOT_MODIFIED)
  llms(@Req() req: Request, @Res() res: Response): void {
    this.send('llms.txt', req, res);
  }

  private send(name: PublishedFileName, req: Request, res: Response): void {
    const response = this.response(name, negotiateEncoding(req));
    // One writeHead with prebuilt headers (the hot path of the public files).
    if (isNotModified(req, response.lastModified, response.etags)) {
      res.writeHead(304, response.notModifiedHeaders).end();
      return;
    }
    res.writeHead(200, response.headers).end(req.method === 'HEAD' ? undefined : response.body);
  }

  /** The response of one file in one encoding, headers included, built once. */
  private response(name: PublishedFileName, encoding: Encoding): PreparedResponse {
    const key = `${name} ${encoding}`;
    let prepared = this.prepared.get(key);
    if (!prepared) {
      const file = this.store.get(name);
      const variant = file.variants[encoding];
      const common = {
        'Content-Type': file.contentType,
        'Cache-Control': REFERENCE_CACHE_CONTROL,
        Vary: 'Accept-Encoding',
        ETag: variant.etag,
        'Last-Modified': file.lastModified,
        'Cross-Origin-Resource-Policy': 'cross-origin',
        'Access-Control-Allow-Origin': '*',
        'Access-Control-Expose-Headers': 'ETag, Last-Modified, Content-Length',
      };
      prepared = {
        body: variant.body,
        lastModified: file.lastModified,
        etags: Object.values(file.variants).map((v) => v.etag),
        notModifiedHeaders: common,
        headers: { ...common, ...(encoding === 'identity' ? {} : { 'Content-Encoding': encoding }), 'Content-Length': variant.body.length },
      };
      this.prepared.set(key, prepared);
    }
    return prepared;
  }
}

interface PreparedResponse {
  body: Buffer;
  lastModified: string;
  etags: string[];
  headers: OutgoingHttpHeaders;
  notModifiedHeaders: OutgoingHttpHeaders;
}

const negotiated = new Map<string, Encoding>();

/**
 * Brotli, then gzip, when the client accepts them at all (the smallest prebuilt variant wins).
 * Clients send few distinct Accept-Encoding values: the answers are remembered (at most 100).
 */
function negotiateEncoding(req: Request): Encoding {
  const acceptEncoding = req.headers['accept-encoding'];
  if (!acceptEncoding) return 'identity';
  let encoding = negotiated.get(acceptEncoding);
  if (encoding === undefined) {
    encoding = req.acceptsEncodings('br') ? 'br' : req.acceptsEncodings('gzip') ? 'gzip' : 'identity';
    if (negotiated.size >= 100) negotiated.clear();
    negotiated.set(acceptEncoding, encoding);
  }
  return encoding;
}

/** RFC 9110 §13.1.2/§13.1.3: If-None-Match (weak comparison) wins over If-Modified-Since. */
function isNotModified(req: Request, lastModified: string, etags: string[]): boolean {
  const ifNoneMatch = req.headers['if-none-match'];
  if (ifNoneMatch !== undefined) {
    if (ifNoneMatch.trim() === '*') return true;
    const given = ifNoneMatch.split(',').map((tag) => tag.trim().replace(/^W\//, ''));
    return given.some((tag) => etags.includes(tag));
  }
  const since = req.headers['if-modified-since'];
  if (since === undefined) return false;
  const time = Date.parse(since);
  return !Number.isNaN(time) && Date.parse(lastModified) <= time;
}
