import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 31: the language the service writes to a client in (its e-mails), set by the operator;
 * French unless said otherwise.
 */
export class ClientLanguage1797300000000 implements MigrationInterface {
  name = 'ClientLanguage1797300000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE clients ADD COLUMN language text NOT NULL DEFAULT 'fr'`);
    await queryRunner.query(`ALTER TABLE clients ADD CONSTRAINT ck_clients_language CHECK (language IN ('fr', 'en'))`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE clients DROP CONSTRAINT ck_clients_language`);
    await queryRunner.query(`ALTER TABLE clients DROP COLUMN language`);
  }
}
