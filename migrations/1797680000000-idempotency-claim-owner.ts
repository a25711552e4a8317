import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `idempotency_keys.owner`: the advisory lock key of the process that claimed the key
 * (src/database/process-presence.ts), or null when unknown. A claim whose owner no longer holds its
 * lock belongs to a process that is gone, and may be taken over at once instead of after a minute.
 */
export class IdempotencyClaimOwner1797680000000 implements MigrationInterface {
  name = 'IdempotencyClaimOwner1797680000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE idempotency_keys ADD COLUMN owner bigint NULL`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE idempotency_keys DROP COLUMN owner`);
  }
}
