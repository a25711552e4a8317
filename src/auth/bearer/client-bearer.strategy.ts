import { Injectable, type OnModuleDestroy } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import passport from 'passport';
import { Strategy } from 'passport-http-bearer';
import { REALM } from '../../common/openapi.js';
import { OPERATOR_TOKEN_PREFIX, parseClientToken, parseToken } from '../../common/token-format.js';
import { AdminCredential } from '../operators/admin-credential.js';
import { ClientTokenVerifier } from '../tokens/client-token-verifier.js';
import type { VerifiedClient } from '../verified-client.js';
import { accountSuspended, invalidToken, NOT_FOR_CLIENTS, REJECTION_DESCRIPTIONS, uniqueName } from './bearer-header.js';

export const CLIENT_BEARER = 'client-bearer';

/**
 * Client tokens, through passport-http-bearer: `validate` gets the token of the Authorization header
 * and answers the client it authenticates, or throws the RFC 6750 problem the guard sends. Shape and
 * checksum are checked before any database access (and before hashing).
 */
@Injectable()
export class ClientBearerStrategy extends PassportStrategy(Strategy, CLIENT_BEARER) implements OnModuleDestroy {
  /** The name the global guard authenticates with: one per app, so that two apps in one process (replicas in tests) never share a strategy. */
  readonly passportName = uniqueName(CLIENT_BEARER);

  constructor(
    private readonly verifier: ClientTokenVerifier,
    private readonly admin: AdminCredential,
  ) {
    super({ realm: REALM });
    passport.use(this.passportName, this);
  }

  onModuleDestroy(): void {
    passport.unuse(this.passportName);
  }

  async validate(token: string): Promise<VerifiedClient> {
    const parsed = parseClientToken(token);
    if (!parsed.ok) {
      if (this.admin.matches(token) || parseToken(token, OPERATOR_TOKEN_PREFIX).ok) {
        throw invalidToken(NOT_FOR_CLIENTS);
      }
      throw invalidToken(REJECTION_DESCRIPTIONS[parsed.reason === 'checksum' ? 'checksum' : 'malformed']);
    }
    const result = await this.verifier.verify(token);
    if (!result.ok)
      throw result.reason === 'suspended' ? accountSuspended(result.clientId!) : invalidToken(REJECTION_DESCRIPTIONS[result.reason]);
    return result.client;
  }
}
