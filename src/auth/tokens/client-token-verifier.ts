import { Injectable } from '@nestjs/common';
import { accountFromRow } from '../../accounts/account.js';
import { AccountsService } from '../../accounts/accounts.service.js';
import { hashToken, parseClientToken } from '../../common/token-format.js';
import type { VerifiedClient } from '../verified-client.js';
import { AuthenticationCache } from './authentication-cache.js';
import { ClientTokensRepository } from './client-tokens.repository.js';
import { TokenUseRecorder } from './token-use-recorder.js';

export type TokenRejection = 'malformed' | 'checksum' | 'unknown' | 'expired' | 'revoked' | 'suspended' | 'offboarded';
export type VerifyResult = { ok: true; client: VerifiedClient } | { ok: false; reason: TokenRejection; clientId?: string };

/**
 * Checks presented client tokens: shape and checksum first, with no I/O; then the authentication
 * this replica keeps for the token (AuthenticationCache: only while PostgreSQL's announcements of
 * every change to tokens and accounts reach this replica), else ONE indexed lookup by SHA-256 hash,
 * which also reads the client's account (the caller of a client route needs it). Only successes are kept.
 */
@Injectable()
export class ClientTokenVerifier {
  constructor(
    private readonly tokens: ClientTokensRepository,
    private readonly cache: AuthenticationCache,
    private readonly uses: TokenUseRecorder,
    accounts: AccountsService,
  ) {
    accounts.onAccountChanged((clientId) => cache.changed(clientId));
  }

  /** `recordUse` (default true) notes the use in `last_used_at`, throttled, without waiting for it. */
  async verify(token: string, { recordUse = true }: { recordUse?: boolean } = {}): Promise<VerifyResult> {
    const parsed = parseClientToken(token);
    if (!parsed.ok) return { ok: false, reason: parsed.reason === 'checksum' ? 'checksum' : 'malformed' };
    const hash = hashToken(token);
    const kept = this.cache.get(hash);
    if (kept !== undefined) {
      if (recordUse) this.uses.record(kept.tokenId!);
      return { ok: true, client: kept };
    }
    const mark = this.cache.mark();
    const row = await this.tokens.lookup(hash);
    // A stored token whose prefix was changed to the other mode's is not that token: unknown.
    if (!row || row.mode !== parsed.mode) return { ok: false, reason: 'unknown' };
    if (row.revoked) return { ok: false, reason: 'revoked' };
    if (row.expired) return { ok: false, reason: 'expired' };
    // Never kept: a reactivation (a change of the account) is then seen at the next request.
    if (row.status === 'suspended' || row.status === 'offboarded') return { ok: false, reason: row.status, clientId: row.clientId };
    if (recordUse) this.uses.record(row.tokenId);
    // Shared by the requests that find it kept: frozen, so that none can change it for the others.
    const client = deepFreeze({ clientId: row.clientId, tokenId: row.tokenId, mode: row.mode, account: accountFromRow(row) });
    this.cache.remember(hash, mark, client, row.expiresInMs);
    return { ok: true, client };
  }

  /**
   * The client a token authenticates as, if this replica keeps its authentication (see verify); no
   * I/O. Undefined says nothing about the token: `verify` tells.
   */
  verifyKept(token: string): VerifiedClient | undefined {
    if (!this.cache.enabled || !parseClientToken(token).ok) return undefined;
    const kept = this.cache.get(hashToken(token));
    if (kept !== undefined) this.uses.record(kept.tokenId!);
    return kept;
  }
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}
