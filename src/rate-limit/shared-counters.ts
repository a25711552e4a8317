/** What one replica adds to a shared counter: `count` hits of `key` in the window ending at `windowEnd` (ms). */
export interface Increment {
  key: string;
  windowEnd: number;
  count: number;
}

/** Adds the increments to the shared store and answers each counter's new total, in the same order. */
export type Persist = (increments: Increment[]) => Promise<number[]>;

export interface SharedCountersOptions {
  /** Fixed windows of this length, aligned on the epoch. */
  windowMs: number;
  /** Hits counted here are sent to the shared store at most this long after they happen. */
  flushMs: number;
  /** A hit waits for a round trip to the shared store when this replica's total is older than this. */
  maxStalenessMs: number;
  /** A background flush failed (its hits stay pending and are sent with the next one). */
  onFlushError?: (error: unknown) => void;
  now?: () => number;
}

interface Counter {
  key: string;
  windowEnd: number;
  /** The shared total at the last round trip (every replica's hits, ours included). */
  known: number;
  /** Hits counted here since, not yet in `known`. */
  pending: number;
  syncedAt: number;
  /** The round trip in flight for this counter, if any. */
  syncing?: Promise<void>;
}

/** Counters sent in one round trip, and its end. */
interface Batch {
  counters: Counter[];
  done: Promise<void>;
}

/**
 * Fixed-window counters shared by the replicas through PostgreSQL, the hot path in memory: a hit waits
 * for the store only without a fresh total for its key (first in the window, or none for
 * `maxStalenessMs`); otherwise it is counted here and sent in the next batched flush (within `flushMs`,
 * one statement). Exact on one replica; across R replicas a burst may pass its limit by what the other
 * R − 1 accept within `maxStalenessMs` (as Kong's `sync_rate`), for no round trip in the common case.
 * The hits that wait go in one round trip at a time: the keys that turn stale while one is in flight
 * are sent together in the next (a burst of new clients costs a round trip per batch, not per request;
 * a hit then waits for at most two).
 */
