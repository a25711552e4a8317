import type { TokenRejection } from './tokens.service.js';

// A leaf module: the OpenAPI decorators (common/) and the auth guard both read these.

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
