import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { Actor } from '../caller/actor.js';
import { AuditRepository } from './audit.repository.js';

/** What an admin write did. `changes` says what changed; it never holds a secret (a token, a hash). */
export interface AuditEvent {
  /** `<target>.<verb>`: `client.created`, `token.revoked`, … */
  action: string;
  targetType: string;
  targetId: string;
  /** The client concerned, if any. */
  clientId?: string | null;
  changes?: Record<string, unknown>;
}

/** The operator identity name recorded for the bootstrap credential. */
export const BOOTSTRAP_ACTOR_NAME = 'ADMIN_TOKEN';
/** The actor name recorded for a client's people acting in the dashboard. */
export const DASHBOARD_ACTOR_NAME = 'dashboard';
/** The actor name recorded for a request nobody signed in made (a sign-in link asked for by e-mail). */
export const ANONYMOUS_ACTOR_NAME = 'sign-in e-mail request';

const ACTOR_NAMES = { admin: BOOTSTRAP_ACTOR_NAME, client: DASHBOARD_ACTOR_NAME, anonymous: ANONYMOUS_ACTOR_NAME } as const;

/**
 * Writes the audit trail: who is recorded as the actor of a write (audit.repository.ts stores it). `record` takes the EntityManager of the write's own transaction: the
 * entry commits with the write or not at all.
 */
@Injectable()
export class AuditTrail {
  constructor(private readonly events: AuditRepository) {}

  async record(manager: EntityManager, actor: Actor, event: AuditEvent): Promise<void> {
    await this.events.insert(manager, {
      ...actorColumns(actor),
      action: event.action,
      targetType: event.targetType,
      targetId: event.targetId,
      clientId: event.clientId ?? null,
      changes: event.changes ?? {},
      requestId: actor.requestId,
    });
  }
}

/**
 * The head of an INSERT of audit entries, for a write that records its entry in its own statement (a
 * declaration's revision): followed by a SELECT of the nine columns, in this order.
 */
export const AUDIT_ENTRY_INSERT =
  'INSERT INTO audit_events (actor_type, operator_id, actor_name, action, target_type, target_id, client_id, changes, request_id)';

/**
 * Who an entry records as its actor. A client's token is named `token <prefix>` (its id when it has
 * none): a write that reads the prefix from the token's row in its own statement (a declaration's
 * insert) names it so there, with the same rule.
 */
export function actorColumns({ operator }: Actor): { actorType: Actor['operator']['kind']; operatorId: string | null; actorName: string } {
  return {
    actorType: operator.kind,
    operatorId: operator.kind === 'operator' ? operator.id : null,
    actorName:
      operator.kind === 'operator'
        ? operator.name
        : operator.kind === 'client' && operator.token
          ? `token ${operator.token.prefix ?? operator.token.id}`
          : operator.kind === 'anonymous' && operator.name
            ? operator.name
            : ACTOR_NAMES[operator.kind],
  };
}
