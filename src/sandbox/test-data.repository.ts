import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';

/** What a wipe removed. */
export interface WipedCounts {
  declarations: number;
  idempotencyKeys: number;
}

/** The SQL of a client's sandbox: its test declarations (and their lines) and test Idempotency-Keys. Scoped by client, and to mode `test` by construction. */
@Injectable()
export class TestDataRepository {
  /**
   * Deletes every test declaration of the client (lines go with them: ON DELETE CASCADE) and its test
   * Idempotency-Keys, in `manager`'s transaction. One statement per table: a revision and the one it
   * supersedes go together, so the self-reference never blocks.
   */
  async wipe(manager: EntityManager, clientId: string): Promise<WipedCounts> {
    const [counts] = (await manager.query(
      `WITH declarations_wiped AS (DELETE FROM declarations WHERE client_id = $1 AND mode = 'test' RETURNING 1),
            keys_wiped AS (DELETE FROM idempotency_keys WHERE client_id = $1 AND mode = 'test' RETURNING 1)
       SELECT (SELECT count(*)::int FROM declarations_wiped) AS declarations, (SELECT count(*)::int FROM keys_wiped) AS "idempotencyKeys"`,
      [clientId],
    )) as WipedCounts[];
    return counts!;
  }
}
