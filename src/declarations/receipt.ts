import { randomInt } from 'node:crypto';
import type { TokenMode } from '../common/token-format.js';

// Crockford's base32: no I, L, O or U, so a receipt read aloud or retyped is unambiguous.
const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/**
 * The human-readable acknowledgement reference of a revision: `EPR-2025S1-R2-` + 8 random
 * base32 characters (40 bits), `TEST-` before it in a client's sandbox. Unique in the database; a collision is retried by the caller.
 */
export function receiptFor(period: string, revision: number, mode: TokenMode = 'live'): string {
  const [before, after] = receiptAround(period, mode);
  return `${before}${revision}${after}`;
}

/** A new receipt's text before and after its revision number, for a statement that numbers the revision itself. */
export function receiptAround(period: string, mode: TokenMode = 'live'): [before: string, after: string] {
  // 40 random bits (exact in a double), from the process's cache of random bytes, 5 bits a character.
  const bits = randomInt(2 ** 40);
  let suffix = '';
  for (let i = 7; i >= 0; i--) suffix += ALPHABET[Math.floor(bits / 32 ** i) % 32];
  // A test declaration's receipt says so at a glance: `TEST-EPR-2025S1-R1-…`.
  return [`${mode === 'test' ? 'TEST-' : ''}EPR-${period.replace('-', '')}-R`, `-${suffix}`];
}
