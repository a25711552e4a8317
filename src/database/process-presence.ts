import { randomBytes } from 'node:crypto';
import { Global, Injectable, Logger, Module, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import pg from 'pg';
import type { DataSource } from 'typeorm';

/** What the presence connection calls itself in pg_stat_activity. */
export const PRESENCE_APPLICATION_NAME = 'epr-declarations-presence';
const RETRY_MS = { first: 500, max: 30_000 };

/**
 * Takes an advisory lock on a new random key (a positive bigint, as text) for the session of `query`.
 * A key some session already holds (a one-in-2^63 chance) is not waited for: another is drawn.
 */
async function lockNewKey(query: (sql: string, values: unknown[]) => Promise<{ locked: boolean }[]>): Promise<string> {
  for (;;) {
    const key = (randomBytes(8).readBigUInt64BE() >> 1n).toString();
    const [row] = await query('SELECT pg_try_advisory_lock($1) AS locked', [key]);
    if (row?.locked) return key;
  }
}

/**
 * SQL that is true when no session holds the advisory lock `key` (a bigint expression, the key of a
 * ProcessPresence): the process it stood for is gone. pg_locks shows a bigint key's high half as
 * `classid`, its low half as `objid`, with `objsubid` 1.
 */
export function presenceGone(key: string): string {
  return `NOT EXISTS (SELECT 1 FROM pg_locks l WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
            AND l.classid = (${key} >> 32)::oid AND l.objid = (${key} & 4294967295)::oid)`;
}

/**
 * This process's presence in PostgreSQL, so that rows it leaves behind (Idempotency-Key claims) can be
 * told from a dead process's: a session-level advisory lock on a random key, held on a connection of
 * its own for the process's life. PostgreSQL frees it as soon as that connection closes, which the
 * kernel does when the process ends, even killed. A lost connection is replaced under a new key: what
 * the old one vouched for may have died with it. On the embedded database (no DATABASE_URL) every
 * connection is the one session of this process's PGlite: the lock is taken through the pool and
 * held until the process ends, and a previous process's keys are free.
 */
@Injectable()
export class ProcessPresence implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(ProcessPresence.name);
  private held: string | undefined;
  private client: pg.Client | undefined;
  private retry: NodeJS.Timeout | undefined;
  private retryMs = RETRY_MS.first;
  private stopped = false;

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** The key this process holds now; undefined while it holds none (connecting again). */
  get key(): string | undefined {
    return this.held;
  }

  async onApplicationBootstrap(): Promise<void> {
    const url = (this.dataSource.options as { url?: string }).url;
    if (url !== undefined) return this.connect(url);
    this.held = await lockNewKey((sql, values) => this.dataSource.query(sql, values));
  }

  // After the HTTP server has drained (src/edge/graceful-shutdown.ts): no request's claim outlives it.
  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retry);
    this.held = undefined;
    await this.client?.end().catch(() => undefined);
  }

  private async connect(url: string): Promise<void> {
    const client = new pg.Client({
      connectionString: url,
      application_name: PRESENCE_APPLICATION_NAME,
      connectionTimeoutMillis: 5_000,
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
    });
    const lost = () => {
      if (this.client !== client) return;
      this.client = undefined;
      this.held = undefined;
      this.schedule(url);
    };
    client.on('error', (error) => {
      this.logger.warn(`presence connection lost (${error.message}); connecting again`);
      lost();
    });
    client.on('end', lost);
    try {
      await client.connect();
      const key = await lockNewKey(async (sql, values) => (await client.query<{ locked: boolean }>(sql, values)).rows);
      if (this.stopped) throw new Error('stopped');
      this.client = client;
      this.held = key;
      this.retryMs = RETRY_MS.first;
    } catch (error) {
      if (!this.stopped)
        this.logger.warn(`presence: cannot hold a lock (${error instanceof Error ? error.message : String(error)}); retrying`);
      await client.end().catch(() => undefined);
      this.schedule(url);
    }
  }

  private schedule(url: string): void {
    if (this.stopped || this.retry !== undefined) return;
    this.retry = setTimeout(() => {
      this.retry = undefined;
      void this.connect(url);
    }, this.retryMs);
    this.retry.unref();
    this.retryMs = Math.min(this.retryMs * 2, RETRY_MS.max);
  }
}

/** One presence for the app. */
@Global()
@Module({ providers: [ProcessPresence], exports: [ProcessPresence] })
export class ProcessPresenceModule {}
