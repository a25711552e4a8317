import { chmod, mkdir, readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import type { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { StartupError } from '../common/startup.js';
import { DataDirInUseError, lockDataDir } from './data-dir-lock.js';
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
    await mkdir(dir, { recursive: true, mode: 0o700 });
    await chmod(dir, 0o700);
    let release: () => Promise<void>;
    try {
      release = await lockDataDir(path.join(dir, 'lock'));
    } catch (error) {
      if (error instanceof DataDirInUseError) {
        throw new StartupError(
          `DATA_DIR ${dir} is already in use by another process (embedded database): stop it or choose another DATA_DIR.`,
          { cause: error },
        );
      }
      throw error;
    }
    try {
      // We hold the lock: a socket file left by a killed process is stale.
      await rm(socketPath, { force: true });
      // Earlier versions left the files as PGlite makes them (0666, whatever the umask).
      await makePrivate(dir);
      // Loaded here, not with the module: a service on a PostgreSQL server never needs PGlite.
      const [{ PGlite }, { PGLiteSocketServer }] = await Promise.all([
        import('@electric-sql/pglite'),
        import('@electric-sql/pglite-socket'),
      ]);
      const db = await PGlite.create({ dataDir: path.join(dir, 'pgdata') });
      await makePrivate(dir);
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
    await makePrivate(this.socketDir);
    await this.release();
  }
}

/**
 * DATA_DIR is 0700 and everything in it 0600 (directories 0700): clients' data and token hashes are
 * for this service's user only. PGlite creates its files 0666; the directory's mode is what keeps
 * files it creates while running private, and every start and stop tightens them again.
 */
export async function makePrivate(dir: string): Promise<void> {
  await chmod(dir, 0o700);
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    const target = path.join(entry.parentPath, entry.name);
    if (entry.isDirectory()) await chmod(target, 0o700);
    else if (entry.isFile()) await chmod(target, 0o600);
  }
}
