import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Fixed-window rate-limit counters shared by every replica (UNLOGGED: losing them in a crash is harmless). */
export class RateLimits1795600000000 implements MigrationInterface {
  name = 'RateLimits1795600000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE UNLOGGED TABLE rate_limit_counters (
        key        text        NOT NULL,
        window_end timestamptz NOT NULL,
        hits       integer     NOT NULL,
        CONSTRAINT pk_rate_limit_counters PRIMARY KEY (key, window_end)
      )`);
    await queryRunner.query(`CREATE INDEX ix_rate_limit_counters_window_end ON rate_limit_counters (window_end)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE rate_limit_counters`);
  }
}
