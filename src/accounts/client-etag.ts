import { createHash } from 'node:crypto';

/**
 * The strong ETag of a client as the operator reads it: a hash of everything the admin view holds
 * (both profiles, confirmation, status, `updated_at`), so that any change to the client changes it,
 * on every replica alike.
 */
export function clientEtag(view: object): string {
  return `"${createHash('sha256').update(JSON.stringify(view)).digest('base64url').slice(0, 27)}"`;
}

/**
 * Whether an `If-Match` header (RFC 9110 §13.1.1: `*`, or a list of entity tags compared strongly)
 * lets a change of the resource whose tag is `current` go ahead. Undefined: no precondition.
 */
export function ifMatchAllows(header: string | undefined, current: string): boolean {
  if (header === undefined) return true;
  const value = header.trim();
  if (value === '*') return true;
  // A weak tag never matches in a strong comparison.
  return (value.match(/(?:W\/)?"[^"]*"/g) ?? []).some((tag) => tag === current);
}
