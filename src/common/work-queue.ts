/**
 * Runs at most `limit` pieces of work at once; the others wait their turn, in the order they came.
 * Nothing is refused: a request in the queue is answered later, not with a 503. For work done on the
 * one thread that holds much memory while it runs (a file read, checked and rendered): running more
 * of it at once adds memory, not throughput.
 */
export class WorkQueue {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly limit: number) {}

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.running < this.limit) this.running++;
    // The slot is handed over by the work that ends (`running` unchanged), so that none can overtake.
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    try {
      return await work();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }

  /** Work running and waiting (for tests and diagnostics). */
  get size(): { running: number; waiting: number } {
    return { running: this.running, waiting: this.waiting.length };
  }
}
