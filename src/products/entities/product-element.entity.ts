import { Check, Column, Entity, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { ProductVersionEntity } from './product-version.entity.js';

/** One packaging element of a product version (a bottle, a cap, a label), in the order sent. Persistence only. */
@Entity({ name: 'product_elements' })
@Check('ck_product_elements_position', `position >= 0 AND position < 50`)
@Check('ck_product_elements_weight', `weight_g > 0 AND weight_g <= 10000000`)
@Check('ck_product_elements_per_unit', `per_unit BETWEEN 1 AND 10000`)
export class ProductElementEntity {
  @PrimaryColumn({ name: 'version_id', type: 'uuid', primaryKeyConstraintName: 'pk_product_elements' })
  versionId!: string;

  @ManyToOne(() => ProductVersionEntity, { onDelete: 'CASCADE', nullable: false })
  @JoinColumn({ name: 'version_id', foreignKeyConstraintName: 'fk_product_elements_version' })
  version?: ProductVersionEntity;

  @PrimaryColumn({ type: 'integer', primaryKeyConstraintName: 'pk_product_elements' })
  position!: number;

  /** A material category of the stream's published grid. */
  @Column({ name: 'material_code', type: 'text' })
  materialCode!: string;

  /** Grams of one element, exact decimal (the driver returns numeric as text). */
  @Column({ name: 'weight_g', type: 'numeric', precision: 13, scale: 3 })
  weightG!: string;

  /** How many such elements one sales unit carries. */
  @Column({ name: 'per_unit', type: 'integer' })
  perUnit!: number;

  @Column({ name: 'packaging_category', type: 'text', nullable: true })
  packagingCategory!: string | null;

  @Column({ name: 'reuse_status', type: 'text', nullable: true })
  reuseStatus!: string | null;
}
