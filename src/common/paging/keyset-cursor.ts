import { createHash } from 'node:crypto';
import { Problem } from '../problem/problem.js';
import { UUID_PATTERN } from '../uuid.js';

/** The position after the last row of a page, in an order `(timestamp DESC, id DESC)`. */
export interface KeysetPosition {
  /** The timestamp of the last row, UTC with microseconds as PostgreSQL stores it (`2025-07-01T08:00:00.123456Z`). */
  at: string;
  id: string;
}

export type Filters = Record<string, string | boolean | undefined>;

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
const BASE64URL = /^[A-Za-z0-9_-]{1,400}$/;
export const UUID_ID = new RegExp(UUID_PATTERN);

/**
 * Binds a cursor to the filters it was made for: reusing it with other filters is refused. The JSON
 * of the filters with sorted keys (an absent one is null).
 */
export function filtersHash(filters: Filters): string {
  const sorted = Object.fromEntries(
    Object.keys(filters)
      .sort()
      .map((key) => [key, filters[key] ?? null]),
  );
  return createHash('sha256').update(JSON.stringify(sorted)).digest('hex').slice(0, 16);
}

/**
 * The timestamp names an instant that exists: `Date.parse` accepts `2026-02-30` or `T24:00` (rolling
 * over to the next day) where PostgreSQL refuses them, so the text must read back unchanged.
 */
function isRealInstant(timestamp: string): boolean {
  const ms = Date.parse(timestamp);
  return !Number.isNaN(ms) && new Date(ms).toISOString().slice(0, 23) === timestamp.slice(0, 23);
}

/**
 * Opaque page cursors of every listing: base64url of `{v, t, i, f}`. The encoding is not a secret
 * (it grants nothing: every query is scoped to the caller), only a format clients must not depend on.
 */
export const KeysetCursor = {
  encode(position: KeysetPosition, filters: Filters): string {
    return Buffer.from(JSON.stringify({ v: 1, t: position.at, i: position.id, f: filtersHash(filters) }), 'utf8').toString('base64url');
  },

  /** The position, `'mismatch'` for a well-formed cursor of other filters, or undefined for anything else. */
  decode(cursor: string, filters: Filters, idPattern: RegExp): KeysetPosition | 'mismatch' | undefined {
    if (!BASE64URL.test(cursor)) return undefined;
    let payload: unknown;
    try {
      payload = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    } catch {
      return undefined;
    }
    if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) return undefined;
    const { v, t, i, f, ...rest } = payload as Record<string, unknown>;
    if (v !== 1 || Object.keys(rest).length > 0) return undefined;
    if (typeof t !== 'string' || !TIMESTAMP.test(t) || !isRealInstant(t)) return undefined;
    if (typeof i !== 'string' || !idPattern.test(i) || typeof f !== 'string') return undefined;
    if (f !== filtersHash(filters)) return 'mismatch';
    return { at: t, id: i };
  },
};

/** The position a `cursor` query parameter names (undefined: first page), or 400 `invalid_cursor`. */
export function positionOf(cursor: string | undefined, filters: Filters, idPattern: RegExp): KeysetPosition | undefined {
  if (cursor === undefined) return undefined;
  const decoded = KeysetCursor.decode(cursor, filters, idPattern);
  if (decoded === 'mismatch') {
    throw new Problem(
      'invalid_cursor',
      'This cursor belongs to a listing with other filters: keep the filters unchanged while paging, or start again without cursor.',
    );
  }
  if (!decoded)
    throw new Problem(
      'invalid_cursor',
      'The cursor is not one this API issued: pass next_cursor unchanged, or start again without cursor.',
    );
  return decoded;
}

export interface Page<T> {
  items: T[];
  hasMore: boolean;
  nextCursor: string | null;
}

/** A page from `limit + 1` rows (the extra one only tells that more follow). */
export function pageOf<T>(rows: T[], limit: number, positionOfRow: (row: T) => KeysetPosition, filters: Filters): Page<T> {
  const items = rows.slice(0, limit);
  const last = items.at(-1);
  const hasMore = rows.length > limit;
  return { items, hasMore, nextCursor: hasMore && last ? KeysetCursor.encode(positionOfRow(last), filters) : null };
}
