import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Every change that can alter what a client token authenticates as (its revocation, expiry or
 * deletion; its client's account) is announced on the channel `epr_auth_changed`, with the client's
 * id as payload ('*' for a TRUNCATE), whoever makes it: a route, a script, an operator in psql.
 * Each replica listens and forgets the authentications it keeps for that client
 * (src/auth/authentication-cache.ts). A token's use (`last_used_at` alone) announces nothing.
 * PostgreSQL delivers a notification when, and only if, its transaction commits.
 */
export class AuthChangeNotifications1795900000000 implements MigrationInterface {
  name = 'AuthChangeNotifications1795900000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE FUNCTION notify_auth_changed() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_LEVEL = 'STATEMENT' THEN
          PERFORM pg_notify('epr_auth_changed', '*');
        ELSE
          PERFORM pg_notify('epr_auth_changed', OLD.client_id);
        END IF;
        RETURN NULL;
      END
      $$
    `);
    await queryRunner.query(`
      CREATE TRIGGER client_tokens_auth_changed AFTER UPDATE ON client_tokens FOR EACH ROW
        WHEN ((to_jsonb(OLD) - 'last_used_at') IS DISTINCT FROM (to_jsonb(NEW) - 'last_used_at'))
        EXECUTE FUNCTION notify_auth_changed()
    `);
    await queryRunner.query(
      `CREATE TRIGGER client_tokens_auth_deleted AFTER DELETE ON client_tokens FOR EACH ROW EXECUTE FUNCTION notify_auth_changed()`,
    );
    await queryRunner.query(
      `CREATE TRIGGER client_tokens_auth_truncated AFTER TRUNCATE ON client_tokens FOR EACH STATEMENT EXECUTE FUNCTION notify_auth_changed()`,
    );
    await queryRunner.query(
      `CREATE TRIGGER clients_auth_changed AFTER UPDATE OR DELETE ON clients FOR EACH ROW EXECUTE FUNCTION notify_auth_changed()`,
    );
    await queryRunner.query(
      `CREATE TRIGGER clients_auth_truncated AFTER TRUNCATE ON clients FOR EACH STATEMENT EXECUTE FUNCTION notify_auth_changed()`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const [trigger, table] of [
      ['clients_auth_truncated', 'clients'],
      ['clients_auth_changed', 'clients'],
      ['client_tokens_auth_truncated', 'client_tokens'],
      ['client_tokens_auth_deleted', 'client_tokens'],
      ['client_tokens_auth_changed', 'client_tokens'],
    ]) {
      await queryRunner.query(`DROP TRIGGER ${trigger} ON ${table}`);
    }
    await queryRunner.query(`DROP FUNCTION notify_auth_changed()`);
  }
}
