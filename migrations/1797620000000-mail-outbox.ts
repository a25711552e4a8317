import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The mail outbox: every e-mail the service decides to send is written here in the transaction
 * that decides it, and delivered after the commit by a sender that claims rows with
 * `FOR UPDATE SKIP LOCKED` (any replica), so that no SMTP exchange holds a database connection.
 * `body` is the message text encrypted (AES-256-GCM, key in `service_secrets`, it may hold a
 * sign-in link) and emptied once the message is sent or given up.
 */
export class MailOutbox1797620000000 implements MigrationInterface {
  name = 'MailOutbox1797620000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE mail_outbox (
        id uuid NOT NULL DEFAULT gen_random_uuid(),
        client_id text NULL,
        kind text NOT NULL,
        recipient text NOT NULL,
        language text NOT NULL,
        subject text NOT NULL,
        body bytea NULL,
        sign_in_link_id uuid NULL,
        state text NOT NULL DEFAULT 'queued',
        attempts integer NOT NULL DEFAULT 0,
        next_attempt_at timestamptz NOT NULL DEFAULT now(),
        last_error text NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        sent_at timestamptz NULL,
        CONSTRAINT pk_mail_outbox PRIMARY KEY (id),
        CONSTRAINT fk_mail_outbox_client FOREIGN KEY (client_id) REFERENCES clients (client_id) ON DELETE CASCADE,
        CONSTRAINT ck_mail_outbox_state CHECK (state IN ('queued', 'sent', 'failed')),
        CONSTRAINT ck_mail_outbox_kind CHECK (kind IN ('invitation', 'sign_in', 'reminder', 'declaration_filed')),
        CONSTRAINT ck_mail_outbox_language CHECK (language IN ('fr', 'en')),
        CONSTRAINT ck_mail_outbox_body CHECK (state = 'queued' OR body IS NULL)
      )`);
    await queryRunner.query(`CREATE INDEX ix_mail_outbox_due ON mail_outbox (next_attempt_at) WHERE state = 'queued'`);
    await queryRunner.query(`CREATE INDEX ix_mail_outbox_client_created ON mail_outbox (client_id, created_at DESC, id DESC)`);
    await queryRunner.query(`CREATE INDEX ix_mail_outbox_sign_in_link ON mail_outbox (sign_in_link_id) WHERE sign_in_link_id IS NOT NULL`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE mail_outbox`);
  }
}
