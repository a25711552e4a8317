import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A declaration filed from the dashboard is declared by a named person (issue 31.6): the full name
 * typed next to the statement of accuracy, stored with the revision. Revisions filed through the
 * API (a client system, not a person signing) and earlier ones keep it null.
 */
export class DeclaredByName1797500000000 implements MigrationInterface {
  name = 'DeclaredByName1797500000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE declarations ADD COLUMN declared_by_name text`);
    await queryRunner.query(
      `ALTER TABLE declarations ADD CONSTRAINT ck_declarations_declared_by_name CHECK (declared_by_name IS NULL OR char_length(declared_by_name) BETWEEN 1 AND 200)`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE declarations DROP CONSTRAINT ck_declarations_declared_by_name`);
    await queryRunner.query(`ALTER TABLE declarations DROP COLUMN declared_by_name`);
  }
}
