import type pg from 'pg';
import type { DataSourceOptions } from 'typeorm';
import { MIGRATIONS } from '../../migrations/index.js';

/** Connections each app instance keeps to PostgreSQL. */
export const POOL_SIZE = 10;

export type DatabaseConnection = { url: string } | { host: string; port: number; username: string; database: string };

/** PostgreSQL cancels a statement that runs longer than this. */
export const STATEMENT_TIMEOUT_MS = 10_000;
/**
 * A query with no answer this long fails on our side (→ 503), and its connection is dropped: on a
 * network path that stops answering (no RST) the server's statement_timeout never reaches us.
 */
export const QUERY_TIMEOUT_MS = STATEMENT_TIMEOUT_MS + 2_000;

/** pg reports a client-side query timeout with this message. */
export const QUERY_READ_TIMEOUT = 'Query read timeout';

/**
 * pg fails a timed-out query but keeps its connection, still waiting for the answer: handed out
 * again, it would stall every query after it. Destroying it lets the pool replace it.
 */
function dropConnectionOnQueryTimeout(client: pg.PoolClient, onTimeout: OnQueryTimeout | undefined): void {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  (client as { query: unknown }).query = (...args: unknown[]) => {
    const result = query(...args);
    if (result instanceof Promise) {
      result.catch((error: unknown) => {
        if ((error as Error | undefined)?.message === QUERY_READ_TIMEOUT) {
          onTimeout?.('query');
          (client as unknown as { connection: { stream: { destroy(): void } } }).connection.stream.destroy();
        } else if (
          (error as { code?: string } | undefined)?.code === QUERY_CANCELED &&
          /statement timeout/.test((error as Error).message)
        ) {
          onTimeout?.('statement');
        }
      });
    }
    return result;
  };
}

/** PostgreSQL's SQLSTATE of a cancelled statement (statement_timeout among other causes). */
const QUERY_CANCELED = '57014';

/** Told of each query that times out (the metrics count them). */
export type OnQueryTimeout = (kind: 'statement' | 'query') => void;

/**
 * How long a streamed export's cursor may stay open (its transaction's statement_timeout): it lives
 * as long as its reader keeps reading, and a reader that stops is disconnected by the connection
 * limits (edge/connection-limits.ts) after 10 s, which closes the cursor.
 */
export const STREAMING_STATEMENT_TIMEOUT_MS = 30 * 60_000;

/**
 * PostgreSQL ends a session left idle inside an open transaction this long (a backstop: no code
 * path waits on anything slow inside a transaction; mail goes through the outbox). On a server
 * only: the embedded database is one backend for every connection, which must never be ended.
 */
export const IDLE_IN_TRANSACTION_TIMEOUT_MS = 30_000;

export interface QueryTimeouts {
  /** PostgreSQL's statement_timeout. */
  statementMs: number;
  /** pg's query_timeout: no answer this long fails on our side. */
  queryMs: number;
}

export const QUERY_TIMEOUTS: QueryTimeouts = { statementMs: STATEMENT_TIMEOUT_MS, queryMs: QUERY_TIMEOUT_MS };

/** The TypeORM options shared by the app and the migration CLI. Never `synchronize`. `timeouts`: tests lower them. */
export function databaseOptions(
  connection: DatabaseConnection,
  migrationsRun: boolean,
  timeouts: QueryTimeouts = QUERY_TIMEOUTS,
  onTimeout?: OnQueryTimeout,
): DataSourceOptions {
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
      statement_timeout: timeouts.statementMs,
      query_timeout: timeouts.queryMs,
      ...('url' in connection ? { idle_in_transaction_session_timeout: IDLE_IN_TRANSACTION_TIMEOUT_MS } : {}),
      // A peer that vanished without a word (no FIN, no RST) is found by the kernel's probes.
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
      onConnect: (client: pg.PoolClient) => dropConnectionOnQueryTimeout(client, onTimeout),
    },
  };
}
