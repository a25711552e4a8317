import { ClientEntity } from '../accounts/client.entity.js';
import { AuditEventEntity } from '../audit/audit-event.entity.js';
import { ClientTokenEntity } from '../auth/client-token.entity.js';
import { OperatorTokenEntity } from '../auth/operators/operator-token.entity.js';
import { DeclarationLineEntity } from '../declarations/entities/declaration-line.entity.js';
import { DeclarationEntity } from '../declarations/entities/declaration.entity.js';
import { IdempotencyKeyEntity } from '../declarations/entities/idempotency-key.entity.js';

/** Every TypeORM entity (the app registers them per module; the CLI data source needs the list). */
export const ENTITIES: Function[] = [ClientEntity, ClientTokenEntity, DeclarationEntity, DeclarationLineEntity, IdempotencyKeyEntity, OperatorTokenEntity, AuditEventEntity];
