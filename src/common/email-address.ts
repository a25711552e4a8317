/**
 * E-mail addresses: the one rule for an address entering the service (`checkEmail`), and how
 * addresses are compared: case-folded in ASCII only.
 * Unicode case mappings (PostgreSQL's `lower()`, JavaScript's `toLowerCase()`) map letters of other
 * scripts onto ASCII ones (`İ` U+0130 → `i`), so that an address of another domain compared equal
 * to a client's; folding A–Z alone cannot.
 */

import { domainToASCII, domainToUnicode } from 'node:url';
import { isEmail } from 'class-validator';

export const ASCII_UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
export const ASCII_LOWER = 'abcdefghijklmnopqrstuvwxyz';

/** `A`–`Z` made `a`–`z`; every other character (non-ASCII ones included) left as it is. */
export function foldEmail(address: string): string {
  return address.replace(/[A-Z]/g, (letter) => String.fromCharCode(letter.charCodeAt(0) + 32));
}

/** Whether the text holds a character outside printable ASCII (a letter of another script that looks like a Latin one, a space…). */
export function hasNonAscii(text: string): boolean {
  return /[^\x20-\x7e]/.test(text);
}

/** An address as the sign-in form takes it: printable ASCII, no space, one @, 1–64 characters before it, at most 254 in all. */
export function isSignInEmail(text: string): boolean {
  return text.length <= 254 && /^[\x21-\x3f\x41-\x7e]{1,64}@[\x21-\x3f\x41-\x7e]{1,253}$/.test(text);
}

/** Scripts a letter of a domain label may be of; any other letter counts as a script of its own kind. */
const SCRIPTS = [
  'Latin',
  'Cyrillic',
  'Greek',
  'Armenian',
  'Georgian',
  'Hebrew',
  'Arabic',
  'Devanagari',
  'Thai',
  'Hangul',
  'Han',
  'Hiragana',
  'Katakana',
  'Cherokee',
] as const;
const SCRIPT_TESTS = SCRIPTS.map((script) => ({ script, test: new RegExp(`\\p{Script=${script}}`, 'u') }));
/** Han, Hiragana and Katakana are written together (Japanese). */
const JAPANESE = new Set(['Han', 'Hiragana', 'Katakana']);

/** The scripts of a label's letters (digits, hyphens and combining marks belong to none). */
function scriptsOf(label: string): Set<string> {
  const scripts = new Set<string>();
  for (const char of label) {
    if (!/\p{L}/u.test(char)) continue;
    const script = SCRIPT_TESTS.find(({ test }) => test.test(char))?.script ?? 'other';
    scripts.add(JAPANESE.has(script) ? 'Japanese' : script);
  }
  return scripts;
}

/**
 * Cyrillic and Greek letters that look like Latin ones: a label made of these alone (`срасе`,
 * Cyrillic throughout) reads as a Latin word. A short list of the common ones, not Unicode's whole
 * table of confusables.
 */
const LATIN_LOOKALIKES = /^[аеіјорсухѕԁһӏԛԝүϳοιαυνκρτχ\d-]+$/u;

/**
 * In a domain: a combining mark left after NFC (`İ` becomes `i` and a dot above, which reads as `i`),
 * or a Latin letter that reads as an ASCII one (dotless `ı`, `ɑ`, `ɡ`, `ǀ`).
 */
const LATIN_MARKED = /[\p{M}ıɩɑɡǀ]/u;

/** Why an address is refused: its form (`invalid_email`), or characters that make it another address than it reads (`email_characters`). */
export type EmailCheck = { ok: true; address: string } | { ok: false; code: 'invalid_email' | 'email_characters'; detail: string };

const refused = (code: 'invalid_email' | 'email_characters', detail: string): EmailCheck => ({ ok: false, code, detail });

/**
 * The one rule for an e-mail address wherever one enters the service (the admin API, the clients
 * import, the dashboard's sign-in form): surrounding white space trimmed, Unicode NFC; the part
 * before the @ in printable ASCII (an address there in another script is refused: `İ`, a Cyrillic
 * `с` or a full-width letter would name another mailbox than it reads); the domain lower case, an
 * internationalised one kept in its ASCII (`xn--`) form, and refused when a label mixes scripts
 * (`exеmple` with a Cyrillic `е`), is written wholly in Cyrillic or Greek letters that look Latin,
 * or holds full-width or other compatibility characters. The answer is the address as the service
 * stores and compares it (compared ignoring the case of A–Z only: see `foldEmail`).
 */
export function checkEmail(text: string): EmailCheck {
  const value = text.trim().normalize('NFC');
  if (value.length === 0 || value.length > 254) return refused('invalid_email', 'must be an e-mail address of at most 254 characters');
  const at = value.lastIndexOf('@');
  if (at <= 0 || at === value.length - 1) return refused('invalid_email', 'must be an e-mail address such as name@example.fr');
  const local = value.slice(0, at);
  const domain = value.slice(at + 1);
  if (/[\p{Cf}\p{Cc}]/u.test(value)) {
    return refused('email_characters', 'must not contain invisible or control characters (U+200B, a tab…): type it again');
  }
  if (value.normalize('NFKC') !== value) {
    return refused(
      'email_characters',
      'must not contain full-width or other compatibility characters (ｅ, ．, ﬁ…): type it again in plain letters',
    );
  }
  if (hasNonAscii(local)) {
    return refused(
      'email_characters',
      'must be written before the @ in Latin letters, digits and . _ + - only (a letter of another script that looks Latin, such as İ or a Cyrillic с, names another mailbox)',
    );
  }
  const ascii = domainToASCII(domain);
  if (ascii === '') return refused('invalid_email', 'has a domain that is not a valid domain name');
  for (const label of domainToUnicode(ascii).split('.')) {
    if (label.startsWith('xn--')) return refused('invalid_email', 'has a domain that is not a valid domain name');
    const scripts = scriptsOf(label);
    if (scripts.size > 1) {
      return refused(
        'email_characters',
        `has a domain mixing letters of several scripts (${[...scripts].join(', ')}), such as a Cyrillic е among Latin letters: type it again`,
      );
    }
    if (LATIN_MARKED.test(label)) {
      return refused(
        'email_characters',
        'has a domain with a letter that reads as a plain Latin one (İ, ı, a combining accent…): type it again',
      );
    }
    if ((scripts.has('Cyrillic') || scripts.has('Greek')) && LATIN_LOOKALIKES.test(label)) {
      return refused('email_characters', 'has a domain written in Cyrillic or Greek letters that look like Latin ones: type it again');
    }
  }
  const address = `${local}@${ascii}`;
  if (!isEmail(address, { allow_utf8_local_part: false }) || !isSignInEmail(address)) {
    return refused('invalid_email', 'must be an e-mail address such as name@example.fr');
  }
  return { ok: true, address };
}

/** The address as compared for duplicates: by `checkEmail`'s rule (or as stored, for an address from before it), A–Z folded. */
export function emailKey(address: string): string {
  const checked = checkEmail(address);
  return foldEmail(checked.ok ? checked.address : address);
}
