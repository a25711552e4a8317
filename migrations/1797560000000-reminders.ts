import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 33, item 7: the reminders sent before a filing deadline, one row per e-mail sent, so that a
 * client gets one reminder per half-year unless the operator insists (`force`).
 */
export class Reminders1797560000000 implements MigrationInterface {
  name = 'Reminders1797560000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE reminders (
        id uuid NOT NULL DEFAULT gen_random_uuid(),
        client_id text NOT NULL,
        period text NOT NULL,
        sent_at timestamptz NOT NULL DEFAULT now(),
        sent_to text NOT NULL,
        language text NOT NULL,
        missing text[] NOT NULL,
        sign_in_link_id uuid NOT NULL,
        forced boolean NOT NULL DEFAULT false,
        CONSTRAINT pk_reminders PRIMARY KEY (id),
        CONSTRAINT fk_reminders_client FOREIGN KEY (client_id) REFERENCES clients (client_id) ON DELETE CASCADE,
        CONSTRAINT ck_reminders_period CHECK (period ~ '^[0-9]{4}-S[12]$'),
        CONSTRAINT ck_reminders_language CHECK (language IN ('fr', 'en'))
      )`);
    await queryRunner.query(`CREATE INDEX ix_reminders_client_period ON reminders (client_id, period)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE reminders`);
  }
}
