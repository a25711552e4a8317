import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 27: audit entries of requests nobody signed in made (`anonymous`: a sign-in link asked for
 * by e-mail, recorded as what it is rather than as the client), and an index for the daily count
 * of a client's e-mailed links.
 */
export class Hardening1796000000000 implements MigrationInterface {
  name = 'Hardening1796000000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE audit_events DROP CONSTRAINT ck_audit_events_actor`);
    await queryRunner.query(`
      ALTER TABLE audit_events ADD CONSTRAINT ck_audit_events_actor CHECK (
        (actor_type = 'admin' AND operator_id IS NULL) OR (actor_type = 'operator' AND operator_id IS NOT NULL)
        OR (actor_type = 'client' AND operator_id IS NULL AND client_id IS NOT NULL)
        OR (actor_type = 'anonymous' AND operator_id IS NULL))
    `);
    await queryRunner.query(`CREATE INDEX ix_sign_in_links_client_created ON sign_in_links (client_id, created_at)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX ix_sign_in_links_client_created`);
    // Anonymous entries cannot satisfy the older constraint; the audit trail is append-only, so this fails once there are some.
    await queryRunner.query(`ALTER TABLE audit_events DROP CONSTRAINT ck_audit_events_actor`);
    await queryRunner.query(`
      ALTER TABLE audit_events ADD CONSTRAINT ck_audit_events_actor CHECK (
        (actor_type = 'admin' AND operator_id IS NULL) OR (actor_type = 'operator' AND operator_id IS NOT NULL)
        OR (actor_type = 'client' AND operator_id IS NULL AND client_id IS NOT NULL))
    `);
  }
}
