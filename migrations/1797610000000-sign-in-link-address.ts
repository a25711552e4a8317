import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `sign_in_links.address_hash`: the SHA-256 (hex) of the address a link was mailed to, folded in
 * A–Z only, or null for a link the operator handed over. A link is refused once that is no longer
 * the client's confirmed address. Links outstanding now are bound to the client's confirmed address
 * of today (the one they were mailed to, as no address changed without voiding them).
 */
export class SignInLinkAddress1797610000000 implements MigrationInterface {
  name = 'SignInLinkAddress1797610000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE sign_in_links ADD COLUMN address_hash text NULL`);
    await queryRunner.query(
      `ALTER TABLE sign_in_links ADD CONSTRAINT ck_sign_in_links_address_hash_format CHECK (address_hash ~ '^[0-9a-f]{64}$')`,
    );
    await queryRunner.query(
      `UPDATE sign_in_links l
          SET address_hash = encode(sha256(convert_to(translate(c.confirmed_email, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz'), 'UTF8')), 'hex')
         FROM clients c
        WHERE c.client_id = l.client_id AND c.confirmed_email IS NOT NULL AND l.used_at IS NULL AND l.expires_at > now()`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE sign_in_links DROP COLUMN address_hash`);
  }
}
