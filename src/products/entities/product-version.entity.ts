import { Check, Column, Entity, JoinColumn, ManyToOne, PrimaryGeneratedColumn, Unique } from 'typeorm';
import { ProductEntity } from './product.entity.js';

/** A product as it is from one half-year on (`valid_from`), until a later version. Persistence only. */
@Entity({ name: 'product_versions' })
@Unique('uq_product_versions_product_valid_from', ['productId', 'validFrom'])
@Check('ck_product_versions_valid_from_format', `valid_from ~ '^[0-9]{4}-S[12]$'`)
@Check('ck_product_versions_name_length', `char_length(name) BETWEEN 1 AND 200`)
@Check('ck_product_versions_gtin_format', `gtin ~ '^[0-9]{8}$|^[0-9]{12,14}$'`)
export class ProductVersionEntity {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'pk_product_versions' })
  id!: string;

  @Column({ name: 'product_id', type: 'uuid' })
  productId!: string;

  @ManyToOne(() => ProductEntity, { onDelete: 'CASCADE', nullable: false })
  @JoinColumn({ name: 'product_id', foreignKeyConstraintName: 'fk_product_versions_product' })
  product?: ProductEntity;

  @Column({ name: 'valid_from', type: 'text' })
  validFrom!: string;

  @Column({ type: 'text' })
  name!: string;

  @Column({ type: 'text' })
  stream!: string;

  @Column({ type: 'text', nullable: true })
  gtin!: string | null;

  /** SHA-256 of the version's canonical content: the same product posted again changes nothing. */
  @Column({ name: 'content_hash', type: 'text' })
  contentHash!: string;

  @Column({ name: 'recorded_at', type: 'timestamptz', default: () => 'clock_timestamp()' })
  recordedAt!: Date;
}