export class SharedCounters {
  private readonly counters = new Map<string, Counter>();
  private readonly now: () => number;
  private timer: NodeJS.Timeout | undefined;
  private nextSweep = 0;
  /** The stale counters waiting for the round trip after the one in flight, if any. */
  private waiting: Batch | undefined;
  /** The last round trip for stale counters, settled or not (the next one starts when it has). */
  private lane: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly persist: Persist,
    private readonly options: SharedCountersOptions,
  ) {
    this.now = options.now ?? Date.now;
  }

  /** Counts one hit of each key; answers each key's total in the current window and the ms until it ends. */
  async hit(keys: string[]): Promise<{ hits: number[]; resetMs: number }> {
    const now = this.now();
    const windowEnd = this.windowEnd(now);
    const counters = this.countersOf(keys, now, windowEnd);
    for (const counter of counters) counter.pending++;
    const synced = this.syncStale(counters, now);
    // Read the totals as soon as possible: no await at all when every key is fresh.
    if (synced) await synced;
    if (counters.some((c) => c.pending > 0)) this.schedule();
    return { hits: counters.map((c) => c.known + c.pending), resetMs: windowEnd - now };
  }

  /**
   * Counts one hit of `key` at once, with no round trip, if this replica's total for it is fresh (no
   * round trip due) and stays within `limit` with this hit; otherwise counts nothing and answers
   * undefined (the caller then takes the path that may wait: `hit`). A background flush in flight
   * does not stop it: the hit stays pending and goes with the next flush (a round trip sends the
   * hits pending when it starts, and only those leave `pending` when it ends).
   */
  hitIfFresh(key: string, limit: number): { hits: number; resetMs: number } | undefined {
    const now = this.now();
    const windowEnd = this.windowEnd(now);
    const counter = this.counters.get(key);
    if (counter === undefined || counter.windowEnd !== windowEnd) return undefined;
    if (now - counter.syncedAt > this.options.maxStalenessMs) return undefined;
    const hits = counter.known + counter.pending + 1;
    if (hits > limit) return undefined;
    counter.pending++;
    this.schedule();
    return { hits, resetMs: windowEnd - now };
  }

  /**
   * Brings this replica's view of the keys up to date without counting a hit: one round trip for
   * all of them if any is stale (what `hit` would do for each in turn), none if all are fresh. The
   * hits that follow within `maxStalenessMs` are then counted here, as for any fresh key.
   */
  async refresh(keys: string[]): Promise<void> {
    const now = this.now();
    await this.syncStale(this.countersOf(keys, now, this.windowEnd(now)), now);
  }

  private countersOf(keys: string[], now: number, windowEnd: number): Counter[] {
    this.sweep(now);
    return keys.map((key) => {
      let counter = this.counters.get(key);
      if (!counter || counter.windowEnd !== windowEnd) {
        counter = { key, windowEnd, known: 0, pending: 0, syncedAt: -Infinity };
        this.counters.set(key, counter);
      }
      return counter;
    });
  }

  /** Starts a round trip for the stale counters; the round trips in flight for any of them, if any. */
  private syncStale(counters: Counter[], now: number): Promise<unknown> | undefined {
    const stale = counters.filter((c) => !c.syncing && now - c.syncedAt > this.options.maxStalenessMs);
    if (stale.length > 0) this.syncNext(stale);
    // A round trip already in flight for a key answers for this hit too (the hit itself is sent later).
    const inFlight = counters.map((c) => c.syncing).filter((p): p is Promise<void> => p !== undefined);
    return inFlight.length > 0 ? Promise.all(inFlight) : undefined;
  }

  /**
   * This replica's view of a key's total in the current window, without a round trip: the shared
   * total at its last round trip plus the hits counted here since (0 for a key not hit here yet).
   */
  peek(key: string): { hits: number; resetMs: number } {
    const now = this.now();
    const windowEnd = this.windowEnd(now);
    const counter = this.counters.get(key);
    return { hits: counter?.windowEnd === windowEnd ? counter.known + counter.pending : 0, resetMs: windowEnd - now };
  }

  /** Sends every hit counted here and not sent yet. */
  async flush(): Promise<void> {
    const due = [...this.counters.values()].filter((c) => c.pending > 0 && !c.syncing);
    if (due.length > 0) await this.sync(due);
  }

  /** Stops the background flush (call `flush()` first to keep the last hits). */
  close(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private windowEnd(now: number): number {
    return (Math.floor(now / this.options.windowMs) + 1) * this.options.windowMs;
  }

  /** Adds the counters to the next round trip for stale counters: at once if none is in flight, else when it ends. */
  private syncNext(counters: Counter[]): void {
    if (this.waiting === undefined) {
      const batch: Batch = { counters: [], done: Promise.resolve() };
      batch.done = this.lane
        .then(() => {
          this.waiting = undefined;
          return this.roundTrip(batch.counters);
        })
        .finally(() => {
          for (const c of batch.counters) if (c.syncing === batch.done) c.syncing = undefined;
        });
      this.lane = batch.done.catch(() => {});
      this.waiting = batch;
    }
    for (const c of counters) {
      this.waiting.counters.push(c);
      c.syncing = this.waiting.done;
    }
  }

  private sync(counters: Counter[]): Promise<void> {
    const done = this.roundTrip(counters).finally(() => {
      for (const c of counters) if (c.syncing === done) c.syncing = undefined;
    });
    for (const c of counters) c.syncing = done;
    return done;
  }

  /** Sends the counters' pending hits (as they are when it starts) and takes the totals it answers. */
  private roundTrip(counters: Counter[]): Promise<void> {
    const sent = counters.map((c) => c.pending);
    return this.persist(counters.map((c, i) => ({ key: c.key, windowEnd: c.windowEnd, count: sent[i]! }))).then((totals) => {
      const at = this.now();
      counters.forEach((c, i) => {
        c.pending -= sent[i]!;
        c.known = totals[i]!;
        c.syncedAt = at;
      });
    });
  }

  private schedule(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.flush().then(
        () => {
          if ([...this.counters.values()].some((c) => c.pending > 0)) this.schedule();
        },
        (error: unknown) => {
          this.options.onFlushError?.(error);
          this.schedule();
        },
      );
    }, this.options.flushMs);
    this.timer.unref();
  }

  /** Forgets the counters of ended windows, once per window. */
  private sweep(now: number): void {
    if (now < this.nextSweep) return;
    this.nextSweep = now + this.options.windowMs;
    for (const [key, counter] of this.counters) if (counter.windowEnd <= now && !counter.syncing) this.counters.delete(key);
  }
}
