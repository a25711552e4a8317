import 'reflect-metadata';
import { createHash, randomBytes } from 'node:crypto';
import { cp, mkdtemp, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Writable } from 'node:stream';
import type { NestExpressApplication } from '@nestjs/platform-express';
import pg from 'pg';
import { DataSource } from 'typeorm';
import { type AppOptions, createApp, openDatabase, type Database } from '../../src/app.factory.js';
import { type AppConfig, loadConfig } from '../../src/config/config.js';
import { databaseOptions, type DatabaseConnection } from '../../src/database/database-options.js';
import { EmbeddedPostgres } from '../../src/database/embedded-postgres.js';
import { REPO_ROOT } from '../../src/common/repo-root.js';

/** Base URL of the PostgreSQL server for the run, if any (else every test app gets an embedded one). */
export const SERVER_DATABASE_URL = process.env.DATABASE_URL || undefined;

export const ADMIN_TOKEN = 'test-admin-token-0123456789abcdefghijklmnop';

export interface TestDatabase {
  connection: DatabaseConnection;
  /** For assertions straight against the tables. */
  pool: pg.Pool;
  /** Set only for an embedded database: where it lives. */
  dataDir?: string;
  url?: string;
  close(): Promise<void>;
}

/**
 * A test's own pool: an idle connection that the server terminates (a database dropped WITH
 * (FORCE) at the end of a file, a backend killed by a fault test) is reported as an 'error'
 * event on the pool, and an 'error' event without a listener would fail the whole test file.
 */
export function quietPool(pool: pg.Pool): pg.Pool {
  pool.on('error', () => {});
  return pool;
}

let template: Promise<string> | undefined;

/** A hash of the migrations' file names and source: a new or changed migration makes new templates. */
async function migrationsHash(): Promise<string> {
  const dir = path.join(REPO_ROOT, 'migrations');
  const hash = createHash('sha256');
  for (const file of (await readdir(dir)).sort()) hash.update(file).update(await readFile(path.join(dir, file)));
  return hash.digest('hex').slice(0, 16);
}

/**
 * A database on the server with every migration applied, that each test database is copied from
 * (`CREATE DATABASE … TEMPLATE`, a file copy): the migrations run once per set of migrations rather
 * than once per test file. Named by a hash of the migrations' source, so a new or changed migration
 * makes a new template; built by one jest worker at a time (an advisory lock), under a temporary
 * name renamed once complete, so no worker ever copies a half-migrated one. The app still runs its
 * migrations at start (finding none pending); `createTestDatabase({ empty: true })` gives a database
 * the app must migrate itself. (A server keeps one such template per set of migrations: drop
 * `epr_template_*` databases at will.)
 */
function migratedTemplate(): Promise<string> {
  template ??= (async () => {
    const name = `epr_template_${await migrationsHash()}`;
    const admin = new pg.Client({ connectionString: SERVER_DATABASE_URL });
    await admin.connect();
    try {
      await admin.query(`SELECT pg_advisory_lock(hashtext('epr test template'))`);
      const { rowCount } = await admin.query(`SELECT 1 FROM pg_database WHERE datname = $1`, [name]);
      if (!rowCount) {
        const building = `${name}_${randomBytes(4).toString('hex')}`;
        await admin.query(`CREATE DATABASE ${building}`);
        const url = Object.assign(new URL(SERVER_DATABASE_URL!), { pathname: `/${building}` }).toString();
        const dataSource = new DataSource(databaseOptions({ url }, true));
        await dataSource.initialize();
        await dataSource.destroy();
        await admin.query(`ALTER DATABASE ${building} RENAME TO ${name}`);
      }
    } finally {
      await admin.end(); // releases the lock
    }
    return name;
  })();
  return template;
}

let dataDirTemplate: Promise<string> | undefined;

