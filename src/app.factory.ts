import type { Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { Logger } from 'nestjs-pino';
import type { DestinationStream } from 'pino';
import { AppModule } from './app.module.js';
import { setupOpenApi } from './common/openapi.setup.js';
import type { AppConfig } from './config/config.js';
import type { DatabaseConnection } from './database/database-options.js';
import { POOL_SIZE } from './database/database-options.js';
import { EmbeddedPostgres } from './database/embedded-postgres.js';

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

export interface AppOptions {
  /** Where the JSON log lines go (default stdout); the tests read them. */
  logStream?: DestinationStream;
  /** Extra modules, for tests only (e.g. a route that throws). */
  extraImports?: Type[];
}

/** The whole HTTP application, configured as in production (also used by the e2e tests). */
export async function createApp(
  config: AppConfig,
  database: DatabaseConnection,
  options: AppOptions = {},
): Promise<NestExpressApplication> {
  const module = AppModule.forRoot(config, database, options.logStream);
  module.imports = [...(module.imports ?? []), ...(options.extraImports ?? [])];
  const app = await NestFactory.create<NestExpressApplication>(module, {
    bodyParser: false,
    bufferLogs: true,
    // Throw start-up errors to the caller (main logs them and exits) instead of exiting here.
    abortOnError: false,
  });
  app.useLogger(app.get(Logger));
  app.disable('x-powered-by');
  await setupOpenApi(app, config);
  return app;
}
