import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What a revision declares, as `declarationIdentity` gives it (SHA-256, hex): equal for the same figures
 * whichever way they were written (a material by its code or either published name, quantities by value,
 * lines in any order). Filing the figures of the revision in force again makes no new revision: with the
 * identity stored, the statement that files a declaration decides so itself, without reading the lines.
 * Revisions filed before hold null: the next filing of their period compares their lines, as before.
 */
export class DeclarationIdentityHash1797800000000 implements MigrationInterface {
  name = 'DeclarationIdentityHash1797800000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE declarations ADD COLUMN identity_hash text NULL`);
    await queryRunner.query(
      `ALTER TABLE declarations ADD CONSTRAINT ck_declarations_identity_hash CHECK (identity_hash ~ '^[0-9a-f]{64}$')`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE declarations DROP CONSTRAINT ck_declarations_identity_hash`);
    await queryRunner.query(`ALTER TABLE declarations DROP COLUMN identity_hash`);
  }
}
