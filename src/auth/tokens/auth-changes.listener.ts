import { randomUUID } from 'node:crypto';
import { type BeforeApplicationShutdown, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import pg from 'pg';
import type { DataSource } from 'typeorm';
import { AuthenticationCache } from './authentication-cache.js';

/** The channel of migration AuthChangeNotifications: a client's id, or '*' for everyone. */
export const AUTH_CHANGED_CHANNEL = 'epr_auth_changed';
/** What the listening connection calls itself in pg_stat_activity. */
export const LISTENER_APPLICATION_NAME = 'epr-declarations-auth-listener';
const RETRY_MS = { first: 500, max: 30_000 };
/** How long the probe notification may take to come back before listening is judged not to work. */
const PROBE_MS = 5_000;
/** Payloads of the probes (a client id never contains ':'). */
const PROBE_PREFIX = 'probe:';

/**
 * One connection of its own LISTENing to PostgreSQL's announcements of changes to tokens and accounts,
 * for the AuthenticationCache, which is on only while it listens (off and empty meanwhile; retried with
 * backoff). Each start sends a probe through the app's pool and turns the cache on only when the probe
 * comes back here: PGlite (embedded, or a pglite-socket server as DATABASE_URL) serves every connection
 * from one session, so it never does. Without DATABASE_URL nothing is tried.
 */
@Injectable()
export class AuthChangesListener implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(AuthChangesListener.name);
  private client: pg.Client | undefined;
  private retry: NodeJS.Timeout | undefined;
  private retryMs = RETRY_MS.first;
  private stopped = false;
  private readonly probes = new Map<string, () => void>();

  constructor(
    private readonly cache: AuthenticationCache,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const url = (this.dataSource.options as { url?: string }).url;
    if (url === undefined) return;
    // In the background: requests are served meanwhile, reading the database.
    void this.listen(url);
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retry);
    const client = this.client;
    this.lost(client);
    await client?.end().catch(() => undefined);
  }

  private async listen(url: string): Promise<void> {
    const client = new pg.Client({
      connectionString: url,
      application_name: LISTENER_APPLICATION_NAME,
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
    });
    client.on('notification', (message) => {
      const payload = message.payload ?? '*';
      if (payload.startsWith(PROBE_PREFIX)) this.probes.get(payload)?.();
      else this.cache.changed(payload);
    });
    client.on('error', (error) => {
      this.logger.warn(`authentication cache off: its notifications connection failed (${error.message}); retrying`);
      this.lost(client, url);
    });
    client.on('end', () => this.lost(client, url));
    try {
      await client.connect();
      await client.query(`LISTEN ${AUTH_CHANGED_CHANNEL}`);
      await this.probe();
    } catch (error) {
      // Once per failure in a row: a database that cannot notify would otherwise say it every 30 s.
      if (!this.stopped && this.retryMs === RETRY_MS.first) {
        this.logger.warn(
          `authentication cache off: cannot listen for changes (${error instanceof Error ? error.message : String(error)}); retrying`,
        );
      }
      client.end().catch(() => undefined);
      this.schedule(url);
      return;
    }
    if (this.stopped) {
      await client.end().catch(() => undefined);
      return;
    }
    this.client = client;
    this.retryMs = RETRY_MS.first;
    this.cache.listening(true);
  }

  /** Sends a notification through the app's pool and waits for it on the listening connection. */
  private async probe(): Promise<void> {
    const payload = `${PROBE_PREFIX}${randomUUID()}`;
    let timer: NodeJS.Timeout | undefined;
    const back = new Promise<void>((resolve) => this.probes.set(payload, resolve));
    try {
      await this.dataSource.query(`SELECT pg_notify($1, $2)`, [AUTH_CHANGED_CHANNEL, payload]);
      // The wait starts once the notification is sent, and its timeout rejects only what is awaited:
      // a timeout that fired while a busy database held the pg_notify back was a rejection nobody
      // handled, and it stopped the process.
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`a notification sent through the pool did not reach this connection within ${PROBE_MS} ms`)),
          PROBE_MS,
        ).unref();
      });
      await Promise.race([back, late]);
    } finally {
      clearTimeout(timer);
      this.probes.delete(payload);
    }
  }

  /** The listening connection is gone (or going): the cache empties and stays off until a new one listens. */
  private lost(client: pg.Client | undefined, url?: string): void {
    if (client === undefined || client !== this.client) return;
    this.client = undefined;
    this.cache.listening(false);
    if (url !== undefined) this.schedule(url);
  }

  private schedule(url: string): void {
    if (this.stopped || this.retry !== undefined) return;
    this.retry = setTimeout(() => {
      this.retry = undefined;
      void this.listen(url);
    }, this.retryMs);
    this.retry.unref();
    this.retryMs = Math.min(this.retryMs * 2, RETRY_MS.max);
  }
}
