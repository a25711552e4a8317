import { jest } from '@jest/globals';
import { type Increment, SharedCounters } from './shared-counters.js';

const WINDOW = 60_000;
const FLUSH = 100;
const STALE = 1_000;

/** The shared table, as PostgreSQL would keep it, with a log of every round trip. */
function sharedStore() {
  const table = new Map<string, number>();
  const trips: Increment[][] = [];
  let failing = false;
  const persist = async (increments: Increment[]) => {
    trips.push(increments);
    await Promise.resolve();
    if (failing) throw new Error('database unavailable');
    return increments.map((i) => {
      const id = `${i.key}@${i.windowEnd}`;
      table.set(id, (table.get(id) ?? 0) + i.count);
      return table.get(id)!;
    });
  };
  return {
    table,
    trips,
    persist,
    fail: (value: boolean) => void (failing = value),
    total: (key: string, windowEnd: number) => table.get(`${key}@${windowEnd}`) ?? 0,
  };
}

/** A replica: its own counters on the shared store, on a clock the test moves. */
function replica(store: ReturnType<typeof sharedStore>, clock: { now: number }, onFlushError?: (e: unknown) => void) {
  return new SharedCounters(store.persist, { windowMs: WINDOW, flushMs: FLUSH, maxStalenessMs: STALE, now: () => clock.now, onFlushError });
}

const T0 = 1_800_000_000_000; // a window boundary (a multiple of 60 000)

