import { Check, Column, Entity, PrimaryGeneratedColumn, Unique, JoinColumn, ManyToOne } from 'typeorm';
import { ClientEntity } from '../../accounts/client.entity.js';

/**
 * A product of a client, named by the client's own reference (unique per client). What it is made
 * of lives in its versions. Persistence only: never returned. The schema is
 * `migrations/1797200000000-products.ts` and `1797400000000-products-sandbox.ts`; this mirrors them.
 */
@Entity({ name: 'products' })
@Unique('uq_products_client_reference', ['clientId', 'mode', 'reference'])
@Check('ck_products_mode', `mode IN ('live', 'test')`)
@Check('ck_products_reference_length', `char_length(reference) BETWEEN 1 AND 64`)
export class ProductEntity {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'pk_products' })
  id!: string;

  @Column({ name: 'client_id', type: 'text' })
  clientId!: string;

  @ManyToOne(() => ClientEntity, { onDelete: 'RESTRICT', nullable: false })
  @JoinColumn({ name: 'client_id', referencedColumnName: 'clientId', foreignKeyConstraintName: 'fk_products_client' })
  client?: ClientEntity;

  /** `live`, or `test` for a product of the client's sandbox (migrations/1797400000000-products-sandbox.ts). */
  @Column({ type: 'text', default: 'live' })
  mode!: string;

  @Column({ type: 'text' })
  reference!: string;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'clock_timestamp()' })
  createdAt!: Date;
}
