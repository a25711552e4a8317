import { PGlite, type Transaction } from '@electric-sql/pglite';
import type { DataSource, EntityManager } from 'typeorm';
import { MIGRATIONS } from '../../migrations/index.js';

type Queryable = Pick<PGlite, 'query' | 'exec'> | Transaction;

/**
 * `query(sql, params)` answering as TypeORM's PostgreSQL driver does: the rows, except for UPDATE
 * and DELETE, which answer `[rows, affected]` (PostgresQueryRunner.query).
 */
function queryLike(db: Queryable) {
  return async (sql: string, params: unknown[] = []): Promise<unknown> => {
    if (params.length === 0 && !/\$\d/.test(sql)) {
      const results = await db.exec(sql);
      const last = results.at(-1);
      return last ? rawOf(sql, last.rows, last.affectedRows) : [];
    }
    const result = await db.query(sql, params);
    return rawOf(sql, result.rows, result.affectedRows);
  };
}

function rawOf(sql: string, rows: unknown[], affected: number | undefined): unknown {
  return /^\s*(UPDATE|DELETE)\b/i.test(sql) ? [rows, affected ?? 0] : rows;
}

/**
 * PostgreSQL in this process (PGlite, in memory) with the real migrations, for unit specs of code
 * whose rules are SQL statements: what they do is checked by running them, not by reading them.
 * `dataSource` and `manager` are the few members of TypeORM's that such code calls (`query`, `transaction`).
 */
export async function inProcessDatabase() {
  const db = await PGlite.create();
  const runner = { query: queryLike(db) };
  for (const Migration of MIGRATIONS) {
    await new (Migration as new () => { up(r: unknown): Promise<void> })().up(runner);
  }
  const managerOf = (q: Queryable) => ({ query: queryLike(q) }) as unknown as EntityManager;
  const dataSource = {
    query: queryLike(db),
    transaction: <T>(work: (manager: EntityManager) => Promise<T>) => db.transaction((tx) => work(managerOf(tx))),
    manager: managerOf(db),
  } as unknown as DataSource;
  return { db, dataSource, managerOf, close: () => db.close() };
}
