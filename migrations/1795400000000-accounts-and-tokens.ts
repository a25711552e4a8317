import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Clients (pending and confirmed profile) and their bearer tokens (hash only). */
export class AccountsAndTokens1795400000000 implements MigrationInterface {
  name = 'AccountsAndTokens1795400000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE clients (
        client_id         text        NOT NULL,
        pending_email     text        NULL,
        pending_company   text        NULL,
        pending_country   text        NULL,
        pending_plan      text        NULL,
        pending_streams   text[]      NOT NULL DEFAULT '{}',
        pending_idus      text[]      NOT NULL DEFAULT '{}',
        confirmed_email   text        NULL,
        confirmed_company text        NULL,
        confirmed_country text        NULL,
        confirmed_plan    text        NULL,
        confirmed_streams text[]      NOT NULL DEFAULT '{}',
        confirmed_idus    text[]      NOT NULL DEFAULT '{}',
        confirmed_at      timestamptz NULL,
        created_at        timestamptz NOT NULL DEFAULT now(),
        updated_at        timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT pk_clients PRIMARY KEY (client_id),
        CONSTRAINT ck_clients_client_id_format CHECK (client_id ~ '^[a-z0-9][a-z0-9_-]{2,62}$'),
        CONSTRAINT ck_clients_pending_country CHECK (pending_country ~ '^[A-Z]{2}$'),
        CONSTRAINT ck_clients_confirmed_country CHECK (confirmed_country ~ '^[A-Z]{2}$'),
        CONSTRAINT ck_clients_pending_company_length CHECK (char_length(pending_company) <= 200),
        CONSTRAINT ck_clients_confirmed_company_length CHECK (char_length(confirmed_company) <= 200),
        CONSTRAINT ck_clients_pending_idus_count CHECK (cardinality(pending_idus) <= 50),
        CONSTRAINT ck_clients_confirmed_idus_count CHECK (cardinality(confirmed_idus) <= 50),
        CONSTRAINT ck_clients_confirmed_complete CHECK (
          confirmed_at IS NULL OR (
            confirmed_email IS NOT NULL AND confirmed_company IS NOT NULL AND confirmed_country IS NOT NULL
            AND confirmed_plan IS NOT NULL AND cardinality(confirmed_streams) > 0
          )
        )
      )
    `);
    await queryRunner.query(`
      CREATE TABLE client_tokens (
        id           uuid        NOT NULL DEFAULT gen_random_uuid(),
        client_id    text        NOT NULL,
        token_hash   text        NOT NULL,
        prefix       text        NOT NULL,
        name         text        NULL,
        created_at   timestamptz NOT NULL DEFAULT now(),
        expires_at   timestamptz NULL,
        last_used_at timestamptz NULL,
        revoked_at   timestamptz NULL,
        CONSTRAINT pk_client_tokens PRIMARY KEY (id),
        CONSTRAINT fk_client_tokens_client FOREIGN KEY (client_id) REFERENCES clients (client_id) ON DELETE CASCADE,
        CONSTRAINT ck_client_tokens_token_hash_format CHECK (token_hash ~ '^[0-9a-f]{64}$'),
        CONSTRAINT ck_client_tokens_prefix_length CHECK (char_length(prefix) BETWEEN 1 AND 16),
        CONSTRAINT ck_client_tokens_name_length CHECK (char_length(name) BETWEEN 1 AND 100)
      )
    `);
    // Verification: one lookup by hash per request.
    await queryRunner.query(`CREATE UNIQUE INDEX uq_client_tokens_token_hash ON client_tokens (token_hash)`);
    // Listing a client's tokens, newest first (also serves the foreign key).
    await queryRunner.query(`CREATE INDEX ix_client_tokens_client_id_created_at ON client_tokens (client_id, created_at DESC)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE client_tokens`);
    await queryRunner.query(`DROP TABLE clients`);
  }
}
