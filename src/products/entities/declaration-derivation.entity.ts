import { Column, Entity, Index, JoinColumn, ManyToOne, OneToOne, PrimaryColumn } from 'typeorm';
import { ClientEntity } from '../../accounts/client.entity.js';
import { DeclarationEntity } from '../../declarations/entities/declaration.entity.js';
import { ProductVersionEntity } from './product-version.entity.js';

/** A declaration revision filed from the catalogue and sales: that it was derived, and from how many products. Persistence only. */
@Entity({ name: 'declaration_derivations' })
@Index('ix_declaration_derivations_client_period', ['clientId', 'period', 'derivedAt'])
export class DeclarationDerivationEntity {
  @PrimaryColumn({ name: 'declaration_id', type: 'uuid', primaryKeyConstraintName: 'pk_declaration_derivations' })
  declarationId!: string;

  @OneToOne(() => DeclarationEntity, { onDelete: 'RESTRICT', nullable: false })
  @JoinColumn({ name: 'declaration_id', foreignKeyConstraintName: 'fk_declaration_derivations_declaration' })
  declaration?: DeclarationEntity;

  @Column({ name: 'client_id', type: 'text' })
  clientId!: string;

  @ManyToOne(() => ClientEntity, { onDelete: 'RESTRICT', nullable: false })
  @JoinColumn({ name: 'client_id', referencedColumnName: 'clientId', foreignKeyConstraintName: 'fk_declaration_derivations_client' })
  client?: ClientEntity;

  @Column({ type: 'text' })
  period!: string;

  @Column({ type: 'integer' })
  products!: number;

  @Column({ name: 'derived_at', type: 'timestamptz', default: () => 'clock_timestamp()' })
  derivedAt!: Date;
}

/** What one product version gave one (stream, material) of a derived revision. Persistence only. */
@Entity({ name: 'declaration_derivation_contributions' })
@Index('ix_declaration_derivation_contributions_version', ['versionId'])
export class DeclarationDerivationContributionEntity {
  @PrimaryColumn({ name: 'declaration_id', type: 'uuid', primaryKeyConstraintName: 'pk_declaration_derivation_contributions' })
  declarationId!: string;

  @ManyToOne(() => DeclarationDerivationEntity, { onDelete: 'CASCADE', nullable: false })
  @JoinColumn({ name: 'declaration_id', foreignKeyConstraintName: 'fk_declaration_derivation_contributions_derivation' })
  derivation?: DeclarationDerivationEntity;

  @PrimaryColumn({ name: 'version_id', type: 'uuid', primaryKeyConstraintName: 'pk_declaration_derivation_contributions' })
  versionId!: string;

  @ManyToOne(() => ProductVersionEntity, { onDelete: 'RESTRICT', nullable: false })
  @JoinColumn({ name: 'version_id', foreignKeyConstraintName: 'fk_declaration_derivation_contributions_version' })
  version?: ProductVersionEntity;

  @PrimaryColumn({ type: 'text', primaryKeyConstraintName: 'pk_declaration_derivation_contributions' })
  stream!: string;

  @PrimaryColumn({ name: 'material_code', type: 'text', primaryKeyConstraintName: 'pk_declaration_derivation_contributions' })
  materialCode!: string;

  @Column({ type: 'numeric', precision: 13, scale: 0 })
  units!: string;

  @Column({ type: 'numeric', precision: 18, scale: 0 })
  elements!: string;

  @Column({ type: 'numeric', precision: 28, scale: 6 })
  kg!: string;
}
