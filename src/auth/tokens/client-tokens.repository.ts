import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { EntityManager, Repository } from 'typeorm';
import { ACCOUNT_COLUMNS, type AccountRow } from '../../accounts/account.js';
import type { TokenMode } from '../../common/token-format.js';
import { BatchedLookup } from '../../database/batched-lookup.js';
import { PreparedStatements, type Statement } from '../../database/prepared-statements.js';
import { ClientTokenEntity, type TokenCreatedVia } from './client-token.entity.js';

/** A token found by the hash of its secret, with its client's account and its state by PostgreSQL's clock. */
export type TokenLookupRow = AccountRow & {
  tokenId: string;
  mode: TokenMode;
  revoked: boolean;
  expired: boolean | null;
  expiresInMs: number | null;
};

/** Tokens by the hashes of their secrets, with their clients' accounts: the one query of client requests' authentication. */
const LOOKUP: Statement = {
  name: 'tokens.lookup',
  text: `SELECT t.token_hash AS "tokenHash", t.id AS "tokenId", t.mode, t.revoked_at IS NOT NULL AS revoked, t.expires_at <= now() AS expired,
                (extract(epoch FROM t.expires_at - now()) * 1000)::float8 AS "expiresInMs", ${ACCOUNT_COLUMNS}
           FROM client_tokens t JOIN clients c ON c.client_id = t.client_id
          WHERE t.token_hash = ANY($1::text[])`,
};

export interface NewClientToken {
  clientId: string;
  tokenHash: string;
  prefix: string;
  name: string | null;
  expiresAt: Date | null;
  createdVia: TokenCreatedVia;
  mode: TokenMode;
}

/** The SQL of client tokens. Every finder that reads a client's tokens is scoped by its client id. */
@Injectable()
export class ClientTokensRepository {
  /** The lookups of requests that arrive together go in one statement. */
  private readonly lookups = new BatchedLookup<TokenLookupRow>(async (hashes) => {
    const rows = await this.statements.query<TokenLookupRow & { tokenHash: string }>(LOOKUP, [hashes]);
    return new Map(rows.map(({ tokenHash, ...row }) => [tokenHash, row]));
  });

  constructor(
    @InjectRepository(ClientTokenEntity) private readonly tokens: Repository<ClientTokenEntity>,
    private readonly statements: PreparedStatements,
  ) {}

  /** Inserts in `manager`'s transaction. */
  insert(manager: EntityManager, token: NewClientToken): Promise<ClientTokenEntity> {
    return manager.save(manager.create(ClientTokenEntity, token));
  }

  /** Newest first. */
  listByClient(clientId: string): Promise<ClientTokenEntity[]> {
    return this.tokens.find({ where: { clientId }, order: { createdAt: 'DESC', id: 'DESC' } });
  }

  /** Sets `revoked_at` if not set yet; the revoked token's name, or undefined when it was unknown or already revoked. */
  async revoke(manager: EntityManager, clientId: string, tokenId: string): Promise<{ name: string | null } | undefined> {
    // A SELECT over the UPDATE: TypeORM's query() answers an UPDATE with [rows, count], a SELECT with its rows.
    const [revoked] = (await manager.query(
      `WITH revoked AS (UPDATE client_tokens SET revoked_at = now() WHERE id = $1 AND client_id = $2 AND revoked_at IS NULL RETURNING name)
       SELECT * FROM revoked`,
      [tokenId, clientId],
    )) as { name: string | null }[];
    return revoked;
  }

  exists(manager: EntityManager, clientId: string, tokenId: string): Promise<boolean> {
    return manager.existsBy(ClientTokenEntity, { id: tokenId, clientId });
  }

  /** The token of this hash and its client's account (a named prepared statement: the hot path). */
  lookup(tokenHash: string): Promise<TokenLookupRow | undefined> {
    return this.lookups.get(tokenHash);
  }

  /** `last_used_at = now()` for these tokens, unless another replica wrote it in the last minute. */
  async markUsed(tokenIds: string[]): Promise<void> {
    await this.tokens.query(
      `UPDATE client_tokens SET last_used_at = now()
        WHERE id = ANY($1::uuid[]) AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')`,
      [tokenIds],
    );
  }
}
