/**
 * E-mail addresses as the dashboard's sign-in compares them: ASCII only, case-folded in ASCII only.
 * Unicode case mappings (PostgreSQL's `lower()`, JavaScript's `toLowerCase()`) map letters of other
 * scripts onto ASCII ones (`İ` U+0130 → `i`), so that an address of another domain compared equal
 * to a client's; folding A–Z alone cannot.
 */

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
