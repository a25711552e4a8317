import { ConfigError, loadConfig } from '../config/config.js';
import { BackupError, backupEmbedded, backupServer, restoreEmbedded, restoreServer } from './backup.js';

/**
 * `npm run db:backup -- FILE` and `npm run db:restore -- FILE [--force]`: on DATABASE_URL when set,
 * else on the embedded database under DATA_DIR (docs/operations.md).
 */
const USAGE = 'usage: node dist/src/database/backup-command.js backup FILE | restore FILE [--force]';

async function main(argv: string[]): Promise<string> {
  const [command, ...rest] = argv;
  const force = rest.includes('--force');
  const files = rest.filter((arg) => arg !== '--force');
  if ((command !== 'backup' && command !== 'restore') || files.length !== 1 || (command === 'backup' && force)) {
    throw new BackupError(USAGE);
  }
  const file = files[0]!;
  const config = loadConfig();
  if (config.databaseUrl) {
    if (force) throw new BackupError('--force applies to the embedded database only: on a server, restore into an empty database.');
    if (command === 'backup') return `backup written to ${file} (${(await backupServer(config.databaseUrl, file)).bytes} bytes)`;
    await restoreServer(config.databaseUrl, file);
    return `restored ${file} into the database of DATABASE_URL`;
  }
  if (command === 'backup') {
    const { bytes, tables } = await backupEmbedded(config.dataDir, file);
    return `backup of the embedded database in ${config.dataDir} written to ${file} (${tables} tables, ${bytes} bytes)`;
  }
  const { tables, movedAside } = await restoreEmbedded(config.dataDir, file, force);
  return `restored ${file} into the embedded database in ${config.dataDir} (${tables} tables)${movedAside ? `; the previous database is kept in ${movedAside}` : ''}`;
}

main(process.argv.slice(2)).then(
  (message) => {
    process.stderr.write(`${message}\n`);
  },
  (error: unknown) => {
    process.stderr.write(
      `${error instanceof BackupError || error instanceof ConfigError ? error.message : String((error as Error)?.stack ?? error)}\n`,
    );
    process.exitCode = 1;
  },
);
