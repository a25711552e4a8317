import { DataSource } from 'typeorm';
import { loadConfig } from '../config/config.js';
import { databaseOptions } from './database-options.js';
import { ENTITIES } from './entities.js';

/**
 * Data source for the TypeORM CLI (`npm run migration:*`), on `DATABASE_URL`.
 * The embedded database is migrated by the app itself at start-up.
 */
const config = loadConfig();
if (!config.databaseUrl) {
  throw new Error('DATABASE_URL must be set for the migration commands (the embedded database migrates at start-up).');
}
export default new DataSource({ ...databaseOptions({ url: config.databaseUrl }, false), entities: ENTITIES });
