import { fileURLToPath } from 'node:url';
import { DataSource } from 'typeorm';
import { loadConfig } from '../config/config.js';
import { databaseOptions } from './database-options.js';

/** Every module's entities, as built (the app registers them per module with TypeOrmModule.forFeature). */
const ENTITY_FILES = fileURLToPath(new URL('../**/*.entity.js', import.meta.url));

/**
 * Data source for the TypeORM CLI (`npm run migration:*`), on `DATABASE_URL`.
 * The embedded database is migrated by the app itself at start-up.
 */
const config = loadConfig();
if (!config.databaseUrl) {
  throw new Error('DATABASE_URL must be set for the migration commands (the embedded database migrates at start-up).');
}
export default new DataSource({ ...databaseOptions({ url: config.databaseUrl }, false), entities: [ENTITY_FILES] });
