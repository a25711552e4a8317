import { Global, Injectable, Module, type OnModuleInit } from '@nestjs/common';
import type pg from 'pg';
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
}

/** One instance for the app (it asks the server's version once). */
@Global()
@Module({ providers: [PreparedStatements], exports: [PreparedStatements] })
export class PreparedStatementsModule {}
