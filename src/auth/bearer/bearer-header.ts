import type { Request } from 'express';
import { REALM } from '../../common/openapi.js';
import { Problem } from '../../common/problem/problem.js';
import type { TokenRejection } from '../tokens/client-token-verifier.js';

// RFC 6750: how bearer credentials are read from a request, and the challenges of a refusal.

export const BARE_CHALLENGE = `Bearer realm="${REALM}"`;

/** `error_description` of each rejection (RFC 6750 §3: no `"` or `\`). */
export const REJECTION_DESCRIPTIONS: Record<TokenRejection, string> = {
  malformed:
    'The token is malformed; client tokens look like eprc_<32 letters and digits>_<6 letters and digits> (test tokens: eprt_ and the same).',
  checksum: 'The token checksum does not match; the token was probably mistyped or truncated.',
  unknown: 'The token is not recognised.',
  expired: 'The token has expired; ask the operator for a new one.',
  revoked: 'The token has been revoked; ask the operator for a new one.',
  suspended: 'The account is suspended; its tokens work again once the operator reactivates it.',
  offboarded: 'The account has been closed (offboarded); its tokens no longer work.',
};

/** The problem for a valid token of a suspended account: not a bad credential (401), a refusal that says why. */
export const accountSuspended = (clientId: string) =>
  new Problem(
    'account_suspended',
    `The account "${clientId}" is suspended: its tokens and dashboard sessions are refused until the operator reactivates it.`,
  );

let strategies = 0;

/** A passport strategy name of its own for each strategy instance (see the strategies). */
export const uniqueName = (name: string): string => `${name}#${++strategies}`;

export function invalidToken(description: string): Problem {
  return new Problem('invalid_token', description, {
    headers: { 'WWW-Authenticate': `${BARE_CHALLENGE}, error="invalid_token", error_description="${description}"` },
  });
}

export function missingToken(detail: string): Problem {
  // RFC 6750 §3.1: no error code when the request carries no (bearer) credential at all.
  return new Problem('missing_token', detail, { headers: { 'WWW-Authenticate': BARE_CHALLENGE } });
}

/** What a client route says to the operator's credential. */
export const NOT_FOR_CLIENTS = 'The admin token is not valid on the client API; use a client token issued by the operator.';

/**
 * Whether a credential has the b64token shape of RFC 6750 §2.1 (every token this service issues
 * has). passport-http-bearer reads only such tokens (it splits the header on spaces), so any other
 * credential is refused before it, with the description it would have got.
 */
export const isB64Token = (token: string): boolean => /^[A-Za-z0-9\-._~+/]+=*$/.test(token);

export function insufficientScope(): Problem {
  return new Problem('insufficient_scope', 'Client tokens cannot call the admin API; it needs ADMIN_TOKEN or an operator token.', {
    headers: {
      'WWW-Authenticate': `${BARE_CHALLENGE}, error="insufficient_scope", error_description="The admin API needs the operator token.", scope="admin"`,
    },
  });
}

/**
 * The bearer token of an Authorization header. The scheme is case-insensitive (RFC 9110 §11.1) and
 * may be followed by several spaces (RFC 9110 §11.4); a request without a bearer credential gets the
 * bare challenge, an empty or garbled one `invalid_token`.
 */
export function bearerToken(header: string | undefined): string {
  if (header === undefined || header.trim() === '') {
    throw missingToken('This route needs a token: send "Authorization: Bearer <token>".');
  }
  const match = /^\s*([A-Za-z0-9!#$%&'*+.^_`|~-]+)(?:\s+([\s\S]*))?$/.exec(header);
  const scheme = match?.[1];
  if (!scheme || scheme.toLowerCase() !== 'bearer') {
    // Name the scheme only when it looks like one: a bare token pasted without "Bearer" must not be echoed back.
    const named = scheme && /^[A-Za-z][A-Za-z-]{0,19}$/.test(scheme) ? `the ${scheme} scheme` : 'this Authorization header';
    throw missingToken(`This API does not accept ${named}; send "Authorization: Bearer <token>".`);
  }
  const token = (match?.[2] ?? '').trim();
  if (token === '') throw invalidToken('The bearer token is empty.');
  return token;
}

/**
 * A token outside the Authorization header is refused (400) before any credential is read (RFC 6750
 * §2.1 only): `access_token` in the query string, under any spelling (any case, percent-encoded, as
 * an array `access_token[]` or a member `access_token.x`), and a form-encoded body sent without an
 * Authorization header (the way of §2.2; the body itself is never read before authentication, and
 * no route of the API takes a form).
 */
export function refuseTokenOutsideHeader(req: Pick<Request, 'url' | 'headers'>): void {
  const query = req.url.indexOf('?');
  // A token in a URL lands in logs and histories.
  if (query !== -1 && [...new URLSearchParams(req.url.slice(query + 1)).keys()].some((key) => /^access_token(?:$|[[.])/i.test(key))) {
    throw new Problem(
      'bad_request',
      'Send the token in the Authorization header ("Authorization: Bearer <token>"), never in the address: remove access_token from the query string, and revoke the token if this address was shared or logged.',
    );
  }
  const type = req.headers['content-type'];
  if (req.headers.authorization === undefined && typeof type === 'string' && /^\s*application\/x-www-form-urlencoded\b/i.test(type)) {
    throw new Problem(
      'bad_request',
      'Send the token in the Authorization header ("Authorization: Bearer <token>"), never in a form body: this API takes no form-encoded body.',
    );
  }
}

/** Only one Authorization header: Node keeps the first of several, and which one a proxy or client meant is unknowable. */
export function refuseSeveralAuthorizations(req: Pick<Request, 'headersDistinct'>): void {
  if ((req.headersDistinct?.authorization?.length ?? 0) > 1) {
    throw new Problem('bad_request', 'Send one Authorization header, not several.');
  }
}
