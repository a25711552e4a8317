import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The operator's console: a named operator (an `operator_tokens` row) may have an e-mail address
 * (unique among live operators, folded in A–Z) to sign in to `/operator` by a single-use link;
 * its sign-in links and console sessions (SHA-256 of their secrets only), apart from the clients'
 * dashboard ones; the outbox's kind of its e-mail.
 */
export class OperatorConsole1797730000001 implements MigrationInterface {
  name = 'OperatorConsole1797730000001';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE operator_tokens ADD COLUMN email text NULL`);
    await queryRunner.query(
      `ALTER TABLE operator_tokens ADD CONSTRAINT ck_operator_tokens_email_length CHECK (char_length(email) BETWEEN 3 AND 254)`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX uq_operator_tokens_live_email ON operator_tokens (translate(email, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz'))
        WHERE email IS NOT NULL AND revoked_at IS NULL`,
    );
    await queryRunner.query(`
      CREATE TABLE operator_sign_in_links (
        id          uuid        NOT NULL DEFAULT gen_random_uuid(),
        operator_id uuid        NOT NULL,
        token_hash  text        NOT NULL,
        created_at  timestamptz NOT NULL DEFAULT now(),
        expires_at  timestamptz NOT NULL,
        used_at     timestamptz NULL,
        CONSTRAINT pk_operator_sign_in_links PRIMARY KEY (id),
        CONSTRAINT uq_operator_sign_in_links_token_hash UNIQUE (token_hash),
        CONSTRAINT fk_operator_sign_in_links_operator FOREIGN KEY (operator_id) REFERENCES operator_tokens (id) ON DELETE CASCADE,
        CONSTRAINT ck_operator_sign_in_links_token_hash_format CHECK (token_hash ~ '^[0-9a-f]{64}$')
      )`);
    await queryRunner.query(`CREATE INDEX ix_operator_sign_in_links_operator ON operator_sign_in_links (operator_id, created_at)`);
    await queryRunner.query(`
      CREATE TABLE operator_sessions (
        id           uuid        NOT NULL DEFAULT gen_random_uuid(),
        operator_id  uuid        NOT NULL,
        session_hash text        NOT NULL,
        created_at   timestamptz NOT NULL DEFAULT now(),
        last_seen_at timestamptz NOT NULL DEFAULT now(),
        expires_at   timestamptz NOT NULL,
        ended_at     timestamptz NULL,
        CONSTRAINT pk_operator_sessions PRIMARY KEY (id),
        CONSTRAINT uq_operator_sessions_session_hash UNIQUE (session_hash),
        CONSTRAINT fk_operator_sessions_operator FOREIGN KEY (operator_id) REFERENCES operator_tokens (id) ON DELETE CASCADE,
        CONSTRAINT ck_operator_sessions_session_hash_format CHECK (session_hash ~ '^[0-9a-f]{64}$')
      )`);
    await queryRunner.query(`CREATE INDEX ix_operator_sessions_operator ON operator_sessions (operator_id)`);
    await queryRunner.query(`ALTER TABLE mail_outbox DROP CONSTRAINT ck_mail_outbox_kind`);
    await queryRunner.query(
      `ALTER TABLE mail_outbox ADD CONSTRAINT ck_mail_outbox_kind CHECK (kind IN ('invitation', 'sign_in', 'reminder', 'declaration_filed', 'operator_sign_in'))`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DELETE FROM mail_outbox WHERE kind = 'operator_sign_in'`);
    await queryRunner.query(`ALTER TABLE mail_outbox DROP CONSTRAINT ck_mail_outbox_kind`);
    await queryRunner.query(
      `ALTER TABLE mail_outbox ADD CONSTRAINT ck_mail_outbox_kind CHECK (kind IN ('invitation', 'sign_in', 'reminder', 'declaration_filed'))`,
    );
    await queryRunner.query(`DROP TABLE operator_sessions`);
    await queryRunner.query(`DROP TABLE operator_sign_in_links`);
    await queryRunner.query(`DROP INDEX uq_operator_tokens_live_email`);
    await queryRunner.query(`ALTER TABLE operator_tokens DROP COLUMN email`);
  }
}
