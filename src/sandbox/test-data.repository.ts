import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';

/** What a wipe removed. */
export interface WipedCounts {
  declarations: number;
  idempotencyKeys: number;
  products: number;
}

/** The SQL of a client's sandbox: its test declarations (and their lines), test Idempotency-Keys and test products. Scoped by client, and to mode `test` by construction. */
@Injectable()
export class TestDataRepository {
  /**
   * Deletes every test declaration of the client (lines go with them: ON DELETE CASCADE), its test
   * Idempotency-Keys and its test products (versions, elements and sales go with them), in
   * `manager`'s transaction. A revision and the one it supersedes go in one statement, so the
   * self-reference never blocks; what derived test revisions recorded goes first, since it holds
   * both the revisions and the product versions.
   */
  async wipe(manager: EntityManager, clientId: string): Promise<WipedCounts> {
    await manager.query(
      `DELETE FROM declaration_derivations x USING declarations d WHERE d.id = x.declaration_id AND d.client_id = $1 AND d.mode = 'test'`,
      [clientId],
    );
    const [counts] = (await manager.query(
      `WITH declarations_wiped AS (DELETE FROM declarations WHERE client_id = $1 AND mode = 'test' RETURNING 1),
            keys_wiped AS (DELETE FROM idempotency_keys WHERE client_id = $1 AND mode = 'test' RETURNING 1),
            products_wiped AS (DELETE FROM products WHERE client_id = $1 AND mode = 'test' RETURNING 1)
       SELECT (SELECT count(*)::int FROM declarations_wiped) AS declarations, (SELECT count(*)::int FROM keys_wiped) AS "idempotencyKeys",
              (SELECT count(*)::int FROM products_wiped) AS products`,
      [clientId],
    )) as WipedCounts[];
    return counts!;
  }
}
