import { Check, Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { ClientEntity } from '../../accounts/client.entity.js';
import type { TokenMode } from '../../common/token-format.js';

export type IdempotencyState = 'in_flight' | 'completed';

/**
 * An `Idempotency-Key` of a client: claimed while its request runs, then the response to replay.
 * Kept 24 hours (`expires_at`); expired rows are ignored, overwritten and swept. Persistence only.
 */
@Entity({ name: 'idempotency_keys' })
@Check('ck_idempotency_keys_state', `state IN ('in_flight', 'completed')`)
@Check('ck_idempotency_keys_response', `(state = 'completed') = (response_status IS NOT NULL AND response_body IS NOT NULL)`)
@Index('ix_idempotency_keys_expires_at', ['expiresAt'])
@Check('ck_idempotency_keys_mode', `mode IN ('live', 'test')`)
export class IdempotencyKeyEntity {
  @PrimaryColumn({ name: 'client_id', type: 'text', primaryKeyConstraintName: 'pk_idempotency_keys' })
  clientId!: string;

  @ManyToOne(() => ClientEntity, { onDelete: 'CASCADE', nullable: false })
  @JoinColumn({ name: 'client_id', referencedColumnName: 'clientId', foreignKeyConstraintName: 'fk_idempotency_keys_client' })
  client?: ClientEntity;

  /** Keys are per client and mode: a test request never replays a live response. */
  @PrimaryColumn({ type: 'text', default: 'live', primaryKeyConstraintName: 'pk_idempotency_keys' })
  mode!: TokenMode;

  @PrimaryColumn({ type: 'text', primaryKeyConstraintName: 'pk_idempotency_keys' })
  key!: string;

  /** SHA-256 of the canonical JSON of the request body. */
  @Column({ name: 'request_hash', type: 'text' })
  requestHash!: string;

  @Column({ type: 'text' })
  state!: IdempotencyState;

  @Column({ name: 'response_status', type: 'integer', nullable: true })
  responseStatus!: number | null;

  @Column({ name: 'response_body', type: 'jsonb', nullable: true })
  responseBody!: unknown;

  /** When the key was claimed (reset when a stale claim is taken over): identifies the claim. */
  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt!: Date;

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt!: Date;

  /** The claiming process's advisory lock key (ProcessPresence), null if unknown: a claim whose lock is free is a dead process's. */
  @Column({ type: 'bigint', nullable: true })
  owner!: string | null;
}
