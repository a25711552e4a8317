import type { TokenMode } from '../common/token-format.js';

/** Exactly one revision per period is `current`; earlier ones are `superseded` and stay readable. */
export type DeclarationStatus = 'current' | 'superseded';

/** Who filed a revision, as stored and shown: a client token (id and prefix, never the secret), a dashboard session, or the operator. */
export type SubmittedBy =
  | { type: 'token'; token_id: string; token_prefix: string | null }
  | { type: 'dashboard'; session_id: string | null; declared_by_name?: string }
  | { type: 'operator'; name: string };

/** A revision of a client's declaration for a half-year, without its lines. */
export interface Declaration {
  id: string;
  clientId: string;
  period: string;
  revision: number;
  status: DeclarationStatus;
  supersedes: string | null;
  /** UTC, microseconds: `2025-07-01T08:00:00.123456Z`. */
  submittedAt: string;
  receipt: string;
  catalogueVersion: number;
  mode: TokenMode;
  /** Who filed it; null for revisions filed before this was recorded. */
  submittedBy: SubmittedBy | null;
  /** The consumer sales units stated for the half-year, once per stream, in stream order; empty when not stated. */
  unitsSold: UnitsSold[];
}

/**
 * The consumer sales units of one stream placed on the market in the half-year, as stated. Never the
 * sum of the stream's `uvc` lines: each of those counts the units whose packaging contains its material.
 */
export interface UnitsSold {
  stream: string;
  /** A whole number as decimal text, e.g. `"90000"`. */
  quantity: string;
}

/** A line of a declaration, as submitted (material trimmed) and categorised. */
export interface DeclarationLine {
  stream: string;
  material: string;
  /** The published category the material names, or null. */
  materialCode: string | null;
  unit: string;
  /** numeric(16,3) as text, e.g. `"1200.000"`. */
  quantity: string;
}

/** The exact sum of a declaration's lines for one stream and unit (a unit of mass: counts per material do not add up). */
export interface DeclarationTotal {
  stream: string;
  unit: string;
  /** Exact decimal text without trailing zeros, e.g. `"0.3"`, `"1200"`. */
  quantity: string;
}

/** A declaration in a list: its line count and totals, not its lines. */
export interface DeclarationSummary extends Declaration {
  lineCount: number;
  totals: DeclarationTotal[];
}

/** A declaration with its lines (in the order submitted) and totals. */
export interface DeclarationRecord extends Declaration {
  lines: DeclarationLine[];
  totals: DeclarationTotal[];
}

/** What the operator asks of every client's declarations: filters (`stream`: with a line of it; from inclusive, to exclusive), and a page. */
export interface AdminDeclarationsQuery {
  period?: string;
  clientId?: string;
  stream?: string;
  status?: DeclarationStatus;
  submittedFrom?: string;
  submittedTo?: string;
  cursor?: string;
  limit?: number;
}

/** What a client asks of its own declarations: a period, a status, and a page (`cursor`: the last page's `next_cursor`). */
export interface DeclarationsQuery {
  period?: string;
  status?: DeclarationStatus;
  cursor?: string;
  limit?: number;
}
