import { createHash, randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';

/**
 * The one shape of our secrets, for auth (issues and checks them), config (refuses an ADMIN_TOKEN of this
 * shape) and logging (scrubs it). Client tokens are `eprc_<32 base62>_<6 base62>`: a fixed prefix secret
 * scanners spot; `_`, so a double click selects the whole token; 32 characters drawn from
 * `crypto.randomBytes` by rejection sampling (≈ 190 bits); the CRC32 of `eprc_<random>` in base62, so a
 * typo is refused before any database read. Only the SHA-256 is stored (`hashToken`): a fast hash is
 * enough for high-entropy machine output and allows a lookup on a unique index.
 */
export const TOKEN_PREFIX = 'eprc';
/** Test tokens (`eprt_…`, "EPR test"): a client's sandbox, same shape, recognisable at a glance. */
export const TEST_TOKEN_PREFIX = 'eprt';
/** Which data a client token reaches: the client's real declarations, or its sandbox. */
export type TokenMode = 'live' | 'test';
export const TOKEN_MODES: readonly TokenMode[] = ['live', 'test'];
/** The prefix of a client token of this mode. */
export const clientTokenPrefix = (mode: TokenMode): string => (mode === 'test' ? TEST_TOKEN_PREFIX : TOKEN_PREFIX);
/** Operator tokens (`eprop_…`, "EPR operator") have the same shape with their own prefix: never valid on the client API. */
export const OPERATOR_TOKEN_PREFIX = 'eprop';
/** Dashboard sign-in links (`eprl_…`) and session cookies (`eprs_…`): the same shape, so logs scrub them too. */
export const SIGN_IN_LINK_PREFIX = 'eprl';
export const SESSION_PREFIX = 'eprs';
export const TOKEN_RANDOM_LENGTH = 32;
export const TOKEN_CHECKSUM_LENGTH = 6;
/** Characters of the token shown to identify it (`eprc_` + 7 random characters). */
export const DISPLAY_PREFIX_LENGTH = 12;
/** Longer than any token we issue; anything longer is refused without further work. */
const MAX_TOKEN_LENGTH = 255;

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const tokenShape = (prefix: string) =>
  new RegExp(`^${prefix}_([0-9A-Za-z]{${TOKEN_RANDOM_LENGTH}})_([0-9A-Za-z]{${TOKEN_CHECKSUM_LENGTH}})$`);
const SHAPES = new Map(
  [TOKEN_PREFIX, TEST_TOKEN_PREFIX, OPERATOR_TOKEN_PREFIX, SIGN_IN_LINK_PREFIX, SESSION_PREFIX].map((prefix) => [
    prefix,
    tokenShape(prefix),
  ]),
);

/** Base62 of an unsigned 32-bit integer, left-padded with `0` to `width` characters. */
export function base62(value: number, width = TOKEN_CHECKSUM_LENGTH): string {
  let n = value >>> 0;
  let out = '';
  do {
    out = BASE62[n % 62] + out;
    n = Math.floor(n / 62);
  } while (n > 0);
  return out.padStart(width, '0');
}

/** The checksum part for `body` (= `eprc_<random>`). */
export function checksumOf(body: string): string {
  return base62(crc32(body));
}

/** `length` characters uniform over base62 (bytes ≥ 248 are dropped so that `% 62` has no bias). */
function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248) out += BASE62[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

export function generateToken(prefix = TOKEN_PREFIX): string {
  const body = `${prefix}_${randomBase62(TOKEN_RANDOM_LENGTH)}`;
  return `${body}_${checksumOf(body)}`;
}

export type ParsedToken = { ok: true; token: string; displayPrefix: string } | { ok: false; reason: 'empty' | 'malformed' | 'checksum' };

/** Shape and checksum of a presented token (a client token unless `prefix` says otherwise): pure, no I/O. */
export function parseToken(text: string, prefix = TOKEN_PREFIX): ParsedToken {
  if (text.length === 0) return { ok: false, reason: 'empty' };
  if (text.length > MAX_TOKEN_LENGTH) return { ok: false, reason: 'malformed' };
  const match = SHAPES.get(prefix)!.exec(text);
  if (!match) return { ok: false, reason: 'malformed' };
  const body = text.slice(0, text.length - TOKEN_CHECKSUM_LENGTH - 1);
  if (checksumOf(body) !== match[2]) return { ok: false, reason: 'checksum' };
  return { ok: true, token: text, displayPrefix: displayPrefix(text) };
}

export type ParsedClientToken = (ParsedToken & { ok: true; mode: TokenMode }) | (ParsedToken & { ok: false });

/** A presented client token, live (`eprc_`) or test (`eprt_`): shape and checksum, and the mode its prefix says. */
export function parseClientToken(text: string): ParsedClientToken {
  const mode: TokenMode = text.startsWith(`${TEST_TOKEN_PREFIX}_`) ? 'test' : 'live';
  const parsed = parseToken(text, clientTokenPrefix(mode));
  return parsed.ok ? { ...parsed, mode } : parsed;
}

/** The prefix, `_` and 7 random characters (`eprc_7Gx2kQp`, `eprop_7Gx2kQp`). */
export function displayPrefix(token: string): string {
  return token.slice(0, token.indexOf('_') + DISPLAY_PREFIX_LENGTH - TOKEN_PREFIX.length);
}

/** Hex SHA-256, as stored in `client_tokens.token_hash` (and used to compare the admin token). */
export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}
