/**
 * Reads by key, one round trip in flight at a time: the keys asked for while one is in flight go
 * together in the next. A burst of N first requests costs a few round trips instead of N (and N of
 * the pool's connections); a key alone costs one, as before; a lookup waits for at most two.
 */
export class BatchedLookup<V> {
  /** The keys of the next round trip, and its answer. */
  private waiting: { keys: Set<string>; answer: Promise<Map<string, V>> } | undefined;
  /** The last round trip, settled or not (the next starts when it has). */
  private lane: Promise<unknown> = Promise.resolve();

  /** `read` answers the rows of the keys found, by key. */
  constructor(private readonly read: (keys: string[]) => Promise<Map<string, V>>) {}

  async get(key: string): Promise<V | undefined> {
    if (this.waiting === undefined) {
      const keys = new Set<string>();
      const answer = this.lane.then(() => {
        this.waiting = undefined;
        return this.read([...keys]);
      });
      this.lane = answer.catch(() => {});
      this.waiting = { keys, answer };
    }
    this.waiting.keys.add(key);
    return (await this.waiting.answer).get(key);
  }
}
