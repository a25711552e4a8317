import { ClientEntity } from '../accounts/client.entity.js';
import { ClientTokenEntity } from '../auth/client-token.entity.js';

/** Every TypeORM entity (the app registers them per module; the CLI data source needs the list). */
export const ENTITIES: Function[] = [ClientEntity, ClientTokenEntity];
