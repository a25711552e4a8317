import type { EntityManager } from 'typeorm';

/**
 * What the outbox asks of the sign-in links its mails carry. auth/ owns the links and hands this to
 * the outbox when it starts (mail/ sits below auth/ and cannot call it).
 */
export interface CarriedLinks {
  /** Of these links, those that no longer work (revoked, used or expired). */
  voided(ids: string[]): Promise<Set<string>>;
  /** The link of a mail given up stops working (nobody received it), in `manager`'s transaction. */
  revoke(manager: EntityManager, id: string): Promise<void>;
}
