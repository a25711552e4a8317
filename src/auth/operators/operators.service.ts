import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { AuditTrail } from '../../audit/audit-trail.js';
import { emailKey } from '../../common/email-address.js';
import { NotFoundProblem, Problem } from '../../common/problem/problem.js';
import { displayPrefix, generateToken, hashToken, OPERATOR_TOKEN_PREFIX, parseToken } from '../../common/token-format.js';
import type { Actor, OperatorIdentity } from '../../caller/actor.js';
import { isUuid } from '../../common/uuid.js';
import type { OperatorTokenEntity } from './operator-token.entity.js';
import { OperatorTokensRepository } from './operator-tokens.repository.js';

export interface OperatorTokenMetadata {
  id: string;
  name: string;
  /** Where its console sign-in links go; null: the admin API only. */
  email: string | null;
  prefix: string;
  createdAt: Date;
  revokedAt: Date | null;
}

export type OperatorVerifyResult =
  { ok: true; operator: OperatorIdentity & { kind: 'operator' } } | { ok: false; reason: 'malformed' | 'unknown' | 'revoked' };

const metadataOf = (t: OperatorTokenEntity): OperatorTokenMetadata => ({
  id: t.id,
  name: t.name,
  email: t.email,
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
    private readonly repository: OperatorTokensRepository,
    private readonly audit: AuditTrail,
  ) {}

  /**
   * A named operator: its admin API token, and with an `email` (unique among live operators, 409
   * otherwise) the right to sign in to the console at `/operator` by a link mailed there.
   */
  async create(name: string, actor: Actor, email: string | null = null): Promise<{ token: string; metadata: OperatorTokenMetadata }> {
    const token = generateToken(OPERATOR_TOKEN_PREFIX);
    return this.dataSource.transaction(async (manager) => {
      // One live operator per address at a time (a unique index holds it against a concurrent creation too).
      if (email !== null && (await this.repository.liveEmailTaken(manager, emailKey(email)))) {
        throw new Problem(
          'conflict',
          `A live operator already has the address "${email}": revoke its token first, or choose another address.`,
        );
      }
      const saved = await this.repository.insert(manager, { name, email, tokenHash: hashToken(token), prefix: displayPrefix(token) });
      await this.audit.record(manager, actor, {
        action: 'operator_token.created',
        targetType: 'operator_token',
        targetId: saved.id,
        changes: { name: saved.name, prefix: saved.prefix, ...(email !== null ? { email } : {}) },
      });
      return { token, metadata: metadataOf(saved) };
    });
  }

  /** Newest first, revoked ones included (operator tokens are few). */
  async list(): Promise<OperatorTokenMetadata[]> {
    const rows = await this.repository.listAll();
    return rows.map(metadataOf);
  }

  /** Takes effect on the next request; revoking a revoked token changes (and records) nothing. */
  async revoke(id: string, actor: Actor): Promise<void> {
    if (!isUuid(id)) throw new NotFoundProblem(`Operator token "${id}"`);
    await this.dataSource.transaction(async (manager) => {
      const revoked = await this.repository.revoke(manager, id);
      if (revoked === undefined) {
        if (!(await this.repository.exists(manager, id))) throw new NotFoundProblem(`Operator token "${id}"`);
        return;
      }
      await this.audit.record(manager, actor, {
        action: 'operator_token.revoked',
        targetType: 'operator_token',
        targetId: id,
        changes: { name: revoked.name },
      });
    });
  }

  /** Shape and checksum first (no I/O), then one lookup by hash; no cache, so a revocation applies at once. */
  async verify(token: string): Promise<OperatorVerifyResult> {
    if (!parseToken(token, OPERATOR_TOKEN_PREFIX).ok) return { ok: false, reason: 'malformed' };
    const row = await this.repository.lookup(hashToken(token));
    if (!row) return { ok: false, reason: 'unknown' };
    if (row.revoked) return { ok: false, reason: 'revoked' };
    return { ok: true, operator: { kind: 'operator', id: row.id, name: row.name } };
  }
}
