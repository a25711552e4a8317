import { Check, Column, CreateDateColumn, Entity, Index, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import { type Language } from '../i18n/language.js';

export type ClientStatus = 'active' | 'suspended' | 'offboarded';

/**
 * A client of the service, with two copies of its profile: the pending one the operator edits,
 * and the confirmed one (`GET /me`, declarations) that `confirm` copies from it.
 * Persistence only: never returned by a controller.
 */
@Entity({ name: 'clients' })
// The operator's listing, newest first (migrations/1795740000000-operator.ts).
@Index('ix_clients_created', ['createdAt', 'clientId'])
// The constraints of the migration, named as there (so that a generated migration changes nothing).
@Check('ck_clients_client_id_format', `client_id ~ '^[a-z0-9][a-z0-9_-]{2,62}$'`)
@Check('ck_clients_pending_country', `pending_country ~ '^[A-Z]{2}$'`)
@Check('ck_clients_status', `status IN ('active', 'suspended', 'offboarded')`)
@Check('ck_clients_confirmed_country', `confirmed_country ~ '^[A-Z]{2}$'`)
@Check('ck_clients_pending_company_length', `char_length(pending_company) <= 200`)
@Check('ck_clients_confirmed_company_length', `char_length(confirmed_company) <= 200`)
@Check('ck_clients_pending_idus_count', `cardinality(pending_idus) <= 50`)
@Check('ck_clients_confirmed_idus_count', `cardinality(confirmed_idus) <= 50`)
@Check('ck_clients_language', `language ~ '^[a-z]{2,3}$'`)
@Check(
  'ck_clients_confirmed_complete',
  `confirmed_at IS NULL OR (confirmed_email IS NOT NULL AND confirmed_company IS NOT NULL AND confirmed_country IS NOT NULL AND confirmed_plan IS NOT NULL AND cardinality(confirmed_streams) > 0)`,
)
export class ClientEntity {
  @PrimaryColumn({ name: 'client_id', type: 'text', primaryKeyConstraintName: 'pk_clients' })
  clientId!: string;

  @Column({ name: 'pending_email', type: 'text', nullable: true })
  pendingEmail!: string | null;

  @Column({ name: 'pending_company', type: 'text', nullable: true })
  pendingCompany!: string | null;

  @Column({ name: 'pending_country', type: 'text', nullable: true })
  pendingCountry!: string | null;

  @Column({ name: 'pending_plan', type: 'text', nullable: true })
  pendingPlan!: string | null;

  @Column({ name: 'pending_streams', type: 'text', array: true, default: () => "'{}'" })
  pendingStreams!: string[];

  @Column({ name: 'pending_idus', type: 'text', array: true, default: () => "'{}'" })
  pendingIdus!: string[];

  @Column({ name: 'confirmed_email', type: 'text', nullable: true })
  confirmedEmail!: string | null;

  @Column({ name: 'confirmed_company', type: 'text', nullable: true })
  confirmedCompany!: string | null;

  @Column({ name: 'confirmed_country', type: 'text', nullable: true })
  confirmedCountry!: string | null;

  @Column({ name: 'confirmed_plan', type: 'text', nullable: true })
  confirmedPlan!: string | null;

  @Column({ name: 'confirmed_streams', type: 'text', array: true, default: () => "'{}'" })
  confirmedStreams!: string[];

  @Column({ name: 'confirmed_idus', type: 'text', array: true, default: () => "'{}'" })
  confirmedIdus!: string[];

  /** The language the service writes to the client in (its e-mails): set by the operator, applies at once (migrations/1797300000000-client-language.ts). */
  @Column({ name: 'language', type: 'text', default: 'fr' })
  language!: Language;

  /** When the pending profile was last confirmed; null = never (the confirmed profile is then empty). */
  @Column({ name: 'confirmed_at', type: 'timestamptz', nullable: true })
  confirmedAt!: Date | null;

  /** The first confirmation (later ones move `confirmedAt`): by default, a client declares from its half-year. */
  @Column({ name: 'first_confirmed_at', type: 'timestamptz', nullable: true })
  firstConfirmedAt!: Date | null;

  /** `active`; `suspended` (access refused, reversible); `offboarded` (access ended for good). Records are kept in every case. */
  @Column({ type: 'text', default: 'active' })
  status!: ClientStatus;

  @Column({ name: 'status_changed_at', type: 'timestamptz', nullable: true })
  statusChangedAt!: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