describe('SharedCounters', () => {
  beforeEach(() => jest.useFakeTimers({ now: T0 }));
  afterEach(() => jest.useRealTimers());

  it('waits for the store on the first hit of a key only, and batches the rest into one flush', async () => {
    const store = sharedStore();
    const clock = { now: T0 + 5_000 };
    const counters = replica(store, clock);
    expect(await counters.hit(['a'])).toEqual({ hits: [1], resetMs: 55_000 });
    expect(store.trips).toHaveLength(1);
    for (let i = 2; i <= 5; i++) expect((await counters.hit(['a'])).hits).toEqual([i]);
    expect((await counters.hit(['b'])).hits).toEqual([1]); // a new key: one more round trip
    expect(store.trips).toHaveLength(2);
    expect(store.total('a', T0 + WINDOW)).toBe(1);
    await jest.advanceTimersByTimeAsync(FLUSH);
    expect(store.trips).toHaveLength(3);
    expect(store.trips[2]).toEqual([{ key: 'a', windowEnd: T0 + WINDOW, count: 4 }]);
    expect(store.total('a', T0 + WINDOW)).toBe(5);
    counters.close();
  });

  it('refreshes several stale keys in one round trip without counting, then counts their hits here', async () => {
    const store = sharedStore();
    const clock = { now: T0 + 5_000 };
    const other = replica(store, clock);
    await other.hit(['w']);
    await other.hit(['w']);
    await other.flush();
    const counters = replica(store, clock);
    const trips = store.trips.length;
    await counters.refresh(['c', 'w']);
    expect(store.trips.slice(trips)).toEqual([
      [
        { key: 'c', windowEnd: T0 + WINDOW, count: 0 },
        { key: 'w', windowEnd: T0 + WINDOW, count: 0 },
      ],
    ]);
    expect((await counters.hit(['c'])).hits).toEqual([1]);
    expect((await counters.hit(['w'])).hits).toEqual([3]); // the other replica's 2, known since the refresh
    expect(store.trips).toHaveLength(trips + 1);
    await counters.refresh(['c', 'w']); // fresh: no round trip
    expect(store.trips).toHaveLength(trips + 1);
    await jest.advanceTimersByTimeAsync(FLUSH);
    expect(store.total('w', T0 + WINDOW)).toBe(3);
    other.close();
    counters.close();
  });

  it('counts exactly on one replica, whatever the interleaving with flushes', async () => {
    const store = sharedStore();
    const clock = { now: T0 };
    const counters = replica(store, clock);
    const seen: number[] = [];
    for (let i = 0; i < 50; i++) {
      seen.push(...(await Promise.all([counters.hit(['k']), counters.hit(['k'])])).flatMap((r) => r.hits));
      if (i % 7 === 0) await jest.advanceTimersByTimeAsync(FLUSH);
    }
    await counters.flush();
    expect(store.total('k', T0 + WINDOW)).toBe(100);
    expect(Math.max(...seen)).toBe(100);
    expect(new Set(seen).size).toBeGreaterThan(90); // counts go up one by one, not in jumps
    counters.close();
  });

  it("sees another replica's hits at the next round trip, and never later than the staleness bound", async () => {
    const store = sharedStore();
    const clock = { now: T0 };
    const a = replica(store, clock);
    const b = replica(store, clock);
    await a.hit(['t']); // a: 1 (synchronous)
    await b.hit(['t']); // b: 2 (synchronous: sees a's hit)
    for (let i = 0; i < 8; i++) await b.hit(['t']); // 10 in all, 8 of them only in b's memory
    await jest.advanceTimersByTimeAsync(FLUSH); // b flushes
    expect(store.total('t', T0 + WINDOW)).toBe(10);
    // a has not looked since its first hit: within the staleness bound it trusts its own view…
    clock.now += STALE - 1;
    expect((await a.hit(['t'])).hits).toEqual([2]);
    // …after it, it asks the store before answering.
    clock.now += 2;
    expect((await a.hit(['t'])).hits).toEqual([12]);
    a.close();
    b.close();
  });

  it('starts a new count in each window', async () => {
    const store = sharedStore();
    const clock = { now: T0 + WINDOW - 1 };
    const counters = replica(store, clock);
    await counters.hit(['w']);
    expect((await counters.hit(['w'])).hits).toEqual([2]);
    clock.now += 1;
    expect(await counters.hit(['w'])).toEqual({ hits: [1], resetMs: WINDOW });
    await counters.flush();
    expect(store.total('w', T0 + 2 * WINDOW)).toBe(1);
    // The ended window's last in-memory hit is never sent: it no longer limits anything.
    expect(store.total('w', T0 + WINDOW)).toBe(1);
    counters.close();
  });

  it('peeks at a count from memory: what the last round trip said plus the hits counted here since', async () => {
    const store = sharedStore();
    const clock = { now: T0 };
    const a = replica(store, clock);
    const b = replica(store, clock);
    expect(a.peek('p')).toEqual({ hits: 0, resetMs: WINDOW });
    for (let i = 0; i < 3; i++) await b.hit(['p']);
    await jest.advanceTimersByTimeAsync(FLUSH);
    expect(a.peek('p').hits).toBe(0); // no round trip for p yet: a has not seen b's hits
    await a.hit(['p']);
    const trips = store.trips.length;
    expect(a.peek('p').hits).toBe(4);
    expect(store.trips).toHaveLength(trips); // peeking costs no round trip
    clock.now = T0 + WINDOW;
    expect(a.peek('p')).toEqual({ hits: 0, resetMs: WINDOW }); // a new window
    a.close();
    b.close();
  });

  it('counts several keys in one round trip', async () => {
    const store = sharedStore();
    const counters = replica(store, { now: T0 });
    expect((await counters.hit(['client:x', 'write:x'])).hits).toEqual([1, 1]);
    expect(store.trips).toEqual([
      [
        { key: 'client:x', windowEnd: T0 + WINDOW, count: 1 },
        { key: 'write:x', windowEnd: T0 + WINDOW, count: 1 },
      ],
    ]);
    counters.close();
  });

  it('sends the keys that turn stale while a round trip is in flight together, in the next one', async () => {
    const store = sharedStore();
    let open = () => {};
    const gate = new Promise<void>((resolve) => (open = resolve));
    const counters = new SharedCounters(async (increments) => (await gate, store.persist(increments)), {
      windowMs: WINDOW,
      flushMs: FLUSH,
      maxStalenessMs: STALE,
      now: () => T0,
    });
    const first = counters.hit(['a']);
    await jest.advanceTimersByTimeAsync(0); // its round trip is in flight
    const hits = ['b', 'c', 'b'].map((key) => counters.hit([key]));
    open();
    expect((await Promise.all([first, ...hits])).map((r) => r.hits)).toEqual([[1], [2], [1], [2]]);
    expect(store.trips).toEqual([
      [{ key: 'a', windowEnd: T0 + WINDOW, count: 1 }],
      [
        { key: 'b', windowEnd: T0 + WINDOW, count: 2 },
        { key: 'c', windowEnd: T0 + WINDOW, count: 1 },
      ],
    ]);
    // A failed round trip fails its own hits only; the next stale key gets its round trip.
    store.fail(true);
    await expect(counters.hit(['d'])).rejects.toThrow('database unavailable');
    store.fail(false);
    expect((await counters.hit(['e'])).hits).toEqual([1]);
    counters.close();
  });

  it('fails a hit that needs the store while it is down, and keeps background hits until it is back', async () => {
    const store = sharedStore();
    const errors: unknown[] = [];
    const counters = replica(store, { now: T0 }, (e) => errors.push(e));
    await counters.hit(['d']);
    store.fail(true);
    await expect(counters.hit(['new-key'])).rejects.toThrow('database unavailable');
    await counters.hit(['d']); // counted in memory
    await jest.advanceTimersByTimeAsync(FLUSH);
    expect(errors.length).toBeGreaterThanOrEqual(1);
    store.fail(false);
    await jest.advanceTimersByTimeAsync(FLUSH);
    expect(store.total('d', T0 + WINDOW)).toBe(2);
    counters.close();
  });

  it('trusts its own total up to the staleness bound included', async () => {
    const store = sharedStore();
    const clock = { now: T0 };
    const counters = replica(store, clock);
    await counters.hit(['s']);
    clock.now += STALE;
    await counters.hit(['s']);
    expect(store.trips).toHaveLength(1);
    clock.now += 1;
    await counters.hit(['s']);
    expect(store.trips).toHaveLength(2);
    counters.close();
  });

  it('peeks at the hits counted here and not sent yet', async () => {
    const store = sharedStore();
    const counters = replica(store, { now: T0 });
    await counters.hit(['p']);
    await counters.hit(['p']);
    await counters.hit(['p']);
    expect(counters.peek('p').hits).toBe(3);
    counters.close();
  });

  it('keeps a timer only while hits wait to be sent: none after a round trip, one for any number of hits', async () => {
    const store = sharedStore();
    const clock = { now: T0 };
    const counters = replica(store, clock);
    await counters.hit(['a']);
    expect(jest.getTimerCount()).toBe(0);
    for (let i = 0; i < 3; i++) await counters.hit(['a']);
    expect(jest.getTimerCount()).toBe(1);
    await jest.advanceTimersByTimeAsync(FLUSH);
    expect(store.trips).toHaveLength(2);
    expect(jest.getTimerCount()).toBe(0);
    await jest.advanceTimersByTimeAsync(10 * FLUSH);
    expect(store.trips).toHaveLength(2);
    counters.close();
  });

  it('sends the hit of a fresh key counted with a key that needed a round trip', async () => {
    const store = sharedStore();
    const counters = replica(store, { now: T0 });
    await counters.hit(['fresh']);
    expect((await counters.hit(['fresh', 'new'])).hits).toEqual([2, 1]);
    await jest.advanceTimersByTimeAsync(FLUSH);
    expect(store.total('fresh', T0 + WINDOW)).toBe(2);
    expect(store.trips.at(-1)).toEqual([{ key: 'fresh', windowEnd: T0 + WINDOW, count: 1 }]);
    counters.close();
  });

  it('costs no round trip to flush when nothing waits', async () => {
    const store = sharedStore();
    const counters = replica(store, { now: T0 });
    await counters.flush();
    await counters.hit(['n']);
    await counters.flush();
    expect(store.trips).toHaveLength(1);
    counters.close();
  });

  it('stops its timer on close, and the timer never keeps the process alive', async () => {
    const setTimer = jest.spyOn(globalThis, 'setTimeout');
    try {
      const store = sharedStore();
      const counters = replica(store, { now: T0 });
      await counters.hit(['c']);
      await counters.hit(['c']);
      expect(setTimer).toHaveBeenCalledTimes(1);
      expect((setTimer.mock.results[0]!.value as NodeJS.Timeout).hasRef()).toBe(false);
      counters.close();
      expect(jest.getTimerCount()).toBe(0);
      await jest.advanceTimersByTimeAsync(10 * FLUSH);
      expect(store.trips).toHaveLength(1);
    } finally {
      setTimer.mockRestore();
    }
  });

  it('retries a failed background flush even without an error callback', async () => {
    const store = sharedStore();
    const counters = new SharedCounters(store.persist, { windowMs: WINDOW, flushMs: FLUSH, maxStalenessMs: STALE, now: () => T0 });
    await counters.hit(['r']);
    await counters.hit(['r']);
    store.fail(true);
    await jest.advanceTimersByTimeAsync(FLUSH);
    store.fail(false);
    await jest.advanceTimersByTimeAsync(FLUSH);
    expect(store.total('r', T0 + WINDOW)).toBe(2);
    counters.close();
  });

  describe('forgetting the counters of ended windows', () => {
    it("drops an ended window's unsent hits at the first hit from one window after the last sweep, keeping the current window's", async () => {
      const store = sharedStore();
      const clock = { now: T0 + 100 }; // first sweep here: the next one is due at T0 + WINDOW + 100
      const counters = replica(store, clock);
      await counters.hit(['x']);
      await counters.hit(['x']); // pending, in the window ending at T0 + WINDOW
      clock.now = T0 + WINDOW + 50;
      await counters.hit(['z']);
      await counters.hit(['z']); // pending, in the current window
      clock.now = T0 + WINDOW + 100; // a sweep is due: x's window has ended, z's has not
      await counters.hit(['y']);
      await counters.flush();
      expect(store.total('x', T0 + WINDOW)).toBe(1);
      expect(store.total('z', T0 + 2 * WINDOW)).toBe(2);
      counters.close();
    });

    it('forgets a window the moment it ends', async () => {
      const store = sharedStore();
      const clock = { now: T0 }; // first sweep here: the next one is due at T0 + WINDOW, when x's window ends
      const counters = replica(store, clock);
      await counters.hit(['x']);
      await counters.hit(['x']);
      clock.now = T0 + WINDOW;
      await counters.hit(['y']);
      await counters.flush();
      expect(store.total('x', T0 + WINDOW)).toBe(1);
      counters.close();
    });

    it('sweeps once per window at most: an ended window may linger (and be sent) until then', async () => {
      const store = sharedStore();
      const clock = { now: T0 + WINDOW - 10 }; // the next sweep is due at T0 + 2 * WINDOW - 10
      const counters = replica(store, clock);
      await counters.hit(['x']);
      await counters.hit(['x']);
      clock.now = T0 + WINDOW + 5;
      await counters.hit(['y']);
      await counters.flush();
      expect(store.total('x', T0 + WINDOW)).toBe(2);
      counters.close();
    });
  });

  describe('hitIfFresh (a hit counted at once, or not at all)', () => {
    it('counts nothing for a key this replica has no total for, nor for one whose total is stale or being fetched', async () => {
      const store = sharedStore();
      const clock = { now: T0 + 1_000 };
      const counters = replica(store, clock);
      expect(counters.hitIfFresh('a', 10)).toBeUndefined();
      expect(counters.peek('a').hits).toBe(0);
      await counters.hit(['a']);
      clock.now += STALE;
      expect(counters.hitIfFresh('a', 10)).toEqual({ hits: 2, resetMs: WINDOW - 2_000 });
      clock.now += 1;
      // Stale by 1 ms: not counted.
      expect(counters.hitIfFresh('a', 10)).toBeUndefined();
      expect(counters.peek('a').hits).toBe(2);
      // A round trip in flight: not counted either, then counted once it is done.
      const pending = counters.hit(['a']);
      expect(counters.hitIfFresh('a', 10)).toBeUndefined();
      await pending;
      expect(counters.hitIfFresh('a', 10)?.hits).toBe(4);
      counters.close();
    });

    it('counts while a background flush of the key is in flight (its total fresh), and sends that hit with the next flush', async () => {
      const store = sharedStore();
      let release: (() => void) | undefined;
      const gated = async (increments: Increment[]) => {
        if (increments.some((i) => i.count > 0)) await new Promise<void>((resolve) => (release = resolve));
        return store.persist(increments);
      };
      const clock = { now: T0 + 1_000 };
      const counters = new SharedCounters(gated, { windowMs: WINDOW, flushMs: FLUSH, maxStalenessMs: STALE, now: () => clock.now });
      await counters.refresh(['a']);
      expect(counters.hitIfFresh('a', 10)?.hits).toBe(1);
      // The timer sends that hit; its round trip waits for `release`, and the total is still fresh.
      await jest.advanceTimersByTimeAsync(FLUSH);
      expect(release).toBeDefined();
      const first = release!;
      expect(counters.hitIfFresh('a', 10)?.hits).toBe(2);
      first();
      await jest.advanceTimersByTimeAsync(0);
      // The flush sent the hit pending when it started; the one counted meanwhile is still pending here.
      expect(store.total('a', T0 + WINDOW)).toBe(1);
      expect(counters.peek('a').hits).toBe(2);
      await jest.advanceTimersByTimeAsync(FLUSH);
      release!();
      await jest.advanceTimersByTimeAsync(0);
      expect(store.total('a', T0 + WINDOW)).toBe(2);
      expect(counters.hitIfFresh('a', 10)?.hits).toBe(3);
      counters.close();
    });

    it('counts up to the limit included, and never past it', async () => {
      const store = sharedStore();
      const clock = { now: T0 + 1_000 };
      const counters = replica(store, clock);
      await counters.hit(['a']);
      expect(counters.hitIfFresh('a', 3)?.hits).toBe(2);
      expect(counters.hitIfFresh('a', 3)?.hits).toBe(3);
      expect(counters.hitIfFresh('a', 3)).toBeUndefined();
      expect(counters.peek('a').hits).toBe(3);
      counters.close();
    });

    it('counts nothing in a new window until a round trip of that window, and sends what it counted', async () => {
      const store = sharedStore();
      const clock = { now: T0 + WINDOW - 500 };
      const counters = replica(store, clock);
      await counters.hit(['a']);
      expect(counters.hitIfFresh('a', 10)).toEqual({ hits: 2, resetMs: 500 });
      await jest.advanceTimersByTimeAsync(FLUSH);
      expect(store.total('a', T0 + WINDOW)).toBe(2);
      clock.now = T0 + WINDOW;
      expect(counters.hitIfFresh('a', 10)).toBeUndefined();
      counters.close();
    });
  });
});
