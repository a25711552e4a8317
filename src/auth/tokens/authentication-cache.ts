import type { VerifiedClient } from '../verified-client.js';

export interface AuthenticationCacheOptions {
  /** How long an authentication is kept at most: the bound on staleness if notifications silently stop. */
  ttlMs: number;
  /** Entries kept at most; the least recently stored go first. */
  maxEntries: number;
  now?: () => number;
}

/** The service's settings: an authentication is kept 10 s at most, for 10,000 tokens at most. */
export const AUTHENTICATION_CACHE_LIMITS: AuthenticationCacheOptions = { ttlMs: 10_000, maxEntries: 10_000 };

/** Taken before a lookup (`mark()`): the generation of changes then, and the time it started. */
export interface Mark {
  readonly generation: number;
  /** When the lookup started (ms since epoch): a token's time left, as the database reported it, counts from here. */
  readonly at: number;
}

interface Entry {
  client: VerifiedClient;
  /** Kept until then (ms since epoch): the TTL, or the token's expiry if sooner. */
  until: number;
}

/**
 * Client tokens this replica verified (by SHA-256), with the client and account they authenticate as.
 * Kept only while every change reaches this process: PostgreSQL announces each change to a token or an
 * account (migration AuthChangeNotifications), `changed` forgets that client's entries, and nothing is
 * kept while not listening. A revocation takes effect here at once, on other replicas in milliseconds,
 * at worst after `ttlMs`. A lookup that raced a change is not kept (`mark()` before it, `remember(…, mark)` after).
 */
export class AuthenticationCache {
  private readonly entries = new Map<string, Entry>();
  private readonly now: () => number;
  /** Bumped by every change and every start or stop of listening. */
  private generation = 0;
  private active = false;

  constructor(private readonly options: AuthenticationCacheOptions) {
    this.now = options.now ?? Date.now;
  }

  /** Whether changes reach this process, so that authentications may be kept. */
  get enabled(): boolean {
    return this.active;
  }

  /** The authentication kept for a token hash, if any and still valid. */
  get(tokenHash: string): VerifiedClient | undefined {
    const entry = this.entries.get(tokenHash);
    if (entry === undefined) return undefined;
    if (this.now() >= entry.until) {
      this.entries.delete(tokenHash);
      return undefined;
    }
    return entry.client;
  }

  /** Taken before a lookup, handed back to `remember` with its result. */
  mark(): Mark {
    return { generation: this.generation, at: this.now() };
  }

  /**
   * Keeps a successful lookup begun at `mark`, unless a change was announced since (or listening
   * stopped). `expiresInMs`: how long the token had left when the database read it (null: no
   * expiry). Both the TTL and that time count from the mark, taken before the query was sent, so an
   * authentication is never kept past the token's expiry however long the answer took to arrive.
   */
  remember(tokenHash: string, mark: Mark, client: VerifiedClient, expiresInMs: number | null): void {
    if (!this.active || mark.generation !== this.generation) return;
    const until = mark.at + Math.min(this.options.ttlMs, expiresInMs ?? Infinity);
    if (until <= this.now()) return;
    this.entries.delete(tokenHash);
    this.entries.set(tokenHash, { client, until });
    if (this.entries.size > this.options.maxEntries) this.entries.delete(this.entries.keys().next().value!);
  }

  /** A change to a client's tokens or account was announced: forget that client ('*': everyone). */
  changed(clientId: string): void {
    this.generation++;
    if (clientId === '*') {
      this.entries.clear();
      return;
    }
    for (const [hash, entry] of this.entries) if (entry.client.clientId === clientId) this.entries.delete(hash);
  }

  /** Listening started (announcements reach this process from now on) or stopped: either way, start empty. */
  listening(active: boolean): void {
    this.generation++;
    this.entries.clear();
    this.active = active;
  }
}