/**
 * The embedded database's counterpart of `migratedTemplate`: a data directory with every migration
 * applied, which each embedded test database is a copy of (a fresh one spends about 5 s of CPU in
 * PGlite's migrations, a copy about 1 s). In the temporary directory, named by the migrations' hash and
 * PGlite's version; built under a temporary name renamed once complete (two workers may both build it
 * the first time: the second rename fails and its copy is dropped).
 */
function migratedDataDir(): Promise<string> {
  dataDirTemplate ??= (async () => {
    const { version } = JSON.parse(await readFile(path.join(REPO_ROOT, 'node_modules/@electric-sql/pglite/package.json'), 'utf8')) as {
      version: string;
    };
    const name = path.join(tmpdir(), `epr-template-${await migrationsHash()}-pglite-${version}`);
    if (
      await stat(name).then(
        () => true,
        () => false,
      )
    )
      return name;
    const building = await mkdtemp(`${name}-building-`);
    const embedded = await EmbeddedPostgres.start(building, 5);
    try {
      const dataSource = new DataSource(databaseOptions(embedded.connection, true));
      await dataSource.initialize();
      await dataSource.destroy();
    } finally {
      await embedded.stop();
    }
    await rename(building, name).catch(() => rm(building, { recursive: true, force: true }));
    return name;
  })();
  return dataDirTemplate;
}

/**
 * A DATA_DIR holding an embedded database with every migration applied (a copy of `migratedDataDir`), at
 * `dataDir` or in a new temporary directory: for a service in a child process whose test is not its first
 * start on an empty DATA_DIR (that start, PGlite's initdb and every migration, costs about 12 s of CPU; on a
 * copy about 5 s).
 */
export async function migratedEmbeddedDataDir(dataDir?: string): Promise<string> {
  const target = dataDir ?? (await mkdtemp(path.join(tmpdir(), 'epr-')));
  await cp(await migratedDataDir(), target, { recursive: true });
  return target;
}

/**
 * An isolated database for one test file: a fresh database on the server when DATABASE_URL is
 * set, else an embedded PostgreSQL in a temp directory (the app starts and stops it): a copy of
 * `migratedDataDir`, or with `empty` a fresh one.
 */
export async function createTestDatabase({ empty = false }: { empty?: boolean } = {}): Promise<TestDatabase> {
  if (SERVER_DATABASE_URL) {
    const name = `test_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
    const template = empty ? undefined : await migratedTemplate();
    const admin = new pg.Client({ connectionString: SERVER_DATABASE_URL });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}${template ? ` TEMPLATE ${template}` : ''}`);
    await admin.end();
    const url = new URL(SERVER_DATABASE_URL);
    url.pathname = `/${name}`;
    const pool = quietPool(new pg.Pool({ connectionString: url.toString(), max: 3 }));
    return {
      connection: { url: url.toString() },
      pool,
      url: url.toString(),
      async close() {
        await pool.end();
        const dropper = new pg.Client({ connectionString: SERVER_DATABASE_URL });
        await dropper.connect();
        await dropper.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        await dropper.end();
      },
    };
  }
  const dataDir = empty ? await mkdtemp(path.join(tmpdir(), 'epr-')) : await migratedEmbeddedDataDir();
  return {
    connection: { url: 'embedded' },
    pool: undefined as unknown as pg.Pool,
    dataDir,
    close: () => rm(dataDir, { recursive: true, force: true }),
  };
}

/** The test apps running in this process, each with the test file that started it. */
const running = new Map<object, string>();

/**
 * nestjs-pino keeps one logger per process for what an app logs outside a request, on the first app's log
 * stream: a process holds one app in production, but a test worker runs file after file, each with apps whose
 * `logs` its tests read. When no app runs in the process, it is forgotten (its `resetRootLogger`, not in the
 * package's exports), so that the next app gets one on its own stream; a second app of the same file logs
 * where the first does. An app another file left running is an error: it would take this file's logs.
 */
