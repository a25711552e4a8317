import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type express from 'express';
import proxyAddr from 'proxy-addr';
import { RequestLog } from '../common/logging.js';
import { PROBLEM_TYPES } from '../common/problem/problem.js';
import { PROBLEM_CONTENT_TYPE } from '../common/problem/problem-content-type.js';
import type { AppConfig } from '../config/config.js';
import { type CONNECTION_LIMITS, InFlightByAddress, type TrustsProxy } from './connection-limits.js';
import type { MeFromMemory } from './me-from-memory.js';
import type { PublicFiles } from './public-files.js';
import { securityHeaderList } from './security-headers.js';

export interface EdgeParts {
  config: AppConfig;
  requestLog: RequestLog;
  files: PublicFiles;
  me: MeFromMemory;
  /** The Express instance Nest runs on: where everything the edge does not answer goes. */
  app: express.Express;
  /** Set during a graceful stop (main): every response then asks the client to close its connection. */
  draining?: { value: boolean };
  connectionLimits: typeof CONNECTION_LIMITS;
}

/**
 * The HTTP server's request listener: what every request meets before Express and Nest, in order:
 * 1. its request id and log line (RequestLog); 2. the public files (reference files, site pages) from
 * memory with prebuilt headers (PublicFiles); 3. behind a trusted proxy, the in-flight requests of each
 * forwarded address (connection-limits.ts); 4. `GET /api/v1/me` from memory when it can be
 * (MeFromMemory), one writeHead with every header; 5. helmet's headers, computed once, and
 * `X-Request-Id`, then Express and Nest's pipeline.
 * Also returns Express's compiled TRUST_PROXY, which the server's connection limits share.
 */
export function edgeHandler({ config, requestLog, files, me, app, draining, connectionLimits }: EdgeParts): {
  listener: RequestListener;
  trustsProxy: TrustsProxy;
} {
  const security = securityHeaderList();
  // `req.ip` as Express computes it (TRUST_PROXY), for a request answered before Express.
  const trust = app.get('trust proxy fn') as Parameters<typeof proxyAddr>[1];
  // Express's compiled `trust proxy` is always a function.
  const trustsProxy = trust as TrustsProxy;
  const max = connectionLimits.maxConnectionsPerAddress;
  const inFlight = new InFlightByAddress(trustsProxy, (req) => proxyAddr(req, trust), max);
  const listener = (req: IncomingMessage, res: ServerResponse) => {
    const id = requestLog.start(req, res);
    if (draining?.value) res.shouldKeepAlive = false;
    try {
      const file = files.files.answer(req, res, id);
      if (file !== undefined) {
        RequestLog.setRoute(req, file, '(public files)');
        return;
      }
      if (!inFlight.admit(req, res, (refused) => tooManyInFlight(config, refused, id, max, security))) return;
      if (me.answer(req, res, () => proxyAddr(req, trust), id)) return;
      setEdgeHeaders(res, id, security);
    } catch (error) {
      // Outside Express and Nest, so no exception filter: the same generic 500 as ProblemFilter's.
      failedAtTheEdge(config, req, res, id, error, security);
      return;
    }
    requestLog.run(id, () => app(req as express.Request, res as express.Response));
  };
  return { listener, trustsProxy };
}

/** `X-Request-Id` and the security headers, on a response the edge does not answer with one writeHead of its own. */
function setEdgeHeaders(res: ServerResponse, id: string, security: string[]): void {
  res.setHeader('X-Request-Id', id);
  for (let i = 0; i < security.length; i += 2) res.setHeader(security[i]!, security[i + 1]!);
}

/** 429 for a forwarded client address with too many requests in flight (InFlightByAddress); the connection is closed after it. */
function tooManyInFlight(config: AppConfig, res: ServerResponse, id: string, max: number, security: string[]): void {
  const body = JSON.stringify({
    type: `${config.publicBaseUrl}/problems/rate-limited`,
    title: PROBLEM_TYPES.rate_limited.title,
    status: 429,
    detail: `Too many requests in flight from this address (${max} at most at once); retry when one has been answered.`,
    instance: `urn:request:${id}`,
    code: 'rate_limited',
  });
  res.shouldKeepAlive = false;
  setEdgeHeaders(res, id, security);
  res.writeHead(429, { 'Content-Type': PROBLEM_CONTENT_TYPE, 'Cache-Control': 'no-store', 'Retry-After': '1', Connection: 'close' });
  res.end(body);
}

/** A 500 problem+json (with only the request id) for an error at the edge; the error goes to the request's log line. */
function failedAtTheEdge(
  config: AppConfig,
  req: IncomingMessage,
  res: ServerResponse,
  id: string,
  error: unknown,
  security: string[],
): void {
  (res as ServerResponse & { err?: Error }).err = error instanceof Error ? error : new Error(String(error));
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body = JSON.stringify({
    type: `${config.publicBaseUrl}/problems/internal-error`,
    title: PROBLEM_TYPES.internal_error.title,
    status: 500,
    detail: 'An unexpected error occurred. Quote the request id when reporting it.',
    instance: `urn:request:${id}`,
    code: 'internal_error',
  });
  setEdgeHeaders(res, id, security);
  res.writeHead(500, { 'Content-Type': PROBLEM_CONTENT_TYPE, 'Cache-Control': 'no-store', 'X-Request-Id': id });
  res.end(req.method === 'HEAD' ? undefined : body);
}
