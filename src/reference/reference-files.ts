import { Inject, Injectable, type NestMiddleware } from '@nestjs/common';
import type { OutgoingHttpHeaders } from 'node:http';
import type { NextFunction, Request, Response } from 'express';
import type { PublishedFileName } from './build/reference-files.js';
import { type Encoding, ReferenceStore } from './reference-store.js';

/** Browsers and CDNs may keep a copy 5 minutes, then revalidate with the ETag (cheap 304). */
export const REFERENCE_CACHE_CONTROL = 'public, max-age=300, stale-while-revalidate=86400';

/** Where each published file is served: the index also at `/api/v1`. */
export const SERVED_FILES: ReadonlyMap<string, PublishedFileName> = new Map<string, PublishedFileName>([
  ['/api/v1/pricing.json', 'pricing.json'],
  ['/api/v1/streams.json', 'streams.json'],
  ['/api/v1/law.json', 'law.json'],
  ['/api/v1/obligations.json', 'obligations.json'],
  ['/api/v1/index.json', 'index.json'],
  ['/api/v1', 'index.json'],
  ['/llms.txt', 'llms.txt'],
  ['/api/v1/declaration-template.csv', 'declaration-template.csv'],
]);

/**
 * The public reference files, answered by this middleware (after the request log and helmet,
 * before Nest's router): GET and HEAD of the paths in SERVED_FILES, exact and case-sensitive as
 * the router's, with validators, compression and CORS. A static public file needs none of what
 * the router, guards and pipes do for an API route, and skipping them is what makes it cheaper
 * than any route (see "Benchmarks" in the README). ReferenceController declares the same routes
 * for the OpenAPI document and the 405 `Allow` lists, and answers through `send` too.
 */
@Injectable()
export class ReferenceFiles implements NestMiddleware {
  private readonly prepared = new Map<string, PreparedResponse>();

  constructor(@Inject(ReferenceStore) private readonly store: ReferenceStore) {}

  use(req: Request, res: Response, next: NextFunction): void {
    const name = req.method === 'GET' || req.method === 'HEAD' ? SERVED_FILES.get(pathOf(req.originalUrl)) : undefined;
    if (name === undefined) next();
    else this.send(name, req, res);
  }

  send(name: PublishedFileName, req: Request, res: Response): void {
    const response = this.response(name, negotiateEncoding(req));
    // One writeHead with prebuilt headers.
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

/** The path of a request target, without its query. */
function pathOf(url: string): string {
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
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
