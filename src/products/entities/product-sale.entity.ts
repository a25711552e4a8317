import { Check, Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { ProductEntity } from './product.entity.js';

/** The units of a product placed on the French market in a half-year. Persistence only. */
@Entity({ name: 'product_sales' })
@Check('ck_product_sales_period_format', `period ~ '^[0-9]{4}-S[12]$'`)
@Check('ck_product_sales_units', `units >= 0 AND units <= 1000000000000`)
@Index('ix_product_sales_period', ['period', 'productId'])
export class ProductSaleEntity {
  @PrimaryColumn({ name: 'product_id', type: 'uuid', primaryKeyConstraintName: 'pk_product_sales' })
  productId!: string;

  @ManyToOne(() => ProductEntity, { onDelete: 'CASCADE', nullable: false })
  @JoinColumn({ name: 'product_id', foreignKeyConstraintName: 'fk_product_sales_product' })
  product?: ProductEntity;

  @PrimaryColumn({ type: 'text', primaryKeyConstraintName: 'pk_product_sales' })
  period!: string;

  @Column({ type: 'numeric', precision: 13, scale: 0 })
  units!: string;

  @Column({ name: 'recorded_at', type: 'timestamptz', default: () => 'clock_timestamp()' })
  recordedAt!: Date;
}
