import { Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';

/**
 * Fixed-window counters in PostgreSQL: one upsert per limited request. The table is UNLOGGED
 * (losing counters in a crash is harmless); ended windows are swept once a minute per replica.
 */
@Injectable()
export class PostgresRateLimitStore {
  private readonly logger = new Logger(PostgresRateLimitStore.name);
  private lastSweep = 0;

  constructor(private readonly dataSource: DataSource) {}

  async hit(key: string, windowMs: number): Promise<{ hits: number; secondsLeft: number }> {
    const [row] = (await this.dataSource.query(
      `INSERT INTO rate_limit_counters (key, window_end, hits)
       VALUES ($1, to_timestamp(ceil(extract(epoch FROM clock_timestamp()) * 1000 / $2) * $2 / 1000.0), 1)
       ON CONFLICT (key, window_end) DO UPDATE SET hits = rate_limit_counters.hits + 1
       RETURNING hits, ceil(extract(epoch FROM window_end - clock_timestamp()))::int AS seconds_left`,
      [key, windowMs],
    )) as { hits: number; seconds_left: number }[];
    this.sweep();
    return { hits: row!.hits, secondsLeft: Math.max(1, row!.seconds_left) };
  }

  private sweep(): void {
    const now = Date.now();
    if (now - this.lastSweep < 60_000) return;
    this.lastSweep = now;
    this.dataSource
      .query(`DELETE FROM rate_limit_counters WHERE window_end < now() - interval '1 minute'`)
      .catch((error: unknown) => this.logger.warn(`rate limit sweep failed: ${String(error)}`));
  }
}
