import type { Server } from 'node:http';
import type { Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ExpressAdapter, type NestExpressApplication } from '@nestjs/platform-express';
import cookieParser from 'cookie-parser';
import express from 'express';
import { Logger } from 'nestjs-pino';
import { AppModule, type AppModuleOptions } from './app.module.js';
import { RequestLog } from './common/logging.js';
import { Metrics } from './common/metrics.js';
import { setupOpenApi } from './openapi.js';
import { quietFrameworkLogger } from './common/startup.js';
import type { AppConfig } from './config/config.js';
import type { DatabaseConnection } from './database/database-options.js';
import { POOL_SIZE } from './database/database-options.js';
import { EmbeddedPostgres } from './database/embedded-postgres.js';
import { boundConnections, CONNECTION_LIMITS } from './edge/connection-limits.js';
import { edgeHandler } from './edge/edge-handler.js';
import { MeFromMemory } from './edge/me-from-memory.js';
import { PublicFiles } from './edge/public-files.js';

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
  /** Tests lower them. */
  connectionLimits?: Partial<typeof CONNECTION_LIMITS>;
}

/** The whole HTTP application, configured as in production (also used by the e2e tests). */
export async function createApp(
  config: AppConfig,
  database: DatabaseConnection,
  options: AppOptions = {},
): Promise<NestExpressApplication> {
  const metrics = config.metrics ? new Metrics() : undefined;
  const requestLog = new RequestLog(config, options.logStream, metrics);
  const module = AppModule.forRoot(config, database, { ...options, requestLog, metrics });
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
  // The dashboard's and the operator's console's session and CSRF cookies: nothing else reads cookies, so only their addresses parse them.
  instance.use('/dashboard', cookieParser());
  instance.use('/operator', cookieParser());
  const app = await NestFactory.create<NestExpressApplication>(module, new ExpressAdapter(instance), {
    bodyParser: false,
    bufferLogs: true,
    // Throw start-up errors to the caller (main logs them and exits) instead of exiting here.
    abortOnError: false,
  });
  app.useLogger(quietFrameworkLogger(app.get(Logger)));
  // The edge: what answers before Express and Nest (src/edge/edge-handler.ts), in place of Express as the server's listener.
  const server = app.getHttpServer() as Server;
  if (!server.listeners('request').includes(instance)) throw new Error('The HTTP server does not dispatch to the Express instance');
  server.removeListener('request', instance);
  const connectionLimits = { ...CONNECTION_LIMITS, ...options.connectionLimits };
  const edge = edgeHandler({
    config,
    requestLog,
    files: app.get(PublicFiles),
    me: app.get(MeFromMemory),
    app: instance,
    draining: options.draining,
    connectionLimits,
  });
  server.on('request', edge.listener);
  // Slow or stalled clients: headers within 5 s, the whole request within 30 s (Node answers 408 and closes), idle keep-alive 5 s.
  server.headersTimeout = options.timeouts?.headersMs ?? 5_000;
  server.requestTimeout = options.timeouts?.requestMs ?? 30_000;
  server.keepAliveTimeout = 5_000;
  // How often Node enforces those timeouts (default 30 s); read when the server starts listening.
  (server as Server & { connectionsCheckingInterval: number }).connectionsCheckingInterval = 1_000;
  // Connections: at most so many in all, shared fairly, and per client address (a proxy TRUST_PROXY trusts is counted by the addresses it forwards, at the edge).
  boundConnections(server, connectionLimits, edge.trustsProxy);
  app.disable('x-powered-by');
  // No automatic weak ETags on API responses; the reference files set their own.
  app.set('etag', false);
  await setupOpenApi(app);
  return app;
}
