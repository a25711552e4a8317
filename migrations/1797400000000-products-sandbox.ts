import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The sandbox (issue 34) reaches the product catalogue (issue 32): a product belongs to its
 * client's live or test data (`mode`), and a reference is unique per (client, mode). Versions,
 * elements and sales hang off their product, so they follow its mode.
 */
export class ProductsSandbox1797400000000 implements MigrationInterface {
  name = 'ProductsSandbox1797400000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE products ADD COLUMN mode text NOT NULL DEFAULT 'live'`);
    await queryRunner.query(`ALTER TABLE products ADD CONSTRAINT ck_products_mode CHECK (mode IN ('live', 'test'))`);
    await queryRunner.query(`ALTER TABLE products DROP CONSTRAINT uq_products_client_reference`);
    await queryRunner.query(`ALTER TABLE products ADD CONSTRAINT uq_products_client_reference UNIQUE (client_id, mode, reference)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    // Test products have no meaning without their mode: they go with it (and what was derived from them).
    await queryRunner.query(`DELETE FROM declaration_derivations x USING declarations d WHERE d.id = x.declaration_id AND d.mode = 'test'`);
    await queryRunner.query(`DELETE FROM products WHERE mode = 'test'`);
    await queryRunner.query(`ALTER TABLE products DROP CONSTRAINT uq_products_client_reference`);
    await queryRunner.query(`ALTER TABLE products ADD CONSTRAINT uq_products_client_reference UNIQUE (client_id, reference)`);
    await queryRunner.query(`ALTER TABLE products DROP CONSTRAINT ck_products_mode`);
    await queryRunner.query(`ALTER TABLE products DROP COLUMN mode`);
  }
}
