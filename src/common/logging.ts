import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Params } from 'nestjs-pino';
import { type DestinationStream, pino } from 'pino';
import type { Options } from 'pino-http';
import type { AppConfig } from '../config/config.js';

/** A client-supplied X-Request-Id is kept only if it is short and plain. */
const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
/** Anything shaped like one of our client tokens (see token-format.ts) or a bearer credential. */
const TOKEN_LIKE = /\b[a-z]{2,10}_[A-Za-z0-9]{20,}_[A-Za-z0-9]{6}\b|(bearer\s+)\S+/gi;
/** The same in a serialised log line: a bearer credential ends at a JSON string's end. */
const TOKEN_LIKE_IN_JSON = /\b[a-z]{2,10}_[A-Za-z0-9]{20,}_[A-Za-z0-9]{6}\b|(bearer\s+)[^\s"\\]+/gi;

/**
 * Live secrets (the admin token) that no log line may hold, as written and as escaped in JSON. They
 * are not token-shaped, so only their value can find them.
 */
const secrets = new Set<string>();

export function registerLogSecret(secret: string | undefined): void {
  if (!secret) return;
  secrets.add(secret);
  secrets.add(JSON.stringify(secret).slice(1, -1));
}

function scrub(text: string, shapes: RegExp): string {
  let out = text.replace(shapes, (_match, bearer?: string) => `${bearer ?? ''}[REDACTED]`);
  for (const secret of secrets) if (out.includes(secret)) out = out.replaceAll(secret, '[REDACTED]');
  return out;
}

export function scrubTokens(text: string): string {
  return scrub(text, TOKEN_LIKE);
}

/** The last pass over every serialised log line, whoever wrote it. */
export function scrubLogLine(line: string): string {
  return scrub(line, TOKEN_LIKE_IN_JSON);
}

export function requestId(req: IncomingMessage, res: ServerResponse): string {
  const given = req.headers['x-request-id'];
  // A token sent as a request id (by mistake or to get it logged and echoed) is replaced, not kept.
  const usable = typeof given === 'string' && SANE_REQUEST_ID.test(given) && scrubTokens(given) === given;
  const id = usable ? given : randomUUID();
  res.setHeader('X-Request-Id', id);
  return id;
}

/** Nest mounts middleware on `<path>{/*splat}`: the route a request matched is the path before it (none for a bare splat). */
function routeTemplate(path: string): string | undefined {
  const template = path.endsWith('{/*splat}') ? path.slice(0, -'{/*splat}'.length) : path;
  return template === '' ? undefined : template;
}

/** The matched route template and the authenticated client, added to a request's line when known. */
function routeAndClient(req: IncomingMessage): { route?: string; client_id?: string } | undefined {
  const express = req as IncomingMessage & { route?: { path?: string }; baseUrl?: string; clientId?: string };
  const route = express.route?.path ? routeTemplate(`${express.baseUrl ?? ''}${express.route.path}`) : undefined;
  return route === undefined && express.clientId === undefined ? undefined : { route, client_id: express.clientId };
}

/**
 * Standard output through a buffer: the request lines of a busy minute go out a few kilobytes per
 * write instead of one write each. A line waits at most a second (periodic flush), and what is
 * buffered is written synchronously when the process exits (pino flushes on `exit`, which the
 * graceful stop and every fatal start-up error reach through process.exit).
 */
export const STDOUT_BUFFER_BYTES = 4096;
export const STDOUT_FLUSH_MS = 1000;

function bufferedStdout(): DestinationStream {
  return pino.destination({ dest: 1, sync: false, minLength: STDOUT_BUFFER_BYTES, periodicFlush: STDOUT_FLUSH_MS });
}

/** nestjs-pino options: one JSON line per request, request id on every line, secrets redacted. */
export function loggerParams(config: AppConfig, stream?: DestinationStream): Params {
  const infoEnabled = ['trace', 'debug', 'info'].includes(config.logLevel);
  registerLogSecret(config.adminToken);
  const options: Options = {
    level: config.logLevel,
    hooks: { streamWrite: scrubLogLine },
    genReqId: requestId,
    customAttributeKeys: { reqId: 'request_id', responseTime: 'duration_ms' },
    // No `redact` paths: the serializers below write no header at all (a credential can only reach
    // a line inside a value they do write, and scrubLogLine takes it out of every line).
    // They read the raw request and response: pino-std-serializers' copies of every header (built
    // for each request, then dropped by ours) are not made.
    wrapSerializers: false,
    serializers: {
      req: (req: IncomingMessage & { originalUrl?: string }) => ({
        method: req.method,
        url: scrubTokens(req.originalUrl ?? req.url ?? ''),
        user_agent: req.headers['user-agent'] === undefined ? undefined : scrubTokens(req.headers['user-agent']),
      }),
      res: (res: ServerResponse) => ({ status: res.statusCode }),
    },
    // The route and client go into the line's own object when the request ends (as `customProps`
    // they would cost a child logger per request, and a call when the request starts).
    customSuccessObject: (req, _res, line: object) => ({ ...routeAndClient(req), ...line }),
    customErrorObject: (req, _res, _error, line: object) => ({ ...routeAndClient(req), ...line }),
    // Below `info` (e.g. LOG_LEVEL=warn), the line of a successful request is not even built.
    customLogLevel: (_req, res, err) => (err || res.statusCode >= 500 ? 'error' : infoEnabled ? 'info' : 'silent'),
    // Keep the log free of anything a client sent in a message.
    customErrorMessage: (_req, res) => `request failed with ${res.statusCode}`,
    quietReqLogger: true,
  };
  return { pinoHttp: [options, stream ?? bufferedStdout()] };
}
