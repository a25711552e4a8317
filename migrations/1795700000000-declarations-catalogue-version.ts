import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Every declaration remembers the version of the reference catalogue (streams, units, materials)
 * it was validated against. Declarations stored before this migration were all validated against
 * version 1, the catalogue before versioning: they get 1, nothing else changes (their lines keep
 * their material codes, which `retired_materials` in streams.json still names).
 */
export class DeclarationsCatalogueVersion1795700000000 implements MigrationInterface {
  name = 'DeclarationsCatalogueVersion1795700000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // The default fills the existing rows (all of version 1); the app always writes the version it used.
    await queryRunner.query(`ALTER TABLE declarations ADD COLUMN catalogue_version integer NOT NULL DEFAULT 1`);
    await queryRunner.query(
      `ALTER TABLE declarations ADD CONSTRAINT ck_declarations_catalogue_version_positive CHECK (catalogue_version >= 1)`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE declarations DROP CONSTRAINT ck_declarations_catalogue_version_positive`);
    await queryRunner.query(`ALTER TABLE declarations DROP COLUMN catalogue_version`);
  }
}
