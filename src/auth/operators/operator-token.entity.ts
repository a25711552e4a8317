import { Check, Column, Entity, PrimaryGeneratedColumn, Unique } from 'typeorm';

/**
 * A named operator token: the admin API's credential besides the bootstrap ADMIN_TOKEN, so that
 * each admin action is attributed. Only the SHA-256 of the token is stored. Never returned.
 * The schema is `migrations/1795740000000-operator.ts`; this mirrors it.
 */
@Entity({ name: 'operator_tokens' })
@Unique('uq_operator_tokens_token_hash', ['tokenHash'])
@Check('ck_operator_tokens_token_hash_format', `token_hash ~ '^[0-9a-f]{64}$'`)
@Check('ck_operator_tokens_prefix_length', `char_length(prefix) BETWEEN 1 AND 16`)
@Check('ck_operator_tokens_name_length', `char_length(name) BETWEEN 1 AND 100`)
@Check('ck_operator_tokens_email_length', `char_length(email) BETWEEN 3 AND 254`)
export class OperatorTokenEntity {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'pk_operator_tokens' })
  id!: string;

  /** Who uses the token (a person or a tool), as shown in the audit trail. */
  @Column({ type: 'text' })
  name!: string;

  /** Where the operator's console sign-in links are mailed (`migrations/1797730000001-operator-console.ts`); null: API only. */
  @Column({ type: 'text', nullable: true })
  email!: string | null;

  @Column({ name: 'token_hash', type: 'text' })
  tokenHash!: string;

  /** The first characters of the token (`eprop_` + 7), to recognise it in a list. */
  @Column({ type: 'text' })
  prefix!: string;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt!: Date;

  @Column({ name: 'revoked_at', type: 'timestamptz', nullable: true })
  revokedAt!: Date | null;
}
