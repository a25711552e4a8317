import { filtersHash as keysetFiltersHash, KeysetCursor, UUID_ID } from '../common/paging/keyset-cursor.js';

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

/** The filters a client-listing cursor is bound to: `period` and `status`, absent or not. */
const bound = (filters: ListFilters) => ({ period: filters.period, status: filters.status });

export const filtersHash = (filters: ListFilters): string => keysetFiltersHash(bound(filters));

/** The client listing's cursors: the shared keyset cursor over `(submitted_at, id)`, bound to `period` and `status`. */
export const DeclarationCursor = {
  encode(position: CursorPosition, filters: ListFilters): string {
    return KeysetCursor.encode({ at: position.submittedAt, id: position.id }, bound(filters));
  },

  /** The position, `'mismatch'` for a well-formed cursor of other filters, or undefined for anything else. */
  decode(cursor: string, filters: ListFilters): CursorPosition | 'mismatch' | undefined {
    const decoded = KeysetCursor.decode(cursor, bound(filters), UUID_ID);
    return decoded === undefined || decoded === 'mismatch' ? decoded : { submittedAt: decoded.at, id: decoded.id };
  },
};
