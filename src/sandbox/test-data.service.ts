import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { AuditTrail } from '../audit/audit-trail.js';
import type { Actor } from '../caller/actor.js';
import type { AuthenticatedClient } from '../caller/current-client.js';
import { Problem } from '../common/problem/problem.js';
import { DeclarationsRepository } from '../declarations/declarations.repository.js';
import { ProductsRepository } from '../products/products.repository.js';

/** A client's sandbox: wiped on request (test token only), audited in the same transaction. */
@Injectable()
export class TestDataService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly declarations: DeclarationsRepository,
    private readonly products: ProductsRepository,
    private readonly audit: AuditTrail,
  ) {}

  async wipe(client: AuthenticatedClient, requestId: string | null): Promise<void> {
    if (client.mode !== 'test') {
      throw new Problem(
        'insufficient_scope',
        'Only a test token (eprt_…) can wipe test data, and this is a live token (eprc_…): live declarations are never deleted. Ask the operator for a test token.',
      );
    }
    const actor: Actor = { operator: { kind: 'client', clientId: client.clientId, sessionId: client.sessionId ?? null }, requestId };
    await this.dataSource.transaction(async (manager) => {
      const wiped = await this.wipeTestData(manager, client.clientId);
      await this.audit.record(manager, actor, {
        action: 'test_data.wiped',
        targetType: 'client',
        targetId: client.clientId,
        clientId: client.clientId,
        changes: {
          token_id: client.tokenId,
          declarations: wiped.declarations,
          idempotency_keys: wiped.idempotencyKeys,
          products: wiped.products,
        },
      });
    });
  }

  /**
   * Deletes the client's test declarations, Idempotency-Keys and products, each through the module
   * that owns it: what derived test revisions recorded goes first, since it holds both the revisions
   * and the product versions.
   */
  private async wipeTestData(manager: EntityManager, clientId: string) {
    await this.products.deleteDerivations(manager, clientId, await this.declarations.testDeclarationIds(manager, clientId));
    const { declarations, idempotencyKeys } = await this.declarations.deleteTestData(manager, clientId);
    return { declarations, idempotencyKeys, products: await this.products.deleteTestProducts(manager, clientId) };
  }
}
