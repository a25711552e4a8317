import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 34: a sandbox per client. Tokens, declarations and Idempotency-Keys carry a `mode` (`live`
 * or `test`); a test token (`eprt_…`) reaches only its client's test data. Revisions, the one
 * current revision of a period and idempotency keys are counted per (client, mode); the client's
 * listing indexes lead with (client_id, mode) so that each mode's pages stay index range scans.
 */
export class Sandbox1797000000000 implements MigrationInterface {
  name = 'Sandbox1797000000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    for (const table of ['client_tokens', 'declarations', 'idempotency_keys']) {
      await queryRunner.query(`ALTER TABLE ${table} ADD COLUMN mode text NOT NULL DEFAULT 'live'`);
      await queryRunner.query(`ALTER TABLE ${table} ADD CONSTRAINT ck_${table}_mode CHECK (mode IN ('live', 'test'))`);
    }
    await queryRunner.query(`ALTER TABLE declarations DROP CONSTRAINT uq_declarations_client_period_revision`);
    await queryRunner.query(
      `ALTER TABLE declarations ADD CONSTRAINT uq_declarations_client_period_revision UNIQUE (client_id, mode, period, revision)`,
    );
    await this.clientIndexes(queryRunner, ['client_id', 'mode']);
    await queryRunner.query(`ALTER TABLE idempotency_keys DROP CONSTRAINT pk_idempotency_keys`);
    await queryRunner.query(`ALTER TABLE idempotency_keys ADD CONSTRAINT pk_idempotency_keys PRIMARY KEY (client_id, mode, key)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    // Test data has no meaning without its mode: it goes with it.
    await queryRunner.query(`DELETE FROM idempotency_keys WHERE mode = 'test'`);
    await queryRunner.query(`DELETE FROM declarations WHERE mode = 'test'`);
    await queryRunner.query(`DELETE FROM client_tokens WHERE mode = 'test'`);
    await queryRunner.query(`ALTER TABLE idempotency_keys DROP CONSTRAINT pk_idempotency_keys`);
    await queryRunner.query(`ALTER TABLE idempotency_keys ADD CONSTRAINT pk_idempotency_keys PRIMARY KEY (client_id, key)`);
    await this.clientIndexes(queryRunner, ['client_id']);
    await queryRunner.query(`ALTER TABLE declarations DROP CONSTRAINT uq_declarations_client_period_revision`);
    await queryRunner.query(
      `ALTER TABLE declarations ADD CONSTRAINT uq_declarations_client_period_revision UNIQUE (client_id, period, revision)`,
    );
    for (const table of ['client_tokens', 'declarations', 'idempotency_keys']) {
      await queryRunner.query(`ALTER TABLE ${table} DROP CONSTRAINT ck_${table}_mode`);
      await queryRunner.query(`ALTER TABLE ${table} DROP COLUMN mode`);
    }
  }

  /** The client-scoped indexes of declarations, led by `lead`, under their names of migration 1795500000000. */
  private async clientIndexes(queryRunner: QueryRunner, lead: string[]): Promise<void> {
    const by = lead.join(', ');
    await queryRunner.query(`DROP INDEX uq_declarations_client_period_current`);
    await queryRunner.query(`DROP INDEX ix_declarations_client_submitted`);
    await queryRunner.query(`DROP INDEX ix_declarations_client_period_submitted`);
    await queryRunner.query(`DROP INDEX ix_declarations_client_current_submitted`);
    await queryRunner.query(
      `CREATE UNIQUE INDEX uq_declarations_client_period_current ON declarations (${by}, period) WHERE status = 'current'`,
    );
    await queryRunner.query(`CREATE INDEX ix_declarations_client_submitted ON declarations (${by}, submitted_at DESC, id DESC)`);
    await queryRunner.query(
      `CREATE INDEX ix_declarations_client_period_submitted ON declarations (${by}, period, submitted_at DESC, id DESC)`,
    );
    await queryRunner.query(
      `CREATE INDEX ix_declarations_client_current_submitted ON declarations (${by}, submitted_at DESC, id DESC) WHERE status = 'current'`,
    );
  }
}
