import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The languages the service speaks are the registry's (src/i18n/language-definitions.ts), not a list
 * frozen in the schema: a CHECK built from the registry when this migration runs would say what the
 * registry held that day, and a third language would need one more migration (or make this one write
 * another schema on a fresh database than the one deployed). So the columns keep a check of shape (a
 * BCP 47 primary subtag, as the registry requires of its codes), and every write takes its language
 * from the registry in code (`isLanguage`, the DTOs' `IsLanguageCode` and enums).
 */
export class LanguageCodes1797760000001 implements MigrationInterface {
  name = 'LanguageCodes1797760000001';

  async up(queryRunner: QueryRunner): Promise<void> {
    for (const table of TABLES) {
      await queryRunner.query(`ALTER TABLE ${table} DROP CONSTRAINT ck_${table}_language`);
      await queryRunner.query(`ALTER TABLE ${table} ADD CONSTRAINT ck_${table}_language CHECK (language ~ '^[a-z]{2,3}$')`);
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const table of TABLES) {
      await queryRunner.query(`ALTER TABLE ${table} DROP CONSTRAINT ck_${table}_language`);
      await queryRunner.query(`ALTER TABLE ${table} ADD CONSTRAINT ck_${table}_language CHECK (language IN ('fr', 'en'))`);
    }
  }
}

const TABLES = ['clients', 'reminders', 'mail_outbox'] as const;
