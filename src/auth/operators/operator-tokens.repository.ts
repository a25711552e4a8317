import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { EntityManager, Repository } from 'typeorm';
import { ASCII_LOWER, ASCII_UPPER } from '../../common/email-address.js';
import { OperatorTokenEntity } from './operator-token.entity.js';

/** An operator token found by the hash of its secret. */
export interface OperatorTokenLookupRow {
  id: string;
  name: string;
  revoked: boolean;
}

/** The SQL of operator tokens (`operator_tokens`; only the SHA-256 of a secret is stored). Writes take the caller's transaction. */
@Injectable()
export class OperatorTokensRepository {
  constructor(@InjectRepository(OperatorTokenEntity) private readonly tokens: Repository<OperatorTokenEntity>) {}

  /** Inserts in `manager`'s transaction. */
  insert(
    manager: EntityManager,
    token: { name: string; email: string | null; tokenHash: string; prefix: string },
  ): Promise<OperatorTokenEntity> {
    return manager.save(manager.create(OperatorTokenEntity, token));
  }

  /** Every one, newest first, revoked ones included. */
  listAll(): Promise<OperatorTokenEntity[]> {
    return this.tokens.find({ order: { createdAt: 'DESC', id: 'DESC' } });
  }

  /** Sets `revoked_at` if not set yet; the revoked token's name, or undefined when it was unknown or already revoked. */
  async revoke(manager: EntityManager, id: string): Promise<{ name: string } | undefined> {
    // A SELECT over the UPDATE: TypeORM's query() answers an UPDATE with [rows, count], a SELECT with its rows.
    const [revoked] = (await manager.query(
      `WITH revoked AS (UPDATE operator_tokens SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL RETURNING name)
       SELECT * FROM revoked`,
      [id],
    )) as { name: string }[];
    return revoked;
  }

  exists(manager: EntityManager, id: string): Promise<boolean> {
    return manager.existsBy(OperatorTokenEntity, { id });
  }

  /** Whether a live operator has this address (folded in A–Z: `emailKey`). */
  async liveEmailTaken(manager: EntityManager, folded: string): Promise<boolean> {
    const [row] = (await manager.query(`SELECT 1 FROM operator_tokens WHERE revoked_at IS NULL AND translate(email, $2, $3) = $1`, [
      folded,
      ASCII_UPPER,
      ASCII_LOWER,
    ])) as unknown[];
    return row !== undefined;
  }

  /** The live operator whose address, folded in A–Z, is `folded`. */
  async findLiveByEmail(folded: string): Promise<{ id: string; name: string; email: string } | undefined> {
    const [row] = (await this.tokens.query(
      `SELECT id, name, email FROM operator_tokens WHERE revoked_at IS NULL AND translate(email, $2, $3) = $1`,
      [folded, ASCII_UPPER, ASCII_LOWER],
    )) as { id: string; name: string; email: string }[];
    return row;
  }

  /** The token of this hash, revoked or not. */
  async lookup(tokenHash: string): Promise<OperatorTokenLookupRow | undefined> {
    const [row] = (await this.tokens.query(
      `SELECT id, name, revoked_at IS NOT NULL AS revoked FROM operator_tokens WHERE token_hash = $1`,
      [tokenHash],
    )) as OperatorTokenLookupRow[];
    return row;
  }
}
