import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Which column of her own per-product spreadsheet holds which piece of information, as a client
 * said it once on the dashboard's column step: `{"product": "article", "weight_g": "grammes", …}`
 * (field code → the header's key: trimmed, lower case, without accents). One small row per client,
 * replaced at each choice, read at her next upload.
 */
export class ProductFileColumns1797710000000 implements MigrationInterface {
  name = 'ProductFileColumns1797710000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE product_file_columns (
        client_id  text        NOT NULL,
        columns    jsonb       NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT pk_product_file_columns PRIMARY KEY (client_id),
        CONSTRAINT fk_product_file_columns_client FOREIGN KEY (client_id) REFERENCES clients (client_id) ON DELETE CASCADE,
        CONSTRAINT ck_product_file_columns_object CHECK (jsonb_typeof(columns) = 'object' AND octet_length(columns::text) <= 4096)
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE product_file_columns`);
  }
}
