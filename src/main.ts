import 'reflect-metadata';
import { createApp, openDatabase } from './app.factory.js';
import { closeGracefully } from './edge/graceful-shutdown.js';
import { checkPortFree, listenFailure, StartupError, startupSummary } from './common/startup.js';
import { ConfigError, loadConfig } from './config/config.js';

async function main(): Promise<void> {
  const config = loadConfig();
  await checkPortFree(config);
  const database = await openDatabase(config);
  const draining = { value: false };
  let app;
  try {
    app = await createApp(config, database.connection, { draining });
    await app.listen(config.port, config.host);
  } catch (error) {
    await app?.close();
    await database.close();
    throw listenFailure(error, config) ?? error;
  }
  const { port } = app.getHttpServer().address() as { port: number };
  // For the person who started it, on stderr: stdout carries the JSON log lines.
  process.stderr.write(startupSummary(config, port));

  // Graceful stop: refuse new connections, let requests in flight finish, close the pool, then the embedded database.
  let stopping = false;
  const stop = async (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    try {
      await closeGracefully(app, draining);
      await database.close();
      process.exit(0);
    } catch (error) {
      console.error(`Shutdown after ${signal} failed:`, error);
      process.exit(1);
    }
  };
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));
}

main().catch((error: unknown) => {
  // Known causes (configuration, a taken port, a locked DATA_DIR) say what to fix: no stack.
  console.error(error instanceof ConfigError || error instanceof StartupError ? error.message : error);
  process.exit(1);
});
