import { Injectable } from '@nestjs/common';
import passport from 'passport';
import bearer from 'passport-http-bearer';
import type { AuthenticatedClient } from './current-client.decorator.js';
import { type TokenRejection, TokensService } from './tokens.service.js';

/** `realm` of every `WWW-Authenticate: Bearer` challenge of the API. */
export const REALM = 'epr-declarations';

/** `error_description` of each rejection (RFC 6750 §3: no `"` or `\`). */
export const REJECTION_DESCRIPTIONS: Record<TokenRejection, string> = {
  malformed: 'The token is malformed; client tokens look like eprc_<32 letters and digits>_<6 letters and digits>.',
  checksum: 'The token checksum does not match; the token was probably mistyped or truncated.',
  unknown: 'The token is not recognised.',
  expired: 'The token has expired; ask the operator for a new one.',
  revoked: 'The token has been revoked; ask the operator for a new one.',
};

export type BearerOutcome = { ok: true; client: AuthenticatedClient } | { ok: false; challenge: string; description: string };

/**
 * The passport-http-bearer strategy for client tokens: verification hashes the presented token
 * and looks it up (TokensService.verify). It has a Passport instance of its own, so that two apps
 * in one process (as in the tests) never share a registered strategy.
 */
@Injectable()
export class ClientTokenStrategy {
  private readonly passport = new passport.Passport();

  constructor(tokens: TokensService) {
    this.passport.use(
      'bearer',
      new bearer.Strategy<bearer.VerifyFunction>({ realm: REALM }, (token, done) => {
        tokens.verify(token).then(
          (result) => (result.ok ? done(null, result.client) : done(null, false, { message: REJECTION_DESCRIPTIONS[result.reason] })),
          (error: unknown) => done(error),
        );
      }),
    );
  }

  /** Runs the strategy on a token the guard has already taken out of the Authorization header. */
  authenticate(token: string): Promise<BearerOutcome> {
    // The strategy only ever sees the header: passport-http-bearer would also take `access_token`
    // from the query string or the body, and this API never accepts tokens there.
    const request = { headers: { authorization: `Bearer ${token}` } };
    return new Promise((resolve, reject) => {
      const middleware = this.passport.authenticate(
        'bearer',
        { session: false },
        (error: unknown, user: AuthenticatedClient | false, challenge: unknown) => {
          if (error) reject(error);
          else if (user) resolve({ ok: true, client: user });
          else {
            const text = typeof challenge === 'string' ? challenge : `Bearer realm="${REALM}", error="invalid_token"`;
            const description = /error_description="([^"]*)"/.exec(text)?.[1] ?? REJECTION_DESCRIPTIONS.unknown;
            resolve({ ok: false, challenge: text, description });
          }
        },
      ) as (req: unknown, res: unknown, next: (error?: unknown) => void) => void;
      middleware(request, {}, (error?: unknown) => (error ? reject(error) : reject(new Error('passport did not call back'))));
    });
  }
}
