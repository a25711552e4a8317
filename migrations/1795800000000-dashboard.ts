import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The client dashboard: single-use sign-in links and server-side sessions (both stored as the
 * SHA-256 of their secret only), who created a token (the operator or the client's dashboard),
 * audit entries written by a client's own people, and the service's own secrets (the CSRF key,
 * shared by every replica).
 */
export class Dashboard1795800000000 implements MigrationInterface {
  name = 'Dashboard1795800000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE sign_in_links (
        id         uuid        NOT NULL DEFAULT gen_random_uuid(),
        client_id  text        NOT NULL,
        token_hash text        NOT NULL,
        issued_via text        NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        used_at    timestamptz NULL,
        CONSTRAINT pk_sign_in_links PRIMARY KEY (id),
        CONSTRAINT uq_sign_in_links_token_hash UNIQUE (token_hash),
        CONSTRAINT fk_sign_in_links_client FOREIGN KEY (client_id) REFERENCES clients (client_id) ON DELETE CASCADE,
        CONSTRAINT ck_sign_in_links_token_hash_format CHECK (token_hash ~ '^[0-9a-f]{64}$'),
        CONSTRAINT ck_sign_in_links_issued_via CHECK (issued_via IN ('operator', 'email'))
      )
    `);
    await queryRunner.query(`
      CREATE TABLE dashboard_sessions (
        id           uuid        NOT NULL DEFAULT gen_random_uuid(),
        client_id    text        NOT NULL,
        session_hash text        NOT NULL,
        created_at   timestamptz NOT NULL DEFAULT now(),
        last_seen_at timestamptz NOT NULL DEFAULT now(),
        expires_at   timestamptz NOT NULL,
        ended_at     timestamptz NULL,
        CONSTRAINT pk_dashboard_sessions PRIMARY KEY (id),
        CONSTRAINT uq_dashboard_sessions_session_hash UNIQUE (session_hash),
        CONSTRAINT fk_dashboard_sessions_client FOREIGN KEY (client_id) REFERENCES clients (client_id) ON DELETE CASCADE,
        CONSTRAINT ck_dashboard_sessions_session_hash_format CHECK (session_hash ~ '^[0-9a-f]{64}$')
      )
    `);
    await queryRunner.query(`CREATE INDEX ix_dashboard_sessions_client ON dashboard_sessions (client_id)`);
    await queryRunner.query(
      `CREATE TABLE service_secrets (name text NOT NULL, value text NOT NULL, CONSTRAINT pk_service_secrets PRIMARY KEY (name))`,
    );

    await queryRunner.query(`ALTER TABLE client_tokens ADD COLUMN created_via text NOT NULL DEFAULT 'operator'`);
    await queryRunner.query(
      `ALTER TABLE client_tokens ADD CONSTRAINT ck_client_tokens_created_via CHECK (created_via IN ('operator', 'dashboard'))`,
    );

    await queryRunner.query(`ALTER TABLE audit_events DROP CONSTRAINT ck_audit_events_actor`);
    await queryRunner.query(`
      ALTER TABLE audit_events ADD CONSTRAINT ck_audit_events_actor CHECK (
        (actor_type = 'admin' AND operator_id IS NULL) OR (actor_type = 'operator' AND operator_id IS NOT NULL)
        OR (actor_type = 'client' AND operator_id IS NULL AND client_id IS NOT NULL))
    `);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    // Entries written by clients cannot satisfy the older constraint; the audit trail is append-only, so this fails once there are some.
    await queryRunner.query(`ALTER TABLE audit_events DROP CONSTRAINT ck_audit_events_actor`);
    await queryRunner.query(
      `ALTER TABLE audit_events ADD CONSTRAINT ck_audit_events_actor CHECK ((actor_type = 'admin' AND operator_id IS NULL) OR (actor_type = 'operator' AND operator_id IS NOT NULL))`,
    );
    await queryRunner.query(`ALTER TABLE client_tokens DROP CONSTRAINT ck_client_tokens_created_via`);
    await queryRunner.query(`ALTER TABLE client_tokens DROP COLUMN created_via`);
    await queryRunner.query(`DROP TABLE service_secrets`);
    await queryRunner.query(`DROP TABLE dashboard_sessions`);
    await queryRunner.query(`DROP TABLE sign_in_links`);
  }
}