async function ownProcessLogger(): Promise<void> {
  const file = expect.getState().testPath;
  const left = [...running.values()].find((other) => other !== file);
  if (left) throw new Error(`${left} left a test app running (close it in its afterAll)`);
  if (running.size > 0) return;
  const rootLogger = pathToFileURL(path.join(REPO_ROOT, 'node_modules/nestjs-pino/dist/esm/rootLogger.js')).href;
  const { resetRootLogger } = (await import(rootLogger)) as { resetRootLogger(): void };
  resetRootLogger();
}

export interface TestApp {
  app: NestExpressApplication;
  url: string;
  config: AppConfig;
  /** Direct access to the app's database, for assertions. */
  pool: pg.Pool;
  /** Every JSON log line the app wrote. */
  logs: string[];
  /** Stops the app (and its embedded database); the database is dropped unless `keepDatabase`. */
  close(options?: { keepDatabase?: boolean }): Promise<void>;
}

/** Every rate limit raised out of reach: tests make many requests, and many bad ones, from one address. */
export const RAISED_RATE_LIMITS: Record<string, string> = {
  RATE_LIMIT_CLIENT_PER_MINUTE: '1000000',
  RATE_LIMIT_CLIENT_WRITES_PER_MINUTE: '1000000',
  RATE_LIMIT_OPERATOR_PER_MINUTE: '1000000',
  RATE_LIMIT_AUTH_FAILURES_PER_MINUTE: '1000000',
  RATE_LIMIT_SIGN_IN_PER_MINUTE: '1000000',
  RATE_LIMIT_SIGN_IN_EMAILS_PER_MINUTE: '1000000',
};

export interface TestAppOptions extends Pick<
  AppOptions,
  'extraImports' | 'timeouts' | 'connectionLimits' | 'queryTimeouts' | 'mailDelivery'
> {
  /** Environment of the app; the rate limits are RAISED_RATE_LIMITS unless set here (`''`: the shipped default). */
  env?: Record<string, string>;
  /** Reuse a database (e.g. to restart on the same data); otherwise a fresh one is made. */
  database?: TestDatabase;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Starts the real app on a real, isolated PostgreSQL, listening on a free port. */
export async function startTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const database = options.database ?? (await createTestDatabase());
  const config = loadConfig({
    LOG_LEVEL: 'info',
    ADMIN_TOKEN,
    ...RAISED_RATE_LIMITS,
    ...options.env,
    ...(database.url ? { DATABASE_URL: database.url } : { DATA_DIR: database.dataDir }),
    PORT: String(await freePort()),
    HOST: '127.0.0.1',
  });
  const opened: Database = await openDatabase(config);
  const pool =
    database.pool ??
    quietPool(
      new pg.Pool({
        ...('host' in opened.connection
          ? { host: opened.connection.host, port: opened.connection.port, user: 'postgres', database: 'postgres' }
          : {}),
        max: 2,
      }),
    );
  const logs: string[] = [];
  const logStream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      logs.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      callback();
    },
  });
  let app: NestExpressApplication;
  try {
    await ownProcessLogger();
    app = await createApp(config, opened.connection, {
      logStream,
      extraImports: options.extraImports,
      timeouts: options.timeouts,
      connectionLimits: options.connectionLimits,
      queryTimeouts: options.queryTimeouts,
      mailDelivery: options.mailDelivery,
    });
    await app.listen(config.port, config.host);
  } catch (error) {
    if (!database.pool) await pool.end();
    await opened.close();
    if (!options.database) await database.close();
    throw error;
  }
  const key = {};
  running.set(key, expect.getState().testPath ?? '');
  return {
    app,
    url: `http://127.0.0.1:${config.port}`,
    config,
    pool,
    logs,
    async close({ keepDatabase = false } = {}) {
      running.delete(key);
      await app.close();
      if (!database.pool) await pool.end();
      await opened.close();
      if (!keepDatabase) await database.close();
    },
  };
}
