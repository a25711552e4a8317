import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { AuditTrail } from '../../audit/audit-trail.js';
import { NotFoundProblem } from '../../common/problem/problem.js';
import { displayPrefix, generateToken, hashToken, OPERATOR_TOKEN_PREFIX, parseToken } from '../../common/token-format.js';
import type { Actor, OperatorIdentity } from '../../caller/actor.js';
import { isUuid } from '../../common/uuid.js';
import { OperatorTokenEntity } from './operator-token.entity.js';

export interface OperatorTokenMetadata {
  id: string;
  name: string;
  prefix: string;
  createdAt: Date;
  revokedAt: Date | null;
}

export type OperatorVerifyResult = { ok: true; operator: OperatorIdentity & { kind: 'operator' } } | { ok: false; reason: 'malformed' | 'unknown' | 'revoked' };


const metadataOf = (t: OperatorTokenEntity): OperatorTokenMetadata => ({
  id: t.id,
  name: t.name,
  prefix: t.prefix,
  createdAt: t.createdAt,
  revokedAt: t.revokedAt,
});

/**
 * Named operator tokens: created (shown once, SHA-256 stored), listed, revoked, verified. Each
 * creation and revocation is audited in its own transaction.
 */
@Injectable()
export class OperatorsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly audit: AuditTrail,
  ) {}

  async create(name: string, actor: Actor): Promise<{ token: string; metadata: OperatorTokenMetadata }> {
    const token = generateToken(OPERATOR_TOKEN_PREFIX);
    return this.dataSource.transaction(async (manager) => {
      const saved = await manager.save(manager.create(OperatorTokenEntity, { name, tokenHash: hashToken(token), prefix: displayPrefix(token) }));
      await this.audit.record(manager, actor, {
        action: 'operator_token.created',
        targetType: 'operator_token',
        targetId: saved.id,
        changes: { name: saved.name, prefix: saved.prefix },
      });
      return { token, metadata: metadataOf(saved) };
    });
  }

  /** Newest first, revoked ones included (operator tokens are few). */
  async list(): Promise<OperatorTokenMetadata[]> {
    const rows = await this.dataSource.manager.find(OperatorTokenEntity, { order: { createdAt: 'DESC', id: 'DESC' } });
    return rows.map(metadataOf);
  }

  /** Takes effect on the next request; revoking a revoked token changes (and records) nothing. */
  async revoke(id: string, actor: Actor): Promise<void> {
    if (!isUuid(id)) throw new NotFoundProblem(`Operator token "${id}"`);
    await this.dataSource.transaction(async (manager) => {
      // A SELECT over the UPDATE: TypeORM's query() answers an UPDATE with [rows, count], a SELECT with its rows.
      const revoked: { id: string; name: string }[] = await manager.query(
        `WITH revoked AS (UPDATE operator_tokens SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL RETURNING id, name)
         SELECT * FROM revoked`,
        [id],
      );
      if (revoked.length === 0) {
        if (!(await manager.existsBy(OperatorTokenEntity, { id }))) throw new NotFoundProblem(`Operator token "${id}"`);
        return;
      }
      await this.audit.record(manager, actor, { action: 'operator_token.revoked', targetType: 'operator_token', targetId: id, changes: { name: revoked[0]!.name } });
    });
  }

  /** Shape and checksum first (no I/O), then one lookup by hash; no cache, so a revocation applies at once. */
  async verify(token: string): Promise<OperatorVerifyResult> {
    if (!parseToken(token, OPERATOR_TOKEN_PREFIX).ok) return { ok: false, reason: 'malformed' };
    const [row]: { id: string; name: string; revoked: boolean }[] = await this.dataSource.query(
      `SELECT id, name, revoked_at IS NOT NULL AS revoked FROM operator_tokens WHERE token_hash = $1`,
      [hashToken(token)],
    );
    if (!row) return { ok: false, reason: 'unknown' };
    if (row.revoked) return { ok: false, reason: 'revoked' };
    return { ok: true, operator: { kind: 'operator', id: row.id, name: row.name } };
  }
}
