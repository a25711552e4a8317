import { Check, Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';

/**
 * One entry of the audit trail: an admin write, recorded in the transaction of that write.
 * Append-only (a trigger refuses UPDATE, DELETE and TRUNCATE). Persistence only: never returned.
 * The schema is `migrations/1795740000000-operator.ts`; this mirrors it.
 */
@Entity({ name: 'audit_events' })
@Check(
  'ck_audit_events_actor',
  `(actor_type = 'admin' AND operator_id IS NULL) OR (actor_type = 'operator' AND operator_id IS NOT NULL)
        OR (actor_type = 'client' AND operator_id IS NULL AND client_id IS NOT NULL)
        OR (actor_type = 'anonymous' AND operator_id IS NULL)`,
)
@Check('ck_audit_events_action_format', `action ~ '^[a-z_]+\\.[a-z_]+$'`)
@Index('ix_audit_events_occurred', ['occurredAt', 'id'])
@Index('ix_audit_events_client_occurred', ['clientId', 'occurredAt', 'id'])
@Index('ix_audit_events_operator_occurred', ['operatorId', 'occurredAt', 'id'])
@Index('ix_audit_events_action_occurred', ['action', 'occurredAt', 'id'])
export class AuditEventEntity {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'pk_audit_events' })
  id!: string;

  @Column({ name: 'occurred_at', type: 'timestamptz', default: () => 'clock_timestamp()' })
  occurredAt!: Date;

  /** `admin` (the bootstrap ADMIN_TOKEN), `operator` (a named operator token), `client` (its people in the dashboard) or `anonymous` (a sign-in e-mail request). */
  @Column({ name: 'actor_type', type: 'text' })
  actorType!: 'admin' | 'operator' | 'client' | 'anonymous';

  @Column({ name: 'operator_id', type: 'uuid', nullable: true })
  operatorId!: string | null;

  /**
   * The named operator token, if any. Named, not imported: the audit trail sits below credentials
   * (auth/) and knows nothing of them but this foreign key.
   */
  @ManyToOne('OperatorTokenEntity', { onDelete: 'RESTRICT', nullable: true })
  @JoinColumn({ name: 'operator_id', foreignKeyConstraintName: 'fk_audit_events_operator' })
  operator?: object | null;

  /** The operator token's name at the time (`ADMIN_TOKEN` for the bootstrap credential). */
  @Column({ name: 'actor_name', type: 'text' })
  actorName!: string;

  @Column({ type: 'text' })
  action!: string;

  @Column({ name: 'target_type', type: 'text' })
  targetType!: string;

  @Column({ name: 'target_id', type: 'text' })
  targetId!: string;

  /** The client concerned, if any (to list a client's history). */
  @Column({ name: 'client_id', type: 'text', nullable: true })
  clientId!: string | null;

  /** What changed (field → value); never a secret. */
  @Column({ type: 'jsonb', default: () => "'{}'" })
  changes!: Record<string, unknown>;

  @Column({ name: 'request_id', type: 'text', nullable: true })
  requestId!: string | null;
}
