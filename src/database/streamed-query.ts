import type pg from 'pg';
import QueryStream from 'pg-query-stream';
import type { DataSource } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver.js';
import { STREAMING_STATEMENT_TIMEOUT_MS } from './database-options.js';

/** A read on the connection of a streamed query, in its snapshot: its rows. */
export type SnapshotQuery = <R extends pg.QueryResultRow>(text: string, values: unknown[]) => Promise<R[]>;
/** Another cursor on the connection of a streamed query, in its snapshot: to be opened once the first is read to its end. */
export type SnapshotStream = <R>(text: string, values: unknown[], batchRows: number) => AsyncIterable<R>;

/** A cursor with the streaming timeouts: the database's (SET LOCAL in the transaction) and pg's own read timeout, which it takes from the query object. */
const cursor = (text: string, values: unknown[], batchRows: number) =>
  Object.assign(new QueryStream(text, values, { batchSize: batchRows, highWaterMark: batchRows }), {
    query_timeout: STREAMING_STATEMENT_TIMEOUT_MS,
  });

/**
 * Runs `consume` in a REPEATABLE READ, READ ONLY transaction on a connection of its own: one
 * consistent snapshot, read with `query` (a statement's rows) and `stream` (a cursor: the next batch
 * of `batchRows` fetched only when the reader has taken the previous one; one cursor at a time, and
 * no `query` while one is open). The connection is released once `consume` resolves, and destroyed if
 * anything failed (a connection left mid-cursor is not given back to the pool).
 */
export async function inSnapshot(
  dataSource: DataSource,
  consume: (query: SnapshotQuery, stream: SnapshotStream) => Promise<void>,
): Promise<void> {
  const pool = (dataSource.driver as PostgresDriver).master as pg.Pool;
  const client = await pool.connect();
  let failed = false;
  try {
    await client.query('START TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY');
    // The cursor stays open while the reader reads: a slow reader's export outlives the usual statement timeout.
    await client.query(`SET LOCAL statement_timeout = ${STREAMING_STATEMENT_TIMEOUT_MS}`);
    // It idles between batches while the reader reads: where the server ends idle transactions (IDLE_IN_TRANSACTION_TIMEOUT_MS), as long for this one.
    await client.query(
      `SELECT set_config('idle_in_transaction_session_timeout', $1, true) WHERE current_setting('idle_in_transaction_session_timeout') <> '0'`,
      [String(STREAMING_STATEMENT_TIMEOUT_MS)],
    );
    await consume(
      async (text, values) => (await client.query(text, values)).rows,
      // pg's own read timeout too (QUERY_TIMEOUT_MS otherwise): the cursor carries it.
      <S>(text: string, values: unknown[], batchRows: number) =>
        client.query(cursor(text, values, batchRows)) as unknown as AsyncIterable<S>,
    );
    await client.query('COMMIT');
  } catch (error) {
    failed = true;
    throw error;
  } finally {
    client.release(failed);
  }
}

/**
 * Streams the rows of `text` through a cursor (pg-query-stream) in a snapshot (inSnapshot): never
 * the whole result in memory. `consume` must resolve once it has read the rows to their end (or
 * reject); it may read more in the same snapshot with `query` and open another cursor with `stream`
 * once the first is done.
 */
export function streamInSnapshot<R>(
  dataSource: DataSource,
  statement: { text: string; values: unknown[]; batchRows: number },
  consume: (rows: AsyncIterable<R>, query: SnapshotQuery, stream: SnapshotStream) => Promise<void>,
): Promise<void> {
  return inSnapshot(dataSource, (query, stream) =>
    consume(stream<R>(statement.text, statement.values, statement.batchRows), query, stream),
  );
}
