import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { constants } from 'node:fs';
import { access, mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { pgDump } from '@electric-sql/pglite-tools/pg_dump';
import pg from 'pg';
import { DataDirInUseError, lockDataDir } from './data-dir-lock.js';
import { makePrivate } from './embedded-postgres.js';

/**
 * Backup and restore, in PostgreSQL's plain SQL format (pg_dump's), which `psql` restores on a server:
 * the embedded database under DATA_DIR (pg_dump compiled to WASM, @electric-sql/pglite-tools) and a
 * PostgreSQL server (the server's own pg_dump and psql). Commands: `npm run db:backup -- FILE`,
 * `npm run db:restore -- FILE [--force]` (backup-command.ts).
 */

/** A refusal or failure with a message that says what to do; the command prints it without a stack. */
export class BackupError extends Error {
  override name = 'BackupError';
}

/** Tables outside PostgreSQL's own schemas: a database that holds one is not empty. */
const USER_TABLES = `SELECT count(*)::int AS n FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace s ON s.oid = c.relnamespace
  WHERE c.relkind IN ('r', 'p') AND s.nspname NOT IN ('pg_catalog', 'information_schema') AND s.nspname NOT LIKE 'pg\\_%'`;

/**
 * pg_dump 17 and later write `SET transaction_timeout = 0;`, a setting PostgreSQL 16 and earlier do not
 * know (psql with ON_ERROR_STOP stops there). Written so that every version runs it.
 */
const TRANSACTION_TIMEOUT = /^SET transaction_timeout = 0;$/m;
const TRANSACTION_TIMEOUT_ANY_VERSION =
  "SELECT pg_catalog.set_config('transaction_timeout', '0', false) WHERE current_setting('server_version_num')::int >= 170000;";

async function exists(file: string): Promise<boolean> {
  return access(file, constants.F_OK).then(
    () => true,
    () => false,
  );
}

/** Written beside, then renamed: a backup file is whole or absent; readable by its owner only. */
async function writeWhole(file: string, content: string): Promise<void> {
  const partial = `${file}.partial`;
  await writeFile(partial, content, { mode: 0o600 });
  await rename(partial, file);
}

async function refuseExisting(file: string): Promise<void> {
  if (await exists(file)) throw new BackupError(`${file} already exists: choose a new file name (a backup never overwrites a file).`);
}

/** The embedded database's lock, or a refusal saying to stop the service that holds it. */
async function lockEmbedded(dir: string, what: 'backup' | 'restore'): Promise<() => Promise<void>> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  try {
    return await lockDataDir(path.join(dir, 'lock'));
  } catch (error) {
    if (!(error instanceof DataDirInUseError)) throw error;
    throw new BackupError(
      `DATA_DIR ${dir} is in use by a running service (${error.message}). The embedded database serves one process at a time: ` +
        `stop the service (SIGTERM: it finishes the requests in flight), run the ${what}, then start it again.`,
    );
  }
}

/** Opens the embedded database, runs `work`, closes it and tightens the files' modes, holding DATA_DIR's lock throughout. */
async function withEmbedded<T>(dataDir: string, what: 'backup' | 'restore', work: (dir: string) => Promise<T>): Promise<T> {
  const dir = path.resolve(dataDir);
  const release = await lockEmbedded(dir, what);
  try {
    return await work(dir);
  } finally {
    await makePrivate(dir).catch(() => {});
    await release();
  }
}

async function countTables(db: PGlite): Promise<number> {
  return (await db.query<{ n: number }>(USER_TABLES)).rows[0]!.n;
}

/** A plain SQL dump of the embedded database under `dataDir` into `file` (the service must be stopped). */
export async function backupEmbedded(dataDir: string, file: string): Promise<{ bytes: number; tables: number }> {
  await refuseExisting(file);
  return withEmbedded(dataDir, 'backup', async (dir) => {
    const pgdata = path.join(dir, 'pgdata');
    if (!(await exists(pgdata))) throw new BackupError(`DATA_DIR ${dir} holds no embedded database (no ${pgdata}): nothing to back up.`);
    const db = await PGlite.create({ dataDir: pgdata });
    try {
      const tables = await countTables(db);
      // --inserts is added by pgDump (a dump PGlite can run back); no owner or grants: the server's user owns what it restores.
      const dump = await pgDump({ pg: db, args: ['--no-owner', '--no-privileges'] });
      const sql = (await dump.text()).replace(TRANSACTION_TIMEOUT, TRANSACTION_TIMEOUT_ANY_VERSION);
      await writeWhole(file, sql);
      return { bytes: Buffer.byteLength(sql), tables };
    } finally {
      await db.close();
    }
  });
}

