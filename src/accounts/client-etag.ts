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

/** The conditional headers of a change of a client (RFC 9110 §13.1). */
export interface Preconditions {
  ifMatch?: string;
  ifNoneMatch?: string;
}

/**
 * Whether a change of the existing client whose tag is `current` may go ahead (RFC 9110 §13.2.2:
 * If-Match first, then If-None-Match). An `If-Match` holding no tag (empty) matches nothing; an
 * `If-None-Match` of `*` never holds for a client that exists, nor one naming its tag (compared
 * weakly). False means 412.
 */
export function preconditionsHold(preconditions: Preconditions | undefined, current: string): boolean {
  const { ifMatch, ifNoneMatch } = preconditions ?? {};
  if (!ifMatchAllows(ifMatch, current)) return false;
  if (ifNoneMatch === undefined) return true;
  if (ifNoneMatch.trim() === '*') return false;
  const opaque = (tag: string) => tag.replace(/^W\//, '');
  return !(ifNoneMatch.match(/(?:W\/)?"[^"]*"/g) ?? []).some((tag) => opaque(tag) === opaque(current));
}
