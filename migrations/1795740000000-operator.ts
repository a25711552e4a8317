import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The operator's half: named operator tokens (hash only), the append-only audit trail of admin
 * writes, and the indexes of the admin listings (clients, declarations across clients) and of a
 * period's export.
 */
export class Operator1795740000000 implements MigrationInterface {
  name = 'Operator1795740000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE operator_tokens (
        id         uuid        NOT NULL DEFAULT gen_random_uuid(),
        name       text        NOT NULL,
        token_hash text        NOT NULL,
        prefix     text        NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        revoked_at timestamptz NULL,
        CONSTRAINT pk_operator_tokens PRIMARY KEY (id),
        CONSTRAINT uq_operator_tokens_token_hash UNIQUE (token_hash),
        CONSTRAINT ck_operator_tokens_token_hash_format CHECK (token_hash ~ '^[0-9a-f]{64}$'),
        CONSTRAINT ck_operator_tokens_prefix_length CHECK (char_length(prefix) BETWEEN 1 AND 16),
        CONSTRAINT ck_operator_tokens_name_length CHECK (char_length(name) BETWEEN 1 AND 100)
      )
    `);

    await queryRunner.query(`
      CREATE TABLE audit_events (
        id           uuid        NOT NULL DEFAULT gen_random_uuid(),
        occurred_at  timestamptz NOT NULL DEFAULT clock_timestamp(),
        actor_type   text        NOT NULL,
        operator_id  uuid        NULL,
        actor_name   text        NOT NULL,
        action       text        NOT NULL,
        target_type  text        NOT NULL,
        target_id    text        NOT NULL,
        client_id    text        NULL,
        changes      jsonb       NOT NULL DEFAULT '{}',
        request_id   text        NULL,
        CONSTRAINT pk_audit_events PRIMARY KEY (id),
        CONSTRAINT fk_audit_events_operator FOREIGN KEY (operator_id) REFERENCES operator_tokens (id) ON DELETE RESTRICT,
        CONSTRAINT ck_audit_events_actor CHECK ((actor_type = 'admin' AND operator_id IS NULL) OR (actor_type = 'operator' AND operator_id IS NOT NULL)),
        CONSTRAINT ck_audit_events_action_format CHECK (action ~ '^[a-z_]+\\.[a-z_]+$')
      )
    `);
    // GET /admin/audit, newest first (keyset on occurred_at, id): unfiltered, by client, by operator, by action.
    await queryRunner.query(`CREATE INDEX ix_audit_events_occurred ON audit_events (occurred_at DESC, id DESC)`);
    await queryRunner.query(`CREATE INDEX ix_audit_events_client_occurred ON audit_events (client_id, occurred_at DESC, id DESC)`);
    await queryRunner.query(`CREATE INDEX ix_audit_events_operator_occurred ON audit_events (operator_id, occurred_at DESC, id DESC)`);
    await queryRunner.query(`CREATE INDEX ix_audit_events_action_occurred ON audit_events (action, occurred_at DESC, id DESC)`);
    // Append-only, whatever the code: the database refuses to change or remove an entry.
    await queryRunner.query(`
      CREATE FUNCTION audit_events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION 'audit_events is append-only: % refused', TG_OP USING ERRCODE = 'insufficient_privilege';
      END
      $$`);
    await queryRunner.query(`
      CREATE TRIGGER tr_audit_events_append_only BEFORE UPDATE OR DELETE ON audit_events
        FOR EACH ROW EXECUTE FUNCTION audit_events_append_only()`);
    await queryRunner.query(`
      CREATE TRIGGER tr_audit_events_no_truncate BEFORE TRUNCATE ON audit_events
        FOR EACH STATEMENT EXECUTE FUNCTION audit_events_append_only()`);

    // GET /admin/clients, newest first (keyset on created_at, client_id).
    await queryRunner.query(`CREATE INDEX ix_clients_created ON clients (created_at DESC, client_id DESC)`);
    // GET /admin/declarations, newest first (keyset on submitted_at, id): unfiltered or by date, by period, by status,
    // and the current revisions of a period (by client: the client listing's indexes). Periods follow time and the
    // newest revisions tend to be current, so a filter on the wrong index would read most of the table for a page.
    // (A period's export reads the current revisions in client order from uq_declarations_client_period_current.)
    await queryRunner.query(`CREATE INDEX ix_declarations_submitted ON declarations (submitted_at DESC, id DESC)`);
    await queryRunner.query(`CREATE INDEX ix_declarations_period_submitted ON declarations (period, submitted_at DESC, id DESC)`);
    // One partial index per status: with (status, submitted_at, id) the planner, which cannot know that the newest
    // revisions are the current ones, walked the unfiltered index skipping ~100,000 current rows to list superseded ones.
    await queryRunner.query(
      `CREATE INDEX ix_declarations_current_submitted ON declarations (submitted_at DESC, id DESC) WHERE status = 'current'`,
    );
    await queryRunner.query(
      `CREATE INDEX ix_declarations_superseded_submitted ON declarations (submitted_at DESC, id DESC) WHERE status = 'superseded'`,
    );
    await queryRunner.query(
      `CREATE INDEX ix_declarations_period_current_submitted ON declarations (period, submitted_at DESC, id DESC) WHERE status = 'current'`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX ix_declarations_period_current_submitted`);
    await queryRunner.query(`DROP INDEX ix_declarations_superseded_submitted`);
    await queryRunner.query(`DROP INDEX ix_declarations_current_submitted`);
    await queryRunner.query(`DROP INDEX ix_declarations_period_submitted`);
    await queryRunner.query(`DROP INDEX ix_declarations_submitted`);
    await queryRunner.query(`DROP INDEX ix_clients_created`);
    await queryRunner.query(`DROP TABLE audit_events`);
    await queryRunner.query(`DROP FUNCTION audit_events_append_only()`);
    await queryRunner.query(`DROP TABLE operator_tokens`);
  }
}