/**
 * Restores a plain SQL dump into the embedded database under `dataDir`, in one transaction. An
 * existing database with tables is refused unless `force`, which moves it aside (kept, never deleted).
 */
export async function restoreEmbedded(dataDir: string, file: string, force: boolean): Promise<{ tables: number; movedAside?: string }> {
  const sql = await readFile(file, 'utf8');
  if (/^COPY .* FROM stdin;$/m.test(sql)) {
    throw new BackupError(
      `${file} holds COPY … FROM stdin blocks, which only psql can run: make the dump with \`pg_dump --inserts\` to restore it into the embedded database.`,
    );
  }
  return withEmbedded(dataDir, 'restore', async (dir) => {
    const pgdata = path.join(dir, 'pgdata');
    let movedAside: string | undefined;
    if (await exists(pgdata)) {
      const current = await PGlite.create({ dataDir: pgdata });
      const tables = await countTables(current).finally(() => current.close());
      if (tables > 0 && !force) {
        throw new BackupError(
          `DATA_DIR ${dir} already holds a database (${tables} tables): restore into an empty DATA_DIR, or add --force to move the current database aside (kept as pgdata.before-restore-…) and restore in its place.`,
        );
      }
      if (tables > 0) {
        movedAside = path.join(dir, `pgdata.before-restore-${new Date().toISOString().replace(/[:.]/g, '-')}`);
        await rename(pgdata, movedAside);
      } else {
        await rm(pgdata, { recursive: true, force: true });
      }
    }
    try {
      const db = await PGlite.create({ dataDir: pgdata });
      try {
        // One simple query: PostgreSQL runs its statements as one transaction, all or nothing.
        await db.exec(sql);
        return { tables: await countTables(db), movedAside };
      } finally {
        await db.close();
      }
    } catch (error) {
      await rm(pgdata, { recursive: true, force: true });
      if (movedAside) await rename(movedAside, pgdata);
      throw new BackupError(`the restore failed and changed nothing: ${error instanceof Error ? error.message : String(error)}`);
    }
  });
}

/** libpq's arguments for a URL: the URL without its password (visible to `ps`), the password in PGPASSWORD. */
function libpqTarget(databaseUrl: string): { dbname: string; password: string | undefined } {
  const url = new URL(databaseUrl);
  const password = url.password ? decodeURIComponent(url.password) : undefined;
  url.password = '';
  return { dbname: url.toString(), password };
}

/** Runs one of PostgreSQL's client programs; a missing program or a failure says what to do. */
async function runClientProgram(program: 'pg_dump' | 'psql', args: string[], password: string | undefined): Promise<void> {
  const child = spawn(program, args, {
    // eslint-disable-next-line no-restricted-properties -- the child gets this process's environment, plus the password
    env: { ...process.env, ...(password === undefined ? {} : { PGPASSWORD: password }) },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const [result] = (await Promise.race([once(child, 'exit'), once(child, 'error')])) as [number | Error | null];
  if (result instanceof Error) {
    throw new BackupError(
      `${program} was not found (${result.message}): install PostgreSQL's client programs in the server's version (Debian: apt-get install postgresql-client).`,
    );
  }
  if (result !== 0) throw new BackupError(`${program} failed (exit code ${result}); its message is above.`);
}

/** `pg_dump` of the server database into `file` (plain SQL, no owner or grants). */
export async function backupServer(databaseUrl: string, file: string): Promise<{ bytes: number }> {
  await refuseExisting(file);
  const { dbname, password } = libpqTarget(databaseUrl);
  const partial = `${file}.partial`;
  await runClientProgram('pg_dump', ['--no-owner', '--no-privileges', '--file', partial, '--dbname', dbname], password);
  await rename(partial, file);
  return { bytes: (await stat(file)).size };
}

/** `psql` of a plain SQL dump into the server database, in one transaction; a database with tables is refused. */
export async function restoreServer(databaseUrl: string, file: string): Promise<void> {
  await access(file, constants.R_OK).catch(() => {
    throw new BackupError(`${file} cannot be read.`);
  });
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const tables = await client
    .query<{ n: number }>(USER_TABLES)
    .then((r) => r.rows[0]!.n)
    .finally(() => client.end());
  if (tables > 0) {
    throw new BackupError(
      `the database of DATABASE_URL already holds ${tables} tables: restore into an empty database (createdb, then point DATABASE_URL at it). ` +
        'This command never deletes a server’s data; empty it yourself if that is what you mean.',
    );
  }
  const { dbname, password } = libpqTarget(databaseUrl);
  await runClientProgram('psql', ['-X', '-q', '-v', 'ON_ERROR_STOP=1', '--single-transaction', '-f', file, '--dbname', dbname], password);
}
