import { Global, Injectable, Module, type OnModuleInit } from '@nestjs/common';
import pg from 'pg';
import { DataSource, type EntityManager } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver.js';

/** A statement of a hot path; `name` is unique per text. */
export interface Statement {
  name: string;
  text: string;
}

/**
 * Runs the statements of the hot paths (token lookup, POST) through `pg` directly, as NAMED
 * prepared statements on a PostgreSQL server: parsed and planned once per connection instead of
 * on every request (PostgreSQL's CPU per token lookup: 190 → 60 µs). On PGlite (the embedded
 * database, whether in this process or reached through DATABASE_URL) they stay unnamed: it serves
 * every connection from one session, where the names of two connections would collide.
 * Errors are `pg`'s own (not wrapped in TypeORM's QueryFailedError).
 */
@Injectable()
export class PreparedStatements implements OnModuleInit {
  private named = false;

  constructor(private readonly dataSource: DataSource) {}

  async onModuleInit(): Promise<void> {
    const [{ version }] = (await this.dataSource.query('SELECT version()')) as [{ version: string }];
    this.named = !version.includes('PGlite');
  }

  /**
   * Whether the database serves every connection from one session (PGlite, in this process or not):
   * there a transaction holds the whole database until it ends, so long reads run without one.
   */
  get oneSession(): boolean {
    return !this.named;
  }

  /** On a connection of the pool, or on the connection of `manager`'s transaction. */
  async query<T>(statement: Statement, values: unknown[], manager?: EntityManager): Promise<T[]> {
    const client: pg.Pool | pg.PoolClient = manager?.queryRunner
      ? ((await manager.queryRunner.connect()) as pg.PoolClient)
      : ((this.dataSource.driver as PostgresDriver).master as pg.Pool);
    const result = await client.query({ ...(this.named ? { name: statement.name } : {}), text: statement.text, values });
    return result.rows as T[];
  }

  /**
   * `statement` with `values` between other statements (e.g. `START TRANSACTION` … `COMMIT`), in one round
   * trip: the simple-protocol query `<before>; EXECUTE <statement>(<values>); <after>`, which runs the plan
   * this connection prepared for `statement` (the values as quoted literals, which PostgreSQL reads as it
   * reads a parameter's text); its rows. An error stops the query at the statement that failed. Undefined,
   * with nothing sent, if the connection has not prepared it yet (or on PGlite).
   */
  async executeWithin<T>(
    connection: pg.PoolClient,
    statement: Statement,
    values: unknown[],
    around: { before: string[]; after: string[] },
  ): Promise<T[] | undefined> {
    const prepared = (connection as unknown as { connection?: { parsedStatements?: Record<string, string> } }).connection?.parsedStatements;
    if (!this.named || prepared?.[statement.name] !== statement.text) return undefined;
    const execute = `EXECUTE ${escapeIdentifier(statement.name)}(${values.map(parameterLiteral).join(', ')})`;
    const results = (await connection.query([...around.before, execute, ...around.after].join('; '))) as unknown as
      pg.QueryResult | pg.QueryResult[];
    // `pg` answers a list of results for several statements, the result alone for one.
    return (Array.isArray(results) ? results[around.before.length]! : results).rows as T[];
  }
}

const { escapeIdentifier } = pg;

/**
 * `text` as a quoted literal, exactly as `pg.escapeLiteral` writes it (quotes and backslashes doubled;
 * ` E'…'` when it has a backslash), in one `replace` rather than a concatenation per character (a
 * 200-line declaration's arrays are kilobytes of text).
 */
export function escapeLiteral(text: string): string {
  const escaped = `'${text.replace(/['\\]/g, '$&$&')}'`;
  return text.includes('\\') ? ` E${escaped}` : escaped;
}

/** A value as the text `pg` would send for it as a parameter, quoted (arrays of strings and nulls, strings, finite numbers, null). */
function parameterLiteral(value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  if (typeof value === 'string') return escapeLiteral(value);
  if (typeof value === 'number' && Number.isFinite(value)) return escapeLiteral(String(value));
  if (Array.isArray(value)) return escapeLiteral(arrayLiteral(value));
  throw new Error(`no literal for a parameter of type ${typeof value}`);
}

/** A text with nothing to escape in an array's quoted element. */
const PLAIN_ELEMENT = /^[^"\\]*$/;

/** An array as PostgreSQL's array input reads it: `{"a","b",NULL}`. */
export function arrayLiteral(values: unknown[]): string {
  // Texts with nothing to escape (a declaration's streams, units, materials, quantities): quoted by one join, not one string each.
  if (values.length > 0 && values.every((value) => typeof value === 'string' && PLAIN_ELEMENT.test(value)))
    return `{"${values.join('","')}"}`;
  return `{${values.map(arrayElement).join(',')}}`;
}

function arrayElement(value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  if (typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value)))
    return `"${String(value).replace(/[\\"]/g, '\\$&')}"`;
  throw new Error(`no literal for an array element of type ${typeof value}`);
}

/** One instance for the app (it asks the server's version once). */
@Global()
@Module({ providers: [PreparedStatements], exports: [PreparedStatements] })
export class PreparedStatementsModule {}
