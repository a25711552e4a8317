import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Params } from 'nestjs-pino';
import { type DestinationStream, type Logger, type LoggerOptions, pino } from 'pino';
import type { AppConfig } from '../config/config.js';
import type { Metrics } from './metrics.js';

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

/**
 * What an address's local part and domain are made of (letters of every script: addresses are
 * scrubbed, not validated; `/ ? & =` are left out so that a URL's other parts stay readable).
 */
const LOCAL_PART = /[\p{L}\p{N}.!#$%'*+^_`{|}~-]/u;
const DOMAIN_PART = /[\p{L}\p{N}.-]/u;

/**
 * Every e-mail address in the text (`name@example.fr`, and `name%40example.fr` as a URL writes it)
 * replaced by `[EMAIL]`: an SMTP server's rejection quotes the recipient, a query string may hold
 * one. One pass, in time linear in the text (each character is looked at a bounded number of times,
 * whatever the text; a regular expression with a repeated part before the `@` is quadratic on a
 * long run of letters without one).
 */
export function scrubEmails(text: string): string {
  if (!text.includes('@') && !text.includes('%40')) return text;
  let out = '';
  let copied = 0;
  let lastSeparatorEnd = 0;
  for (let at = 0; at < text.length;) {
    const separator = text[at] === '@' ? 1 : text.startsWith('%40', at) ? 3 : 0;
    if (separator === 0) {
      at++;
      continue;
    }
    let start = at;
    while (start > Math.max(copied, lastSeparatorEnd) && LOCAL_PART.test(text[start - 1]!)) start--;
    let end = at + separator;
    while (end < text.length && DOMAIN_PART.test(text[end]!)) end++;
    while (end > at + separator && text[end - 1] === '.') end--;
    const domain = text.slice(at + separator, end);
    lastSeparatorEnd = at + separator;
    if (start < at && domain.includes('.') && !domain.startsWith('.')) {
      out += `${text.slice(copied, start)}[EMAIL]`;
      copied = end;
      at = end;
    } else {
      at += separator;
    }
  }
  return copied === 0 ? text : out + text.slice(copied);
}

function scrub(text: string, shapes: RegExp): string {
  let out = scrubEmails(text.replace(shapes, (_match, bearer?: string) => `${bearer ?? ''}[REDACTED]`));
  for (const secret of secrets) if (out.includes(secret)) out = out.replaceAll(secret, '[REDACTED]');
  return out;
}

export function scrubTokens(text: string): string {
  return scrub(text, TOKEN_LIKE);
}

/** The last pass over every serialised log line, whoever wrote it: tokens, live secrets and e-mail addresses. */
export function scrubLogLine(line: string): string {
  return scrub(line, TOKEN_LIKE_IN_JSON);
}

/** The request's id: its X-Request-Id when short and plain, else a new UUID. */
export function requestIdOf(req: IncomingMessage): string {
  const given = req.headers['x-request-id'];
  // A token sent as a request id (by mistake or to get it logged and echoed) is replaced, not kept.
  const usable = typeof given === 'string' && SANE_REQUEST_ID.test(given) && scrubTokens(given) === given;
  return usable ? given : randomUUID();
}

/** The request's id, sent as X-Request-Id. */
export function requestId(req: IncomingMessage, res: ServerResponse): string {
  const id = requestIdOf(req);
  res.setHeader('X-Request-Id', id);
  return id;
}

/** A batch of log lines goes to stdout when it holds this many characters, or after STDOUT_FLUSH_MS. */
export const STDOUT_BATCH_CHARS = 64 * 1024;
export const STDOUT_FLUSH_MS = 1000;

/** The batches to write before the process exits. */
const unwritten = new Set<BatchedStdout>();
let flushesOnExit = false;

/**
 * Standard output through a batch: lines are gathered as strings and handed to pino's asynchronous
 * destination (sonic-boom) as one string of up to STDOUT_BATCH_CHARS, so that a busy second is a
 * few writes, and sonic-boom's work per write (measuring and appending to its buffer) is done once a
 * batch, not once a line. A line waits at most STDOUT_FLUSH_MS. When the process exits
 * (process.exit: the graceful stop, a fatal start-up error; an uncaught exception) what is gathered
 * and what sonic-boom holds are written synchronously. A SIGKILL loses what is not written yet: at
 * most the last second's lines (docs/operations.md).
 */
export class BatchedStdout implements DestinationStream {
  private lines: string[] = [];
  private chars = 0;
  private readonly out = pino.destination({ dest: 1, sync: false });

  constructor() {
    setInterval(() => this.flush(), STDOUT_FLUSH_MS).unref();
    unwritten.add(this);
    if (!flushesOnExit) {
      flushesOnExit = true;
      process.on('exit', () => {
        for (const batch of unwritten) batch.flushSync();
      });
    }
  }

  write(line: string): void {
    this.lines.push(line);
    this.chars += line.length;
    if (this.chars >= STDOUT_BATCH_CHARS) this.flush();
  }

  /** Hands the gathered lines to sonic-boom, which writes them asynchronously (pino's `logger.flush(cb)` calls it). */
  flush(done?: (error?: Error) => void): void {
    if (this.chars > 0) {
      const batch = this.lines.join('');
      this.lines = [];
      this.chars = 0;
      this.out.write(batch);
    }
    if (done) this.out.flush(done);
  }

  /** Writes everything now (at exit). */
  flushSync(): void {
    this.flush();
    this.out.flushSync();
  }
}

/** pino's options: levels, the request serializer, the last scrub of every line, the request id of lines written during a request. */
export function loggerOptions(config: AppConfig): LoggerOptions {
  registerLogSecret(config.adminToken);
  return {
    level: config.logLevel,
    hooks: { streamWrite: scrubLogLine },
    // No `redact` paths: the serializers below write no header at all (a credential can only reach
    // a line inside a value they do write, and scrubLogLine takes it out of every line).
    serializers: {
      req: (req: IncomingMessage & { originalUrl?: string }) => ({
        method: req.method,
        url: scrubTokens(req.originalUrl ?? req.url ?? ''),
        user_agent: req.headers['user-agent'] === undefined ? undefined : scrubTokens(req.headers['user-agent']),
      }),
      res: (res: ServerResponse) => ({ status: res.statusCode }),
    },
    // Any line written while a request is handled (a service's warning, an error) carries its id:
    // read from the request's context, not from a child logger made for every request.
    mixin: currentRequestId as unknown as LoggerOptions['mixin'],
    mixinMergeStrategy: withRequestId as unknown as LoggerOptions['mixinMergeStrategy'],
  };
}

/** The id of the request being handled, if any (RequestLog.run). */
const requestContext = new AsyncLocalStorage<string>();

function currentRequestId(): string | undefined {
  return requestContext.getStore();
}

function withRequestId(line: Record<string, unknown>, id: string | undefined): object {
  return id === undefined || line.request_id !== undefined ? line : { request_id: id, ...line };
}

const STARTED = Symbol('requestLogStarted');
const LOG = Symbol('requestLog');
const ROUTE = Symbol('requestLogRoute');
const METRICS_ROUTE = Symbol('metricsRoute');
type LoggedRequest = IncomingMessage & {
  originalUrl?: string;
  id?: unknown;
  route?: { path?: string };
  baseUrl?: string;
  clientId?: string;
  [ROUTE]?: string;
  [METRICS_ROUTE]?: string;
};
type LoggedResponse = ServerResponse & { err?: Error; [STARTED]?: number; [LOG]?: RequestLog };

function endOnClose(this: LoggedResponse): void {
  this[LOG]?.end(this);
}

function endOnError(this: LoggedResponse, error: Error): void {
  this[LOG]?.end(this, error);
}

/** The matched route template (Express's, or the one a middleware answered for), if any. */
function routeOf(req: LoggedRequest): string | undefined {
  if (req[ROUTE] !== undefined) return req[ROUTE];
  const path = req.route?.path;
  if (!path) return undefined;
  // Nest mounts middleware on `<path>{/*splat}`: the route a request matched is the path before it (none for a bare splat).
  const full = `${req.baseUrl ?? ''}${path}`;
  const template = full.endsWith('{/*splat}') ? full.slice(0, -'{/*splat}'.length) : full;
  return template === '' ? undefined : template;
}

/**
 * The request log: one JSON line per request (request id, method, URL, user agent, route, client,
 * status, duration), written with the app's pino logger when the response is done; at `warn` and
 * above only the error line of a 5xx (with the error). Per request it costs the id, a `close`
 * listener and the line itself: no child logger, no serializer work before the line is written.
 * nestjs-pino serves the same logger to the rest of the app (Nest's Logger), without its own
 * per-request middleware.
 */
export class RequestLog {
  readonly logger: Logger;
  private readonly stream: DestinationStream;
  private readonly infoEnabled: boolean;
  /** What pino writes before a line's own fields: `{"level":30`, `,"time":…` (its time function), `,"pid":…,"hostname":…`. */
  private readonly infoPrefix: string;
  private readonly time: () => string;
  private readonly bindings: string;

  constructor(
    config: AppConfig,
    stream?: DestinationStream,
    private readonly metrics?: Metrics,
  ) {
    this.stream = stream ?? new BatchedStdout();
    this.logger = pino(loggerOptions(config), this.stream);
    this.infoEnabled = this.logger.isLevelEnabled('info');
    const symbols = pino.symbols;
    const own = this.logger as unknown as Record<symbol, unknown>;
    this.time = own[symbols.timeSym] as () => string;
    this.infoPrefix = `${(own[symbols.lsCacheSym] as Record<number, string>)[this.logger.levels.values.info!]}`;
    this.bindings = own[symbols.chindingsSym] as string;
  }

  /** For LoggerModule: this logger, and no middleware of its own (`forRoutes` empty). */
  params(): Params {
    return { pinoHttp: { logger: this.logger, wrapSerializers: false }, useExisting: true, forRoutes: [] };
  }

  /**
   * Starts a request's log: sets `req.id` (X-Request-Id when sane, else a UUID) and arranges its
   * line for when the response is done. Returns the id; sending it (X-Request-Id) is the caller's.
   */
  start(req: IncomingMessage, res: ServerResponse): string {
    const id = requestIdOf(req);
    (req as LoggedRequest).id = id;
    const logged = res as LoggedResponse;
    logged[STARTED] = Date.now();
    logged[LOG] = this;
    // Listeners shared by every response (no closure per request); the first of them writes the line.
    res.on('close', endOnClose);
    res.on('error', endOnError);
    return id;
  }

  /** The response is done (closed, or failed): its metrics and its line, once. */
  end(res: LoggedResponse, error?: Error): void {
    if (res[LOG] === undefined) return;
    res[LOG] = undefined;
    const req = res.req as LoggedRequest;
    // The route template (a request no route matched is one label, never its path).
    this.metrics?.observeRequest(
      req.method ?? '',
      req[METRICS_ROUTE] ?? routeOf(req) ?? '(unmatched)',
      res.statusCode,
      (Date.now() - res[STARTED]!) / 1000,
    );
    this.write(req, res, req.id as string, error);
  }

  /** Runs the rest of a request in its context: every line written meanwhile carries its id. */
  run(id: string, next: () => void): void {
    requestContext.run(id, next);
  }

  /**
   * The route template of a request answered before the router (e.g. a public file's path), and the
   * route its metrics count it under when that differs (every public file under one).
   */
  static setRoute(req: IncomingMessage, route: string, metricsRoute?: string): void {
    (req as LoggedRequest)[ROUTE] = route;
    if (metricsRoute !== undefined) (req as LoggedRequest)[METRICS_ROUTE] = metricsRoute;
  }

  private write(req: LoggedRequest, res: LoggedResponse, id: string, error: Error | undefined): void {
    const status = res.statusCode;
    const failed = error ?? res.err ?? (status >= 500 ? new Error(`failed with status code ${status}`) : undefined);
    if (failed === undefined && !this.infoEnabled) return;
    const started = res[STARTED]!;
    const route = routeOf(req);
    if (failed !== undefined) {
      const line = { request_id: id, req, route, client_id: req.clientId, res, duration_ms: Date.now() - started };
      // Keep the log free of anything a client sent in a message.
      this.logger.error({ ...line, err: failed }, `request failed with ${status}`);
      return;
    }
    // The line pino would write for logger.info({ request_id, req, route, client_id, res, duration_ms }, msg),
    // built as one string: no object, serializer or mixin per request. Only the URL, the user agent and the
    // client id can hold what a client wrote (the request id is kept only when plain and token-free, the
    // route is a template, the rest is the service's): they are scrubbed as pino's hook scrubs a line.
    const userAgent = req.headers['user-agent'];
    this.stream.write(
      `${this.infoPrefix}${this.time()}${this.bindings},"request_id":${JSON.stringify(id)}` +
        `,"req":{"method":${JSON.stringify(req.method)},"url":${JSON.stringify(scrubTokens(req.originalUrl ?? req.url ?? ''))}` +
        `${userAgent === undefined ? '' : `,"user_agent":${JSON.stringify(scrubTokens(userAgent))}`}}` +
        `${route === undefined ? '' : `,"route":${JSON.stringify(route)}`}` +
        `${req.clientId === undefined ? '' : `,"client_id":${JSON.stringify(scrubTokens(req.clientId))}`}` +
        `,"res":{"status":${status}},"duration_ms":${Date.now() - started}` +
        `,"msg":"${!req.readableAborted && res.writableEnded ? 'request completed' : 'request aborted'}"}\n`,
    );
  }
}
