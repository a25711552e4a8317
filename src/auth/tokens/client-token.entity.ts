import { Check, Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { ClientEntity } from '../../accounts/client.entity.js';
import type { TokenMode } from '../../common/token-format.js';

/** Who issued a token: the operator (admin API) or the client's people (dashboard). */
export type TokenCreatedVia = 'operator' | 'dashboard';

/**
 * A client token's metadata. The token itself is never stored: only its hex SHA-256
 * (`token_hash`, unique index: verification is one indexed lookup). Never returned by a controller.
 */
@Entity({ name: 'client_tokens' })
@Index('uq_client_tokens_token_hash', ['tokenHash'], { unique: true })
@Index('ix_client_tokens_client_id_created_at', ['clientId', 'createdAt'])
@Check('ck_client_tokens_token_hash_format', `token_hash ~ '^[0-9a-f]{64}$'`)
@Check('ck_client_tokens_prefix_length', `char_length(prefix) BETWEEN 1 AND 16`)
@Check('ck_client_tokens_name_length', `char_length(name) BETWEEN 1 AND 100`)
@Check('ck_client_tokens_created_via', `created_via IN ('operator', 'dashboard')`)
@Check('ck_client_tokens_mode', `mode IN ('live', 'test')`)
export class ClientTokenEntity {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'pk_client_tokens' })
  id!: string;

  @Column({ name: 'client_id', type: 'text' })
  clientId!: string;

  @ManyToOne(() => ClientEntity, { onDelete: 'CASCADE', nullable: false })
  @JoinColumn({ name: 'client_id', referencedColumnName: 'clientId', foreignKeyConstraintName: 'fk_client_tokens_client' })
  client?: ClientEntity;

  @Column({ name: 'token_hash', type: 'text' })
  tokenHash!: string;

  /** The first characters of the token (`eprc_` + 7), to recognise it in a list. */
  @Column({ type: 'text' })
  prefix!: string;

  @Column({ type: 'text', nullable: true })
  name!: string | null;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt!: Date;

  @Column({ name: 'expires_at', type: 'timestamptz', nullable: true })
  expiresAt!: Date | null;

  @Column({ name: 'last_used_at', type: 'timestamptz', nullable: true })
  lastUsedAt!: Date | null;

  @Column({ name: 'revoked_at', type: 'timestamptz', nullable: true })
  revokedAt!: Date | null;

  /** Who issued it: the operator (admin API) or the client's people (dashboard). */
  @Column({ name: 'created_via', type: 'text', default: 'operator' })
  createdVia!: TokenCreatedVia;

  /** `test`: an `eprt_` token, reaching only the client's sandbox (migrations/1797000000000-sandbox.ts). */
  @Column({ type: 'text', default: 'live' })
  mode!: TokenMode;
}
