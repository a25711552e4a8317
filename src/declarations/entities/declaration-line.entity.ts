import { Check, Column, Entity, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { DeclarationEntity } from './declaration.entity.js';

/** One line of a declaration, in the order it was submitted. Persistence only: never returned. */
@Entity({ name: 'declaration_lines' })
@Check('ck_declaration_lines_position', `position >= 0 AND position < 1000`)
@Check('ck_declaration_lines_material_length', `char_length(material) BETWEEN 1 AND 120`)
@Check('ck_declaration_lines_quantity_range', `quantity >= 0 AND quantity <= 1000000000000`)
export class DeclarationLineEntity {
  @PrimaryColumn({ name: 'declaration_id', type: 'uuid', primaryKeyConstraintName: 'pk_declaration_lines' })
  declarationId!: string;

  @ManyToOne(() => DeclarationEntity, { onDelete: 'CASCADE', nullable: false })
  @JoinColumn({ name: 'declaration_id', foreignKeyConstraintName: 'fk_declaration_lines_declaration' })
  declaration?: DeclarationEntity;

  @PrimaryColumn({ type: 'integer', primaryKeyConstraintName: 'pk_declaration_lines' })
  position!: number;

  @Column({ type: 'text' })
  stream!: string;

  /** As submitted, trimmed. */
  @Column({ type: 'text' })
  material!: string;

  /** The published material category the material names, if any. */
  @Column({ name: 'material_code', type: 'text', nullable: true })
  materialCode!: string | null;

  @Column({ type: 'text' })
  unit!: string;

  /** Exact decimal (the driver returns numeric as text). */
  @Column({ type: 'numeric', precision: 16, scale: 3 })
  quantity!: string;
}
