import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The consumer sales units a declaration states it placed on the market in its half-year, once per
 * stream: `[{"stream": "EMB", "quantity": "90000"}]`, each quantity a whole number written as decimal
 * text (exact, at most 10^12), in stream order. A per-material `uvc` line counts only the units whose
 * packaging contains that material, so the units sold are not the sum of those lines and are stated
 * on their own. Small (one entry per stream) and always read with the revision: a column, not a table.
 * Revisions filed before, and those that do not state them, hold `[]`.
 */
export class DeclarationUnitsSold1797700000000 implements MigrationInterface {
  name = 'DeclarationUnitsSold1797700000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE declarations ADD COLUMN units_sold jsonb NOT NULL DEFAULT '[]'`);
    await queryRunner.query(
      `ALTER TABLE declarations ADD CONSTRAINT ck_declarations_units_sold CHECK (jsonb_typeof(units_sold) = 'array' AND jsonb_array_length(units_sold) <= 20)`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE declarations DROP CONSTRAINT ck_declarations_units_sold`);
    await queryRunner.query(`ALTER TABLE declarations DROP COLUMN units_sold`);
  }
}
