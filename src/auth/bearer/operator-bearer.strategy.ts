import { Injectable, type OnModuleDestroy } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import passport from 'passport';
import { Strategy } from 'passport-http-bearer';
import type { OperatorIdentity } from '../../caller/actor.js';
import { REALM } from '../../common/openapi.js';
import { OPERATOR_TOKEN_PREFIX, parseToken } from '../../common/token-format.js';
import { OperatorsService } from '../operators/operators.service.js';
import { ClientTokenVerifier } from '../tokens/client-token-verifier.js';
import { insufficientScope, invalidToken, uniqueName } from './bearer-header.js';

export const OPERATOR_BEARER = 'operator-bearer';

/**
 * Named operator tokens, through passport-http-bearer: one lookup, never kept (a revocation applies
 * at once). A working client token is a credential, only not for this route: 403. Anything else:
 * 401. (ADMIN_TOKEN is checked by the guard before passport: see AuthGuard.)
 */
@Injectable()
export class OperatorBearerStrategy extends PassportStrategy(Strategy, OPERATOR_BEARER) implements OnModuleDestroy {
  /** The name the global guard authenticates with: one per app, so that two apps in one process (replicas in tests) never share a strategy. */
  readonly passportName = uniqueName(OPERATOR_BEARER);

  constructor(
    private readonly operators: OperatorsService,
    private readonly clients: ClientTokenVerifier,
  ) {
    super({ realm: REALM });
    passport.use(this.passportName, this);
  }

  onModuleDestroy(): void {
    passport.unuse(this.passportName);
  }

  async validate(token: string): Promise<OperatorIdentity> {
    if (parseToken(token, OPERATOR_TOKEN_PREFIX).ok) {
      const outcome = await this.operators.verify(token);
      if (outcome.ok) return outcome.operator;
      throw invalidToken(outcome.reason === 'revoked' ? 'The operator token was revoked.' : 'The operator token is not recognised.');
    }
    if ((await this.clients.verify(token, { recordUse: false })).ok) throw insufficientScope();
    throw invalidToken('The token is not the admin token.');
  }
}
