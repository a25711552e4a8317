import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { AccountsService } from '../../accounts/accounts.service.js';
import { AuditTrail } from '../../audit/audit-trail.js';
import type { Actor } from '../../caller/actor.js';
import { NotFoundProblem } from '../../common/problem/problem.js';
import { clientTokenPrefix, displayPrefix, generateToken, hashToken, type TokenMode } from '../../common/token-format.js';
import { isUuid } from '../../common/uuid.js';
import { AuthenticationCache } from './authentication-cache.js';
import type { ClientTokenEntity, TokenCreatedVia } from './client-token.entity.js';
import { ClientTokensRepository } from './client-tokens.repository.js';

/** Token metadata: everything but the secret and its hash. */
export interface TokenMetadata {
  id: string;
  clientId: string;
  prefix: string;
  name: string | null;
  createdAt: Date;
  expiresAt: Date | null;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
  createdVia: TokenCreatedVia;
  mode: TokenMode;
}

/** A newly issued token: the only time the secret exists outside the client's hands. */
export interface IssuedToken {
  token: string;
  metadata: TokenMetadata;
}

const metadataOf = (t: ClientTokenEntity): TokenMetadata => ({
  id: t.id,
  clientId: t.clientId,
  prefix: t.prefix,
  name: t.name,
  createdAt: t.createdAt,
  expiresAt: t.expiresAt,
  lastUsedAt: t.lastUsedAt,
  revokedAt: t.revokedAt,
  createdVia: t.createdVia,
  mode: t.mode,
});

/** A client's tokens: issue (shown once), list (metadata), revoke; each write audited in its transaction. */
@Injectable()
export class ClientTokensService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly tokens: ClientTokensRepository,
    private readonly accounts: AccountsService,
    private readonly audit: AuditTrail,
    private readonly cache: AuthenticationCache,
  ) {}

  /** `mode` `test`: an `eprt_` token for the client's sandbox (default `live`). */
  async issue(
    clientId: string,
    options: { name?: string | null; expiresAt?: Date | null; mode?: TokenMode },
    actor: Actor,
  ): Promise<IssuedToken> {
    await this.accounts.assertExists(clientId);
    const mode = options.mode ?? 'live';
    const token = generateToken(clientTokenPrefix(mode));
    return this.dataSource.transaction(async (manager) => {
      await this.accounts.lockForIssue(manager, clientId);
      const saved = await this.tokens.insert(manager, {
        clientId,
        tokenHash: hashToken(token),
        prefix: displayPrefix(token),
        name: options.name ?? null,
        expiresAt: options.expiresAt ?? null,
        createdVia: actor.operator.kind === 'client' ? 'dashboard' : 'operator',
        mode,
      });
      await this.audit.record(manager, actor, {
        action: 'token.issued',
        targetType: 'token',
        targetId: saved.id,
        clientId,
        changes: { name: saved.name, prefix: saved.prefix, expires_at: saved.expiresAt, created_via: saved.createdVia, mode: saved.mode },
      });
      return { token, metadata: metadataOf(saved) };
    });
  }

  /** Newest first. */
  async list(clientId: string): Promise<TokenMetadata[]> {
    await this.accounts.assertExists(clientId);
    return (await this.tokens.listByClient(clientId)).map(metadataOf);
  }

  /** Idempotent: revoking a revoked token keeps its first `revoked_at` (and records nothing). */
  async revoke(clientId: string, tokenId: string, actor: Actor): Promise<void> {
    await this.accounts.assertExists(clientId);
    const notFound = new NotFoundProblem(`Token "${tokenId}" of client "${clientId}"`);
    if (!isUuid(tokenId)) throw notFound;
    await this.dataSource.transaction(async (manager) => {
      const revoked = await this.tokens.revoke(manager, clientId, tokenId);
      if (revoked === undefined) {
        if (!(await this.tokens.exists(manager, clientId, tokenId))) throw notFound;
        return;
      }
      await this.audit.record(manager, actor, {
        action: 'token.revoked',
        targetType: 'token',
        targetId: tokenId,
        clientId,
        changes: { name: revoked.name },
      });
    });
    // At once on this replica; the others hear of it from PostgreSQL (migration AuthChangeNotifications).
    this.cache.changed(clientId);
  }
}
