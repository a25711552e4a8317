import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The operator's book of producers (issue 33):
 * - `declarations.submitted_by`: who filed each revision (a token's id and prefix, or a dashboard
 *   session); null for revisions filed before it was recorded.
 * - `clients.status`: active, suspended (access refused, records kept, reversible) or offboarded
 *   (access ended for good, records kept). A change of it fires `clients_auth_changed`, so every
 *   replica forgets what it kept of the client at once.
 * - `clients.first_confirmed_at`: the first confirmation, from which a client declares by default.
 * - `client_streams`: per client and stream, the eco-organism its declarations go to and the
 *   half-year from which it declares (null: the half-year of its confirmation).
 * - `sign_in_links.revoked_at`: an invitation the operator withdrew.
 */
export class OperatorBook1797100000000 implements MigrationInterface {
  name = 'OperatorBook1797100000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE declarations ADD COLUMN submitted_by jsonb NULL`);
    await queryRunner.query(`
      ALTER TABLE declarations ADD CONSTRAINT ck_declarations_submitted_by CHECK (
        submitted_by IS NULL OR submitted_by->>'type' IN ('token', 'dashboard', 'operator'))
    `);

    await queryRunner.query(`ALTER TABLE clients ADD COLUMN status text NOT NULL DEFAULT 'active'`);
    await queryRunner.query(`ALTER TABLE clients ADD COLUMN status_changed_at timestamptz NULL`);
    await queryRunner.query(`ALTER TABLE clients ADD CONSTRAINT ck_clients_status CHECK (status IN ('active', 'suspended', 'offboarded'))`);
    // The first confirmation (later ones move confirmed_at): the default liability start. Read back from the audit trail where it holds it.
    await queryRunner.query(`ALTER TABLE clients ADD COLUMN first_confirmed_at timestamptz NULL`);
    await queryRunner.query(`
      UPDATE clients c SET first_confirmed_at = coalesce(
        (SELECT min(a.occurred_at) FROM audit_events a WHERE a.client_id = c.client_id AND a.action = 'client.confirmed'), c.confirmed_at)
       WHERE c.confirmed_at IS NOT NULL
    `);

    await queryRunner.query(`
      CREATE TABLE client_streams (
        client_id    text        NOT NULL,
        stream       text        NOT NULL,
        eco_organism text        NULL,
        liable_from  text        NULL,
        updated_at   timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT pk_client_streams PRIMARY KEY (client_id, stream),
        CONSTRAINT fk_client_streams_client FOREIGN KEY (client_id) REFERENCES clients (client_id) ON DELETE CASCADE,
        CONSTRAINT ck_client_streams_liable_from CHECK (liable_from ~ '^[0-9]{4}-S[12]$'),
        CONSTRAINT ck_client_streams_eco_organism_length CHECK (char_length(eco_organism) BETWEEN 1 AND 100)
      )
    `);
    await queryRunner.query(`CREATE INDEX ix_client_streams_eco_organism ON client_streams (eco_organism, stream)`);

    await queryRunner.query(`ALTER TABLE sign_in_links ADD COLUMN revoked_at timestamptz NULL`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE sign_in_links DROP COLUMN revoked_at`);
    await queryRunner.query(`DROP TABLE client_streams`);
    await queryRunner.query(`ALTER TABLE clients DROP CONSTRAINT ck_clients_status`);
    await queryRunner.query(`ALTER TABLE clients DROP COLUMN first_confirmed_at`);
    await queryRunner.query(`ALTER TABLE clients DROP COLUMN status_changed_at`);
    await queryRunner.query(`ALTER TABLE clients DROP COLUMN status`);
    await queryRunner.query(`ALTER TABLE declarations DROP CONSTRAINT ck_declarations_submitted_by`);
    await queryRunner.query(`ALTER TABLE declarations DROP COLUMN submitted_by`);
  }
}
