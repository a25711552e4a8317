import type { DataSourceOptions } from 'typeorm';
import { MIGRATIONS } from '../../migrations/index.js';

/** Connections each app instance keeps to PostgreSQL. */
export const POOL_SIZE = 10;

export type DatabaseConnection =
  | { url: string }
  | { host: string; port: number; username: string; database: string };

/** The TypeORM options shared by the app and the migration CLI. Never `synchronize`. */
export function databaseOptions(connection: DatabaseConnection, migrationsRun: boolean): DataSourceOptions {
  return {
    type: 'postgres',
    ...connection,
    applicationName: 'epr-declarations',
    synchronize: false,
    migrations: MIGRATIONS,
    migrationsRun,
    migrationsTransactionMode: 'each',
    extra: {
      max: POOL_SIZE,
      // Fail fast (→ 503) rather than hang when the database is unreachable.
      connectionTimeoutMillis: 5_000,
      idleTimeoutMillis: 30_000,
      statement_timeout: 30_000,
    },
  };
}
