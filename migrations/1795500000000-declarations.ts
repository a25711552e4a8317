import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Declarations (revisions, never overwritten), their lines, and the Idempotency-Key store.
 * Mirrored by the entities in `src/declarations/entities/`.
 */
export class Declarations1795500000000 implements MigrationInterface {
  name = 'Declarations1795500000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE declarations (
        id           uuid        NOT NULL DEFAULT gen_random_uuid(),
        client_id    text        NOT NULL,
        period       text        NOT NULL,
        revision     integer     NOT NULL,
        status       text        NOT NULL,
        supersedes   uuid        NULL,
        submitted_at timestamptz NOT NULL,
        receipt      text        NOT NULL,
        content_hash text        NOT NULL,
        CONSTRAINT pk_declarations PRIMARY KEY (id),
        CONSTRAINT fk_declarations_client FOREIGN KEY (client_id) REFERENCES clients (client_id) ON DELETE RESTRICT,
        CONSTRAINT fk_declarations_supersedes FOREIGN KEY (supersedes) REFERENCES declarations (id) ON DELETE RESTRICT,
        CONSTRAINT uq_declarations_client_period_revision UNIQUE (client_id, period, revision),
        CONSTRAINT uq_declarations_receipt UNIQUE (receipt),
        CONSTRAINT ck_declarations_status CHECK (status IN ('current', 'superseded')),
        CONSTRAINT ck_declarations_period_format CHECK (period ~ '^[0-9]{4}-S[12]$'),
        CONSTRAINT ck_declarations_revision_positive CHECK (revision >= 1),
        CONSTRAINT ck_declarations_supersedes_previous CHECK ((revision = 1) = (supersedes IS NULL))
      )
    `);
    // Exactly one current revision per (client, period), whatever the number of replicas.
    await queryRunner.query(
      `CREATE UNIQUE INDEX uq_declarations_client_period_current ON declarations (client_id, period) WHERE status = 'current'`,
    );
    // GET /declarations, newest first, keyset on (submitted_at, id): unfiltered, by period, and status=current
    // (without the last one, a client with thousands of superseded revisions would have them all read to find a page).
    await queryRunner.query(`CREATE INDEX ix_declarations_client_submitted ON declarations (client_id, submitted_at DESC, id DESC)`);
    await queryRunner.query(
      `CREATE INDEX ix_declarations_client_period_submitted ON declarations (client_id, period, submitted_at DESC, id DESC)`,
    );
    await queryRunner.query(
      `CREATE INDEX ix_declarations_client_current_submitted ON declarations (client_id, submitted_at DESC, id DESC) WHERE status = 'current'`,
    );

    await queryRunner.query(`
      CREATE TABLE declaration_lines (
        declaration_id uuid           NOT NULL,
        position       integer        NOT NULL,
        stream         text           NOT NULL,
        material       text           NOT NULL,
        material_code  text           NULL,
        unit           text           NOT NULL,
        quantity       numeric(16, 3) NOT NULL,
        CONSTRAINT pk_declaration_lines PRIMARY KEY (declaration_id, position),
        CONSTRAINT fk_declaration_lines_declaration FOREIGN KEY (declaration_id) REFERENCES declarations (id) ON DELETE CASCADE,
        CONSTRAINT ck_declaration_lines_position CHECK (position >= 0 AND position < 1000),
        CONSTRAINT ck_declaration_lines_material_length CHECK (char_length(material) BETWEEN 1 AND 120),
        CONSTRAINT ck_declaration_lines_quantity_range CHECK (quantity >= 0 AND quantity <= 1000000000000)
      )
    `);

    await queryRunner.query(`
      CREATE TABLE idempotency_keys (
        client_id       text        NOT NULL,
        key             text        NOT NULL,
        request_hash    text        NOT NULL,
        state           text        NOT NULL,
        response_status integer     NULL,
        response_body   jsonb       NULL,
        created_at      timestamptz NOT NULL DEFAULT now(),
        expires_at      timestamptz NOT NULL,
        CONSTRAINT pk_idempotency_keys PRIMARY KEY (client_id, key),
        CONSTRAINT fk_idempotency_keys_client FOREIGN KEY (client_id) REFERENCES clients (client_id) ON DELETE CASCADE,
        CONSTRAINT ck_idempotency_keys_state CHECK (state IN ('in_flight', 'completed')),
        CONSTRAINT ck_idempotency_keys_response CHECK ((state = 'completed') = (response_status IS NOT NULL AND response_body IS NOT NULL))
      )
    `);
    // The sweep of expired keys.
    await queryRunner.query(`CREATE INDEX ix_idempotency_keys_expires_at ON idempotency_keys (expires_at)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE idempotency_keys`);
    await queryRunner.query(`DROP TABLE declaration_lines`);
    await queryRunner.query(`DROP TABLE declarations`);
  }
}
