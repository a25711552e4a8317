import { canonicalJson, sha256Hex } from './canonical-json.js';

/** The position after the last row of a page, in the list order `(submitted_at DESC, id DESC)`. */
export interface CursorPosition {
  /** `submitted_at` of the last row, UTC with microseconds as PostgreSQL stores it (`2025-07-01T08:00:00.123456Z`). */
  submittedAt: string;
  id: string;
}

export interface ListFilters {
  period?: string;
  status?: string;
}

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const BASE64URL = /^[A-Za-z0-9_-]{1,400}$/;

/**
 * The timestamp names an instant that exists: `Date.parse` accepts `2026-02-30` or `T24:00` (rolling
 * over to the next day) where PostgreSQL refuses them, so the text must read back unchanged.
 */
function isRealInstant(timestamp: string): boolean {
  const ms = Date.parse(timestamp);
  return !Number.isNaN(ms) && new Date(ms).toISOString().slice(0, 23) === timestamp.slice(0, 23);
}

/** Binds a cursor to the filters it was made for: reusing it with other filters is refused. */
export function filtersHash(filters: ListFilters): string {
  return sha256Hex(canonicalJson({ period: filters.period ?? null, status: filters.status ?? null })).slice(0, 16);
}

/**
 * Opaque page cursors: base64url of `{v, t, i, f}`. The encoding is not a secret (it grants
 * nothing: every query is scoped to the caller), only a format clients must not depend on.
 */
export const DeclarationCursor = {
  encode(position: CursorPosition, filters: ListFilters): string {
    const payload = { v: 1, t: position.submittedAt, i: position.id, f: filtersHash(filters) };
    return Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url');
  },

  /** The position, `'mismatch'` for a well-formed cursor of other filters, or undefined for anything else. */
  decode(cursor: string, filters: ListFilters): CursorPosition | 'mismatch' | undefined {
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
    if (typeof i !== 'string' || !UUID.test(i) || typeof f !== 'string') return undefined;
    if (f !== filtersHash(filters)) return 'mismatch';
    return { submittedAt: t, id: i };
  },
};
