import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import lockfile from 'proper-lockfile';
import { StartupError } from '../common/startup.js';
import { withProtocolAffinity } from './pglite-protocol-affinity.js';

/** Port number only names the socket file (`.s.PGSQL.<port>`), as PostgreSQL does. */
const SOCKET_PORT = 5432;
/** Longest unix socket path Linux accepts (sun_path is 108 bytes with its NUL). */
const MAX_SOCKET_PATH = 107;

/**
 * PostgreSQL in-process (PGlite, WASM), persisted in `dataDir/pgdata` and served to the
 * ordinary `pg` driver on a unix socket inside `dataDir`. A lock on `dataDir` keeps a
 * second process from opening (and corrupting) the same files.
 */
export class EmbeddedPostgres {
  private constructor(
    readonly socketDir: string,
    private readonly db: PGlite,
    private readonly server: PGLiteSocketServer,
    private readonly release: () => Promise<void>,
  ) {}

  /** Connection settings for `pg` (a host starting with `/` is a socket directory). */
  get connection() {
    return { host: this.socketDir, port: SOCKET_PORT, username: 'postgres', database: 'postgres' };
  }

  static async start(dataDir: string, maxConnections: number): Promise<EmbeddedPostgres> {
    const dir = path.resolve(dataDir);
    const socketPath = path.join(dir, `.s.PGSQL.${SOCKET_PORT}`);
    if (socketPath.length > MAX_SOCKET_PATH) {
      throw new StartupError(`DATA_DIR is too long for a unix socket path (${socketPath.length} > ${MAX_SOCKET_PATH} characters): ${dir}`);
    }
    await mkdir(dir, { recursive: true });
    let release: () => Promise<void>;
    try {
      release = await lockfile.lock(dir, { lockfilePath: path.join(dir, 'lock'), stale: 15_000, update: 5_000, retries: 0 });
    } catch (error) {
      if ((error as { code?: string }).code === 'ELOCKED') {
        throw new StartupError(`DATA_DIR ${dir} is already in use by another process (embedded database): stop it or choose another DATA_DIR.`, { cause: error });
      }
      throw error;
    }
    try {
      // We hold the lock: a socket file left by a killed process is stale.
      await rm(socketPath, { force: true });
      const db = await PGlite.create({ dataDir: path.join(dir, 'pgdata') });
      const server = new PGLiteSocketServer({ db: withProtocolAffinity(db), path: socketPath, maxConnections });
      await server.start();
      return new EmbeddedPostgres(dir, db, server, release);
    } catch (error) {
      await release();
      throw error;
    }
  }

  async stop(): Promise<void> {
    await this.server.stop();
    await this.db.close();
    await this.release();
  }
}
