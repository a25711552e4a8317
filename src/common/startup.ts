import net from 'node:net';
import path from 'node:path';
import type { LoggerService } from '@nestjs/common';
import type { AppConfig } from '../config/config.js';

/** A start-up failure with a known cause: main prints its message (cause and fix) on one line, without a stack. */
export class StartupError extends Error {
  override name = 'StartupError';
}

/** Nest's module and route loading messages: useful when debugging, noise at `info`. */
const FRAMEWORK_CONTEXTS = new Set(['InstanceLoader', 'RoutesResolver', 'RouterExplorer', 'NestFactory', 'NestApplication']);

/** The app's logger with Nest's own start-up chatter moved to `debug`. */
export function quietFrameworkLogger(logger: LoggerService & { debug(message: unknown, ...rest: unknown[]): void }): LoggerService {
  return {
    log: (message: unknown, ...rest: unknown[]) => {
      const context = rest.at(-1);
      if (typeof context === 'string' && FRAMEWORK_CONTEXTS.has(context)) logger.debug(message, ...rest);
      else logger.log(message, ...rest);
    },
    error: (message: unknown, ...rest: unknown[]) => logger.error(message, ...rest),
    warn: (message: unknown, ...rest: unknown[]) => logger.warn(message, ...rest),
    debug: (message: unknown, ...rest: unknown[]) => logger.debug(message, ...rest),
    verbose: (message: unknown, ...rest: unknown[]) => logger.verbose?.(message, ...rest),
    fatal: (message: unknown, ...rest: unknown[]) => logger.fatal?.(message, ...rest),
  };
}

/** The cause and fix of a listen error, if it is one a user can fix. */
export function listenFailure(error: unknown, config: Pick<AppConfig, 'port' | 'host'>): StartupError | undefined {
  const code = (error as { code?: string }).code;
  if (code === 'EADDRINUSE') {
    return new StartupError(
      `PORT ${config.port} is already in use on ${config.host}: stop the process that holds it, or set PORT to a free port.`,
    );
  }
  if (code === 'EACCES') {
    return new StartupError(
      `PORT ${config.port} on ${config.host} needs privileges this process does not have: set PORT to 1024 or above.`,
    );
  }
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') {
    return new StartupError(`HOST ${config.host} is not an address of this machine: set HOST to one of its addresses (0.0.0.0 for all).`);
  }
  return undefined;
}

/** Fails before anything is created (a new DATA_DIR, migrations) if the port cannot be listened on. */
export async function checkPortFree(config: Pick<AppConfig, 'port' | 'host'>): Promise<void> {
  if (config.port === 0) return;
  await new Promise<void>((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', (error) => reject(listenFailure(error, config) ?? error));
    probe.listen(config.port, config.host, () => probe.close(() => resolve()));
  });
}

/** What a person needs right after `npm start`: where to go, which database, whether the admin API is on. */
export function startupSummary(config: AppConfig, port: number): string {
  const base = config.publicBaseUrl;
  const database = config.databaseUrl
    ? `PostgreSQL server at ${serverAddress(config.databaseUrl)}`
    : `embedded PostgreSQL in ${path.resolve(config.dataDir)} (set DATABASE_URL to use a server)`;
  const admin = config.adminToken
    ? 'on (Authorization: Bearer $ADMIN_TOKEN on /api/v1/admin/…)'
    : 'off: set ADMIN_TOKEN (32 or more characters) to onboard clients and issue tokens';
  return [
    `EPR packaging declarations API is listening on ${config.host}:${port}`,
    `  site        ${base}/`,
    `  API docs    ${base}/docs`,
    `  index       ${base}/api/v1/index.json`,
    `  database    ${database}`,
    `  admin API   ${admin}`,
    '',
  ].join('\n');
}

/** Host, port and database of a connection string, never its credentials. */
function serverAddress(databaseUrl: string): string {
  const url = new URL(databaseUrl);
  return `${url.hostname}:${url.port || '5432'}${url.pathname}`;
}
