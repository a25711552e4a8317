import { mkdtemp, rm } from 'node:fs/promises';
import type net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { EmbeddedPostgres } from '../../src/database/embedded-postgres.js';
import { createTestDatabase, quietPool } from './test-app.js';

/**
 * A PostgreSQL that apps in other processes reach over TCP or a unix socket: a fresh database on
 * the server (DATABASE_URL) or an embedded one started by the test itself.
 */
export interface BackingDatabase {
  /** Where a TCP proxy forwards to. */
  target: net.NetConnectOpts;
  /** DATABASE_URL for an app connecting directly. */
  url: string;
  /** DATABASE_URL for an app connecting through a local TCP port (a proxy). */
  urlVia(port: number): string;
  pool: pg.Pool;
  close(): Promise<void>;
}

export async function startBackingDatabase(): Promise<BackingDatabase> {
  const server = await createTestDatabase();
  if (server.url) {
    const url = new URL(server.url);
    return {
      target: { host: url.hostname, port: Number(url.port || 5432) },
      url: server.url,
      urlVia: (port) => Object.assign(new URL(server.url!), { host: `127.0.0.1:${port}` }).toString(),
      pool: server.pool,
      close: () => server.close(),
    };
  }
  await server.close();
  const dir = await mkdtemp(path.join(tmpdir(), 'epr-backing-'));
  const embedded = await EmbeddedPostgres.start(dir, 40);
  const { host, port } = embedded.connection;
  const pool = quietPool(new pg.Pool({ host, port, user: 'postgres', database: 'postgres', max: 2 }));
  return {
    target: { path: path.join(host, `.s.PGSQL.${port}`) },
    url: `postgres://postgres@localhost/postgres?host=${encodeURIComponent(host)}`,
    urlVia: (proxyPort) => `postgres://postgres@127.0.0.1:${proxyPort}/postgres`,
    pool,
    async close() {
      await pool.end();
      await embedded.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
