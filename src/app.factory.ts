import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ExpressAdapter, type NestExpressApplication } from '@nestjs/platform-express';
import cookieParser from 'cookie-parser';
import express from 'express';
import proxyAddr from 'proxy-addr';
import { Logger } from 'nestjs-pino';
import { MeFromMemory } from './accounts/me-from-memory.js';
import { AppModule, type AppModuleOptions } from './app.module.js';
import { boundConnections } from './common/http/connection-limits.js';
import { precomputedSecurityHeaders } from './common/http/security-headers.js';
import { RequestLog } from './common/logging.js';
import { PROBLEM_TYPES } from './common/problem/problem.js';
import { PROBLEM_CONTENT_TYPE } from './common/problem/problem-content-type.js';
import { setupOpenApi } from './common/openapi.setup.js';
import { quietFrameworkLogger } from './common/startup.js';
import type { AppConfig } from './config/config.js';
import type { DatabaseConnection } from './database/database-options.js';
import { POOL_SIZE } from './database/database-options.js';
import { EmbeddedPostgres } from './database/embedded-postgres.js';
import { PublicFiles } from './site/public-files.js';

export interface Database {
  connection: DatabaseConnection;
  /** Stops the embedded database, if that is what this is. */
  close(): Promise<void>;
}

/** `DATABASE_URL` when set, else the embedded PostgreSQL under `DATA_DIR`. */
export async function openDatabase(config: AppConfig): Promise<Database> {
  if (config.databaseUrl) return { connection: { url: config.databaseUrl }, close: async () => {} };
  // Room for the pool plus a few maintenance connections (health, tests, migrations).
  const embedded = await EmbeddedPostgres.start(config.dataDir, POOL_SIZE + 5);
  return { connection: embedded.connection, close: () => embedded.stop() };
}

export interface AppOptions extends AppModuleOptions {
  /** Extra modules, for tests only (e.g. a route that throws). */
  extraImports?: Type[];
  /** Tests shorten them. */
  timeouts?: { headersMs: number; requestMs: number };
  /** Set during a graceful stop (main): every response then asks the client to close its connection. */
  draining?: { value: boolean };
}

/** The whole HTTP application, configured as in production (also used by the e2e tests). */
export async function createApp(
  config: AppConfig,
  database: DatabaseConnection,
  options: AppOptions = {},
): Promise<NestExpressApplication> {
  const requestLog = new RequestLog(config, options.logStream);
  const module = AppModule.forRoot(config, database, { ...options, requestLog });
  module.imports = [...(module.imports ?? []), ...(options.extraImports ?? [])];
  // Paths are exact: `/API/V1/ME` and `/api/v1/me/` are not aliases of `/api/v1/me`.
  const instance = express();
  instance.set('case sensitive routing', true);
  instance.set('strict routing', true);
  // Which proxies' X-Forwarded-For gives `req.ip`, the address failed authentications count by.
  instance.set('trust proxy', config.trustProxy);
  // Express would answer `If-None-Match: *` with 304 on any JSON response; conditional requests
  // are supported only where documented (the reference files handle them themselves).
  Object.defineProperty(instance.request, 'fresh', { get: () => false });
  // The dashboard's session and CSRF cookies: nothing else reads cookies, so only its addresses parse them.
  instance.use('/dashboard', cookieParser());
  const app = await NestFactory.create<NestExpressApplication>(module, new ExpressAdapter(instance), {
    bodyParser: false,
    bufferLogs: true,
    // Throw start-up errors to the caller (main logs them and exits) instead of exiting here.
    abortOnError: false,
  });
  app.useLogger(quietFrameworkLogger(app.get(Logger)));
  // First of all, before Express: the request's id and log line, then the public files, answered
  // from memory with their headers (helmet's among them) prebuilt. Every other request gets
  // helmet's headers here (computed once; /docs sets its own after); GET /api/v1/me is answered
  // from memory when it can be (MeFromMemory); the rest goes on to Express and Nest, which mounts
  // no middleware of its own.
  const files = app.get(PublicFiles).files;
  const me = app.get(MeFromMemory);
  // `req.ip` as Express computes it (TRUST_PROXY), for a request answered before Express.
  const trust = instance.get('trust proxy fn') as Parameters<typeof proxyAddr>[1];
  const draining = options.draining;
  const security = Object.entries(precomputedSecurityHeaders()).flatMap(([name, value]) => [name, String(value)]);
  const server = app.getHttpServer() as Server;
  if (!server.listeners('request').includes(instance)) throw new Error('The HTTP server does not dispatch to the Express instance');
  server.removeListener('request', instance);
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const id = requestLog.start(req, res);
    if (draining?.value) res.shouldKeepAlive = false;
    try {
      const file = files.answer(req, res, id);
      if (file !== undefined) {
        RequestLog.setRoute(req, file);
        return;
      }
      res.setHeader('X-Request-Id', id);
      for (let i = 0; i < security.length; i += 2) res.setHeader(security[i]!, security[i + 1]!);
      if (me.answer(req, res, () => proxyAddr(req, trust))) return;
    } catch (error) {
      // Outside Express and Nest, so no exception filter: the same generic 500 as ProblemFilter's.
      failedBeforeRouting(config, req, res, id, error);
      return;
    }
    requestLog.run(id, () => instance(req as express.Request, res as express.Response));
  });
  // Slow or stalled clients: headers within 10 s, the whole request within 30 s (Node answers 408 and closes), idle keep-alive 5 s.
  server.headersTimeout = options.timeouts?.headersMs ?? 10_000;
  server.requestTimeout = options.timeouts?.requestMs ?? 30_000;
  server.keepAliveTimeout = 5_000;
  // How often Node enforces those timeouts (default 30 s); read when the server starts listening.
  (server as Server & { connectionsCheckingInterval: number }).connectionsCheckingInterval = 1_000;
  boundConnections(server);
  app.disable('x-powered-by');
  // No automatic weak ETags on API responses; the reference files set their own.
  app.set('etag', false);
  await setupOpenApi(app);
  return app;
}

/** A 500 problem+json (with only the request id) for an error in the handler that runs before Express; the error goes to the request's log line. */
function failedBeforeRouting(config: AppConfig, req: IncomingMessage, res: ServerResponse, id: string, error: unknown): void {
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
  res.writeHead(500, { 'Content-Type': PROBLEM_CONTENT_TYPE, 'Cache-Control': 'no-store', 'X-Request-Id': id });
  res.end(req.method === 'HEAD' ? undefined : body);
}
