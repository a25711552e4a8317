import { type BeforeApplicationShutdown, Injectable, Logger } from '@nestjs/common';
import { ClientTokensRepository } from './client-tokens.repository.js';

/** `last_used_at` is written at most once per token per minute (per process; the SQL guards across replicas). */
export const LAST_USED_RESOLUTION_MS = 60_000;
/** Bound on the in-process map of recorded uses; the oldest entries are dropped first. */
const MAX_TRACKED_TOKENS = 10_000;
/** Uses of tokens are written together, at most this long after the first of them. */
const USE_FLUSH_MS = 100;

/**
 * Records when each client token was last used. At most one write per token per minute from this
 * process, and the SQL keeps other replicas from writing more often than that too. Fire-and-forget
 * and batched: the response never waits, the uses noted in the last USE_FLUSH_MS go out as one
 * UPDATE (not one round trip on the pool per token, which under a burst of first requests competed
 * with the requests themselves), and a failure is only logged (with the token ids, never the tokens).
 */
@Injectable()
export class TokenUseRecorder implements BeforeApplicationShutdown {
  private readonly logger = new Logger(TokenUseRecorder.name);
  /** Use records still being written (the app waits for them before closing its connections). */
  private readonly writing = new Set<Promise<unknown>>();
  /** Token id → when this process last recorded its use (ms since epoch). */
  private readonly lastRecorded = new Map<string, number>();
  /** Uses noted and not written yet, and the timer that writes them. */
  private readonly usedSince = new Set<string>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly tokens: ClientTokensRepository) {}

  record(tokenId: string): void {
    const now = Date.now();
    const last = this.lastRecorded.get(tokenId);
    if (last !== undefined && now - last < LAST_USED_RESOLUTION_MS) return;
    this.lastRecorded.delete(tokenId);
    this.lastRecorded.set(tokenId, now);
    if (this.lastRecorded.size > MAX_TRACKED_TOKENS) {
      const oldest = this.lastRecorded.keys().next().value;
      if (oldest !== undefined) this.lastRecorded.delete(oldest);
    }
    this.usedSince.add(tokenId);
    this.timer ??= setTimeout(() => this.flush(), USE_FLUSH_MS).unref();
  }

  private flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.usedSince.size === 0) return;
    const ids = [...this.usedSince];
    this.usedSince.clear();
    const write = this.tokens.markUsed(ids).catch((error: unknown) => {
      this.logger.warn(
        { token_ids: ids.slice(0, 20), err: error instanceof Error ? error.message : String(error) },
        'could not record last_used_at',
      );
    });
    this.writing.add(write);
    void write.finally(() => this.writing.delete(write));
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.flush();
    await Promise.allSettled([...this.writing]);
  }
}
