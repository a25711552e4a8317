import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 32: a client's product catalogue (products, their versions by half-year, the packaging
 * elements of each version), the units sold per product and half-year, and what a declaration
 * derived from them used (the derivation of a revision, and each product's contribution to each
 * line). A version a filed derivation used cannot be deleted or replaced (fk RESTRICT).
 * Mirrored by the entities in `src/products/entities/`.
 */
export class Products1797200000000 implements MigrationInterface {
  name = 'Products1797200000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE products (
        id         uuid        NOT NULL DEFAULT gen_random_uuid(),
        client_id  text        NOT NULL,
        reference  text        NOT NULL,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        CONSTRAINT pk_products PRIMARY KEY (id),
        CONSTRAINT fk_products_client FOREIGN KEY (client_id) REFERENCES clients (client_id) ON DELETE RESTRICT,
        CONSTRAINT uq_products_client_reference UNIQUE (client_id, reference),
        CONSTRAINT ck_products_reference_length CHECK (char_length(reference) BETWEEN 1 AND 64)
      )
    `);
    await queryRunner.query(`
      CREATE TABLE product_versions (
        id           uuid        NOT NULL DEFAULT gen_random_uuid(),
        product_id   uuid        NOT NULL,
        valid_from   text        NOT NULL,
        name         text        NOT NULL,
        stream       text        NOT NULL,
        gtin         text        NULL,
        content_hash text        NOT NULL,
        recorded_at  timestamptz NOT NULL DEFAULT clock_timestamp(),
        CONSTRAINT pk_product_versions PRIMARY KEY (id),
        CONSTRAINT fk_product_versions_product FOREIGN KEY (product_id) REFERENCES products (id) ON DELETE CASCADE,
        CONSTRAINT uq_product_versions_product_valid_from UNIQUE (product_id, valid_from),
        CONSTRAINT ck_product_versions_valid_from_format CHECK (valid_from ~ '^[0-9]{4}-S[12]$'),
        CONSTRAINT ck_product_versions_name_length CHECK (char_length(name) BETWEEN 1 AND 200),
        CONSTRAINT ck_product_versions_gtin_format CHECK (gtin ~ '^[0-9]{8}$|^[0-9]{12,14}$')
      )
    `);
    await queryRunner.query(`
      CREATE TABLE product_elements (
        version_id         uuid           NOT NULL,
        position           integer        NOT NULL,
        material_code      text           NOT NULL,
        weight_g           numeric(13, 3) NOT NULL,
        per_unit           integer        NOT NULL,
        packaging_category text           NULL,
        reuse_status       text           NULL,
        CONSTRAINT pk_product_elements PRIMARY KEY (version_id, position),
        CONSTRAINT fk_product_elements_version FOREIGN KEY (version_id) REFERENCES product_versions (id) ON DELETE CASCADE,
        CONSTRAINT ck_product_elements_position CHECK (position >= 0 AND position < 50),
        CONSTRAINT ck_product_elements_weight CHECK (weight_g > 0 AND weight_g <= 10000000),
        CONSTRAINT ck_product_elements_per_unit CHECK (per_unit BETWEEN 1 AND 10000)
      )
    `);
    await queryRunner.query(`
      CREATE TABLE product_sales (
        product_id  uuid           NOT NULL,
        period      text           NOT NULL,
        units       numeric(13, 0) NOT NULL,
        recorded_at timestamptz    NOT NULL DEFAULT clock_timestamp(),
        CONSTRAINT pk_product_sales PRIMARY KEY (product_id, period),
        CONSTRAINT fk_product_sales_product FOREIGN KEY (product_id) REFERENCES products (id) ON DELETE CASCADE,
        CONSTRAINT ck_product_sales_period_format CHECK (period ~ '^[0-9]{4}-S[12]$'),
        CONSTRAINT ck_product_sales_units CHECK (units >= 0 AND units <= 1000000000000)
      )
    `);
    await queryRunner.query(`CREATE INDEX ix_product_sales_period ON product_sales (period, product_id)`);

    // A revision filed from the catalogue: the one row per declaration that says it was derived.
    await queryRunner.query(`
      CREATE TABLE declaration_derivations (
        declaration_id uuid        NOT NULL,
        client_id      text        NOT NULL,
        period         text        NOT NULL,
        products       integer     NOT NULL,
        derived_at     timestamptz NOT NULL DEFAULT clock_timestamp(),
        CONSTRAINT pk_declaration_derivations PRIMARY KEY (declaration_id),
        CONSTRAINT fk_declaration_derivations_declaration FOREIGN KEY (declaration_id) REFERENCES declarations (id) ON DELETE RESTRICT,
        CONSTRAINT fk_declaration_derivations_client FOREIGN KEY (client_id) REFERENCES clients (client_id) ON DELETE RESTRICT
      )
    `);
    await queryRunner.query(
      `CREATE INDEX ix_declaration_derivations_client_period ON declaration_derivations (client_id, period, derived_at DESC)`,
    );
    // What each product version gave each line of a derived revision (what a filing per sales unit needs).
    await queryRunner.query(`
      CREATE TABLE declaration_derivation_contributions (
        declaration_id uuid           NOT NULL,
        version_id     uuid           NOT NULL,
        stream         text           NOT NULL,
        material_code  text           NOT NULL,
        units          numeric(13, 0) NOT NULL,
        elements       numeric(18, 0) NOT NULL,
        kg             numeric(28, 6) NOT NULL,
        CONSTRAINT pk_declaration_derivation_contributions PRIMARY KEY (declaration_id, version_id, stream, material_code),
        CONSTRAINT fk_declaration_derivation_contributions_derivation FOREIGN KEY (declaration_id)
          REFERENCES declaration_derivations (declaration_id) ON DELETE CASCADE,
        CONSTRAINT fk_declaration_derivation_contributions_version FOREIGN KEY (version_id) REFERENCES product_versions (id) ON DELETE RESTRICT
      )
    `);
    await queryRunner.query(
      `CREATE INDEX ix_declaration_derivation_contributions_version ON declaration_derivation_contributions (version_id)`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE declaration_derivation_contributions`);
    await queryRunner.query(`DROP TABLE declaration_derivations`);
    await queryRunner.query(`DROP TABLE product_sales`);
    await queryRunner.query(`DROP TABLE product_elements`);
    await queryRunner.query(`DROP TABLE product_versions`);
    await queryRunner.query(`DROP TABLE products`);
  }
}
