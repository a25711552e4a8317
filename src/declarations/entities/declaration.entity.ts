import { Check, Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn, Unique } from 'typeorm';
import { ClientEntity } from '../../accounts/client.entity.js';
import type { TokenMode } from '../../common/token-format.js';
import type { DeclarationStatus } from '../declaration.js';
import { PERIOD_PATTERN_TEXT } from '../../calendar/half-year.js';

/**
 * One acknowledged submission of a client for a period: never updated, except `status`
 * (current → superseded) when a later revision replaces it. Persistence only: never returned.
 * The schema is `migrations/1795500000000-declarations.ts`; this mirrors it.
 */
@Entity({ name: 'declarations' })
@Unique('uq_declarations_client_period_revision', ['clientId', 'mode', 'period', 'revision'])
@Unique('uq_declarations_receipt', ['receipt'])
@Check('ck_declarations_status', `status IN ('current', 'superseded')`)
@Check('ck_declarations_period_format', `period ~ '${PERIOD_PATTERN_TEXT}'`)
@Check('ck_declarations_revision_positive', `revision >= 1`)
@Check('ck_declarations_supersedes_previous', `(revision = 1) = (supersedes IS NULL)`)
@Check('ck_declarations_catalogue_version_positive', `catalogue_version >= 1`)
@Check('ck_declarations_submitted_by', `submitted_by IS NULL OR submitted_by->>'type' IN ('token', 'dashboard', 'operator')`)
@Check('ck_declarations_mode', `mode IN ('live', 'test')`)
@Check('ck_declarations_units_sold', `jsonb_typeof(units_sold) = 'array' AND jsonb_array_length(units_sold) <= 20`)
@Check('ck_declarations_declared_by_name', `declared_by_name IS NULL OR char_length(declared_by_name) BETWEEN 1 AND 200`)
@Check('ck_declarations_identity_hash', `identity_hash ~ '^[0-9a-f]{64}$'`)
// The database, not only the code, guarantees one current revision per (client, mode, period) (mode: migrations/1797000000000-sandbox.ts).
@Index('uq_declarations_client_period_current', ['clientId', 'mode', 'period'], { unique: true, where: `status = 'current'` })
// Listing, newest first (keyset pagination on submitted_at DESC, id DESC): unfiltered, by period, status=current.
@Index('ix_declarations_client_submitted', ['clientId', 'mode', 'submittedAt', 'id'])
@Index('ix_declarations_client_period_submitted', ['clientId', 'mode', 'period', 'submittedAt', 'id'])
@Index('ix_declarations_client_current_submitted', ['clientId', 'mode', 'submittedAt', 'id'], { where: `status = 'current'` })
// The operator's listing across clients (migrations/1795740000000-operator.ts): unfiltered or by date, by period,
// by status, and the current revisions of a period.
@Index('ix_declarations_submitted', ['submittedAt', 'id'])
@Index('ix_declarations_period_submitted', ['period', 'submittedAt', 'id'])
@Index('ix_declarations_current_submitted', ['submittedAt', 'id'], { where: `status = 'current'` })
@Index('ix_declarations_superseded_submitted', ['submittedAt', 'id'], { where: `status = 'superseded'` })
@Index('ix_declarations_period_current_submitted', ['period', 'submittedAt', 'id'], { where: `status = 'current'` })
export class DeclarationEntity {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'pk_declarations' })
  id!: string;

  @Column({ name: 'client_id', type: 'text' })
  clientId!: string;

  /** `test`: the client's sandbox (an `eprt_` token); never seen by the operator nor by a live token. */
  @Column({ type: 'text', default: 'live' })
  mode!: TokenMode;

  @ManyToOne(() => ClientEntity, { onDelete: 'RESTRICT', nullable: false })
  @JoinColumn({ name: 'client_id', referencedColumnName: 'clientId', foreignKeyConstraintName: 'fk_declarations_client' })
  client?: ClientEntity;

  @Column({ type: 'text' })
  period!: string;

  @Column({ type: 'integer' })
  revision!: number;

  @Column({ type: 'text' })
  status!: DeclarationStatus;

  @Column({ type: 'uuid', nullable: true })
  supersedes!: string | null;

  @ManyToOne(() => DeclarationEntity, { onDelete: 'RESTRICT', nullable: true })
  @JoinColumn({ name: 'supersedes', foreignKeyConstraintName: 'fk_declarations_supersedes' })
  superseded?: DeclarationEntity | null;

  @Column({ name: 'submitted_at', type: 'timestamptz' })
  submittedAt!: Date;

  @Column({ type: 'text' })
  receipt!: string;

  /** The reference catalogue version (streams.json `catalogue_version`) the declaration was validated against. */
  @Column({ name: 'catalogue_version', type: 'integer', default: 1 })
  catalogueVersion!: number;

  /** SHA-256 of the canonical lines: an identical resubmission is recognised without reading the lines. */
  @Column({ name: 'content_hash', type: 'text' })
  contentHash!: string;

  /**
   * What it declares, as `declarationIdentity` gives it (migrations/1797800000000-declaration-identity-hash.ts):
   * equal for the same figures however written; null for revisions filed before it was stored.
   */
  @Column({ name: 'identity_hash', type: 'text', nullable: true })
  identityHash!: string | null;

  /** Who filed it (migrations/1797100000000-operator-book.ts); null for revisions filed before it was recorded. */
  @Column({ name: 'submitted_by', type: 'jsonb', nullable: true })
  submittedBy!: Record<string, unknown> | null;

  /** The full name of the person who declared it in the dashboard (migrations/1797500000000-declared-by-name.ts); null through the API. */
  @Column({ name: 'declared_by_name', type: 'text', nullable: true })
  declaredByName!: string | null;

  /**
   * The consumer sales units stated for the half-year, once per stream (migrations/1797700000000-declaration-units-sold.ts):
   * `[{ stream, quantity }]`, quantity a whole number as decimal text; `[]` when not stated.
   */
  @Column({ name: 'units_sold', type: 'jsonb', default: () => "'[]'" })
  unitsSold!: { stream: string; quantity: string }[];
}
