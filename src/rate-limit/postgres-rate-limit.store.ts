import { type BeforeApplicationShutdown, Injectable, Logger } from '@nestjs/common';
import type { ThrottlerStorage } from '@nestjs/throttler';
import { DataSource } from 'typeorm';
import { RATE_LIMIT_WINDOW_MS } from './rate-limits.js';
import { type Increment, SharedCounters } from './shared-counters.js';

/** Hits counted in memory reach PostgreSQL within this time… */
export const RATE_LIMIT_FLUSH_MS = 100;
/** …and a replica waits for PostgreSQL when its view of a key's count is older than this. */
export const RATE_LIMIT_MAX_STALENESS_MS = 1_000;

/**
 * The rate-limit counters of every replica, in the UNLOGGED table `rate_limit_counters` (losing
 * counters in a crash is harmless), reached through `SharedCounters`: one batched upsert per
 * flush for all keys, a synchronous one only when this replica's view of a key is stale. Ended
 * windows are deleted once a minute per replica. It is the storage of @nestjs/throttler's guard
 * (`increment`), and counts failed authentications (`hit`, `peek`).
 */
@Injectable()
export class PostgresRateLimitStore implements ThrottlerStorage, BeforeApplicationShutdown {
  private readonly logger = new Logger(PostgresRateLimitStore.name);
  private readonly counters: SharedCounters;
  private lastSweep = 0;
  private sweeping: Promise<unknown> = Promise.resolve();
  private lastFailureLogged = 0;

  constructor(private readonly dataSource: DataSource) {
    this.counters = new SharedCounters((increments) => this.persist(increments), {
      windowMs: RATE_LIMIT_WINDOW_MS,
      flushMs: RATE_LIMIT_FLUSH_MS,
      maxStalenessMs: RATE_LIMIT_MAX_STALENESS_MS,
      onFlushError: (error) => this.flushFailed(error),
    });
  }

  /** One hit of each key: each key's count in the current window, and the seconds until the window ends. */
  async hit(keys: string[]): Promise<{ hits: number[]; secondsLeft: number }> {
    const { hits, resetMs } = await this.counters.hit(keys);
    return { hits, secondsLeft: Math.max(1, Math.ceil(resetMs / 1000)) };
  }

  /**
   * One hit of a throttler's key. Windows are fixed (aligned on the clock, as the RateLimit header's
   * `t` says), so a limit is over at the end of its window: `blockDuration` is not used.
   */
  async increment(key: string, ttl: number, limit: number): ReturnType<ThrottlerStorage['increment']> {
    if (ttl !== RATE_LIMIT_WINDOW_MS) throw new Error(`rate limit windows are ${RATE_LIMIT_WINDOW_MS} ms; a throttler asked for ${ttl} ms`);
    const { hits, secondsLeft } = await this.hit([key]);
    const isBlocked = hits[0]! > limit;
    return { totalHits: hits[0]!, timeToExpire: secondsLeft, isBlocked, timeToBlockExpire: isBlocked ? secondsLeft : 0 };
  }

  /** One hit of a key counted at once, from memory, if that needs no round trip and stays within `limit`; else nothing counted (see SharedCounters.hitIfFresh). */
  hitIfFresh(key: string, limit: number): { hits: number; secondsLeft: number } | undefined {
    const counted = this.counters.hitIfFresh(key, limit);
    return counted && { hits: counted.hits, secondsLeft: Math.max(1, Math.ceil(counted.resetMs / 1000)) };
  }

  /** Brings this replica's view of the keys up to date, in one round trip for those that are stale (see SharedCounters.refresh). */
  refresh(keys: string[]): Promise<void> {
    return this.counters.refresh(keys);
  }

  /** A key's count as this replica knows it, without a round trip (see SharedCounters.peek). */
  peek(key: string): { hits: number; secondsLeft: number } {
    const { hits, resetMs } = this.counters.peek(key);
    return { hits, secondsLeft: Math.max(1, Math.ceil(resetMs / 1000)) };
  }

  /** The last hits go to PostgreSQL before the connection closes. */
  async beforeApplicationShutdown(): Promise<void> {
    this.counters.close();
    await this.counters.flush().catch((error: unknown) => this.flushFailed(error));
    await this.sweeping;
  }

  private async persist(increments: Increment[]): Promise<number[]> {
    const rows = (await this.dataSource.query(
      `INSERT INTO rate_limit_counters (key, window_end, hits)
       SELECT i.key, to_timestamp(i.window_end / 1000.0), i.count
         FROM unnest($1::text[], $2::float8[], $3::int[]) AS i (key, window_end, count)
       ON CONFLICT (key, window_end) DO UPDATE SET hits = rate_limit_counters.hits + excluded.hits
       RETURNING key, hits`,
      [increments.map((i) => i.key), increments.map((i) => i.windowEnd), increments.map((i) => i.count)],
    )) as { key: string; hits: number }[];
    this.sweep();
    // One row per key (a batch never holds a key twice).
    const totals = new Map(rows.map((r) => [r.key, r.hits]));
    return increments.map((i) => totals.get(i.key)!);
  }

  private flushFailed(error: unknown): void {
    // Retried every flush while PostgreSQL is away: logged once a minute, not ten times a second.
    if (Date.now() - this.lastFailureLogged < 60_000) return;
    this.lastFailureLogged = Date.now();
    this.logger.warn(`rate limit counters not saved yet (retrying): ${String(error instanceof Error ? error.message : error)}`);
  }

  private sweep(): void {
    const now = Date.now();
    if (now - this.lastSweep < 60_000) return;
    this.lastSweep = now;
    this.sweeping = this.dataSource
      .query(`DELETE FROM rate_limit_counters WHERE window_end < now() - interval '1 minute'`)
      .catch((error: unknown) => this.logger.warn(`rate limit sweep failed: ${String(error)}`));
  }
}
