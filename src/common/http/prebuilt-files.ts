import { createHash } from 'node:crypto';
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { NextFunction, Request, Response } from 'express';

export type Encoding = 'br' | 'gzip' | 'identity';
const ENCODINGS: readonly Encoding[] = ['identity', 'gzip', 'br'];

/** One encoding of a file, ready to write as is. */
export interface Representation {
  body: Buffer;
  etag: string;
}

/**
 * A public file served from memory: its bytes in every encoding (built once, possibly on first
 * use), and the headers of its kind (CORS for data files, a Content-Security-Policy for pages).
 */
export interface PrebuiltFile {
  contentType: string;
  /** HTTP date. */
  lastModified: string;
  cacheControl: string;
  headers: OutgoingHttpHeaders;
  variant(encoding: Encoding): Representation;
}

/** Browsers and CDNs may keep a copy 5 minutes, then revalidate with the ETag (cheap 304). */
export const PUBLIC_CACHE_CONTROL = 'public, max-age=300, stale-while-revalidate=86400';

/** A strong ETag per encoding: the same bytes always get the same tag, whichever process serves them. */
export function representation(body: Buffer, encoding: Encoding): Representation {
  const hash = createHash('sha256').update(body).digest('base64url').slice(0, 27);
  return { body, etag: `"${hash}${encoding === 'identity' ? '' : `-${encoding}`}"` };
}

/**
 * GET and HEAD of an exact set of paths (case-sensitive, query ignored, as the router's), answered
 * from memory before Nest's router with validators (ETag, Last-Modified, 304), prebuilt gzip/brotli
 * bytes chosen by Accept-Encoding and Cache-Control. A static public file needs none of what the
 * router, guards and pipes do for an API route, and skipping them is what makes it cheaper than any
 * route (see "Benchmarks" in the README). Every other request goes on to the router.
 */
export class PrebuiltFiles {
  private readonly prepared = new Map<PrebuiltFile, PreparedResponse[]>();

  /**
   * @param securityHeaders the headers every response carries (helmet's), sent by `answer`, which
   *   runs before Nest, whose helmet would set them; a file's own headers take precedence.
   */
  constructor(
    private readonly routes: ReadonlyMap<string, PrebuiltFile>,
    private readonly securityHeaders: OutgoingHttpHeaders = {},
  ) {}

  /** The paths answered. */
  paths(): string[] {
    return [...this.routes.keys()];
  }

  readonly use = (req: Request, res: Response, next: NextFunction): void => {
    const file = req.method === 'GET' || req.method === 'HEAD' ? this.routes.get(pathOf(req.originalUrl)) : undefined;
    if (file === undefined) next();
    else this.send(file, req, res);
  };

  /**
   * The earliest answer: GET or HEAD of a listed path, on a response no header was set on yet.
   * One writeHead with the prebuilt header list (security headers included), the request id
   * appended. Returns the path answered, or undefined, having done nothing, for any other request.
   */
  answer(req: IncomingMessage, res: ServerResponse, requestId: string): string | undefined {
    const method = req.method;
    if (method !== 'GET' && method !== 'HEAD') return undefined;
    const path = pathOf(req.url ?? '');
    const file = this.routes.get(path);
    if (file === undefined) return undefined;
    const response = this.response(file, negotiateEncoding(req));
    const notModified = isNotModified(req, response.lastModified, response.etags);
    const headers = (notModified ? response.rawNotModified : response.raw).slice();
    headers.push('X-Request-Id', requestId);
    res.writeHead(notModified ? 304 : 200, headers);
    res.end(notModified || method === 'HEAD' ? undefined : response.body);
    return path;
  }

  send(file: PrebuiltFile, req: Request, res: Response): void {
    const response = this.response(file, negotiateEncoding(req));
    // One writeHead with prebuilt headers (they take precedence over any set before, e.g. helmet's CSP).
    if (isNotModified(req, response.lastModified, response.etags)) {
      res.writeHead(304, response.notModifiedHeaders).end();
      return;
    }
    res.writeHead(200, response.headers).end(req.method === 'HEAD' ? undefined : response.body);
  }

  /** The response of one file in one encoding, headers included, built once. */
  private response(file: PrebuiltFile, encoding: Encoding): PreparedResponse {
    let byEncoding = this.prepared.get(file);
    if (!byEncoding) this.prepared.set(file, (byEncoding = []));
    const slot = ENCODINGS.indexOf(encoding);
    let prepared = byEncoding[slot];
    if (!prepared) {
      const variant = file.variant(encoding);
      // What a 304 repeats: the validators and caching, never Content-Type (it has no content: RFC 9110 §15.4.5).
      const common = {
        'Cache-Control': file.cacheControl,
        Vary: 'Accept-Encoding',
        ETag: variant.etag,
        'Last-Modified': file.lastModified,
        ...file.headers,
      };
      const headers = {
        'Content-Type': file.contentType,
        ...common,
        ...(encoding === 'identity' ? {} : { 'Content-Encoding': encoding }),
        'Content-Length': variant.body.length,
      };
      prepared = byEncoding[slot] = {
        body: variant.body,
        lastModified: file.lastModified,
        etags: ENCODINGS.map((e) => file.variant(e).etag),
        notModifiedHeaders: common,
        headers,
        raw: flatHeaders(this.securityHeaders, headers),
        rawNotModified: flatHeaders(this.securityHeaders, common),
      };
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
  /** The same with the security headers, as `[name, value, name, value…]` for writeHead. */
  raw: string[];
  rawNotModified: string[];
}

/** `base` overridden by `own` (names compared ignoring case), flattened for writeHead. */
function flatHeaders(base: OutgoingHttpHeaders, own: OutgoingHttpHeaders): string[] {
  const merged = new Map<string, [string, string]>();
  for (const headers of [base, own]) {
    for (const [name, value] of Object.entries(headers)) {
      if (value !== undefined) merged.set(name.toLowerCase(), [name, String(value)]);
    }
  }
  return [...merged.values()].flat();
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
function negotiateEncoding(req: IncomingMessage): Encoding {
  const acceptEncoding = req.headers['accept-encoding'];
  if (!acceptEncoding) return 'identity';
  let encoding = negotiated.get(acceptEncoding);
  if (encoding === undefined) {
    encoding = acceptsEncoding(acceptEncoding, 'br') ? 'br' : acceptsEncoding(acceptEncoding, 'gzip') ? 'gzip' : 'identity';
    if (negotiated.size >= 100) negotiated.clear();
    negotiated.set(acceptEncoding, encoding);
  }
  return encoding;
}

/**
 * Whether an Accept-Encoding field value (RFC 9110 §12.5.3) accepts a content coding: named with a
 * weight above 0, or not named and `*` has a weight above 0. Codings compare ignoring case.
 */
export function acceptsEncoding(field: string, coding: string): boolean {
  let star: number | undefined;
  for (const member of field.split(',')) {
    const [name = '', ...params] = member.split(';');
    let weight = 1;
    for (const param of params) {
      const q = /^\s*q\s*=\s*([0-9.]+)\s*$/i.exec(param);
      if (q) weight = Number(q[1]);
    }
    const named = name.trim().toLowerCase();
    if (named === coding) return weight > 0;
    if (named === '*') star = weight;
  }
  return star !== undefined && star > 0;
}

/** RFC 9110 §13.1.2/§13.1.3: If-None-Match (weak comparison) wins over If-Modified-Since. */
function isNotModified(req: IncomingMessage, lastModified: string, etags: string[]): boolean {
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
