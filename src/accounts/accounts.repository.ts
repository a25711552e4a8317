import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { DeepPartial, EntityManager, Repository } from 'typeorm';
import { ASCII_LOWER, ASCII_UPPER } from '../common/email-address.js';
import { ClientEntity, type ClientStatus } from './client.entity.js';
import { type Language } from '../i18n/language.js';

/** A client the import names that exists: by id, or by its e-mail address (folded), pending or confirmed. */
export interface ExistingClientRow {
  clientId: string;
  pendingEmail: string | null;
  pendingCompany: string | null;
  confirmedEmail: string | null;
  confirmedCompany: string | null;
}

/** The filters of the operator's listing (either profile), checked by the caller. */
export interface ClientFilters {
  q?: string;
  confirmed?: boolean;
  plan?: string;
  stream?: string;
  ecoOrganism?: string;
  status?: ClientStatus;
  /** Only these clients (the console's list of who declared, or not, a half-year). */
  clientIds?: readonly string[];
}

/** A client of the listing, with its creation time as text to the microsecond (the keyset's position). */
export interface ListedClient {
  client: ClientEntity;
  createdText: string;
}

/**
 * The SQL of clients (`clients`). Writes, and reads that a write follows, run in the caller's
 * `manager` (its transaction); the service holds the rules and the transaction boundaries.
 */
@Injectable()
export class AccountsRepository {
  constructor(@InjectRepository(ClientEntity) private readonly clients: Repository<ClientEntity>) {}

  /** The manager outside any transaction (reads that stand alone). */
  get manager(): EntityManager {
    return this.clients.manager;
  }

  /** A new client, not yet stored. */
  build(fields: DeepPartial<ClientEntity>): ClientEntity {
    return this.clients.create(fields);
  }

  /** Until the transaction ends: two imports at once cannot both find a client absent and both create it. */
  async lockImport(manager: EntityManager): Promise<void> {
    await manager.query(`SELECT pg_advisory_xact_lock(hashtext('clients.import'))`);
  }

  /** The clients with one of these ids or one of these e-mail addresses (folded to A–Z lower case), pending or confirmed. */
  async findExisting(manager: EntityManager, ids: readonly string[], foldedEmails: readonly string[]): Promise<ExistingClientRow[]> {
    return manager.query(
      `SELECT client_id AS "clientId", pending_email AS "pendingEmail", pending_company AS "pendingCompany",
              confirmed_email AS "confirmedEmail", confirmed_company AS "confirmedCompany" FROM clients
        WHERE client_id = ANY($1::text[]) OR translate(pending_email, $3, $4) = ANY($2::text[]) OR translate(confirmed_email, $3, $4) = ANY($2::text[])`,
      [ids, foldedEmails, ASCII_UPPER, ASCII_LOWER],
    );
  }

  async insert(manager: EntityManager, clients: ClientEntity | ClientEntity[]): Promise<void> {
    await manager.insert(ClientEntity, clients);
  }

  save(manager: EntityManager, client: ClientEntity): Promise<ClientEntity> {
    return manager.save(client);
  }

  /** The client, locked FOR UPDATE when `lock` (a write follows); null for no such client. */
  find(manager: EntityManager, clientId: string, lock = false): Promise<ClientEntity | null> {
    return manager.findOne(ClientEntity, {
      where: { clientId },
      ...(lock ? { lock: { mode: 'pessimistic_write' as const } } : {}),
    });
  }

  exists(clientId: string): Promise<boolean> {
    return this.clients.existsBy({ clientId });
  }

  /**
   * Up to `limit` clients matching the filters, newest first, keyset on `(created_at, client_id)`
   * (its index) after `after`.
   */
  async list(filters: ClientFilters, after: { at: string; id: string } | undefined, limit: number): Promise<ListedClient[]> {
    const query = this.clients
      .createQueryBuilder('c')
      .addSelect(`to_char(c.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`, 'created_text')
      .orderBy('c.created_at', 'DESC')
      .addOrderBy('c.client_id', 'DESC')
      .limit(limit);
    if (filters.q !== undefined) {
      const like = `%${filters.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      query.andWhere(
        `(c.pending_company ILIKE :like OR c.pending_email ILIKE :like OR c.confirmed_company ILIKE :like OR c.confirmed_email ILIKE :like)`,
        { like },
      );
    }
    if (filters.confirmed !== undefined) query.andWhere(filters.confirmed ? 'c.confirmed_at IS NOT NULL' : 'c.confirmed_at IS NULL');
    if (filters.plan !== undefined) query.andWhere('(c.pending_plan = :plan OR c.confirmed_plan = :plan)', { plan: filters.plan });
    if (filters.stream !== undefined)
      query.andWhere('(:stream = ANY(c.pending_streams) OR :stream = ANY(c.confirmed_streams))', { stream: filters.stream });
    if (filters.ecoOrganism !== undefined) {
      query.andWhere('EXISTS (SELECT 1 FROM client_streams cs WHERE cs.client_id = c.client_id AND cs.eco_organism = :eco)', {
        eco: filters.ecoOrganism,
      });
    }
    if (filters.status !== undefined) query.andWhere('c.status = :status', { status: filters.status });
    if (filters.clientIds !== undefined) query.andWhere('c.client_id = ANY(:ids)', { ids: [...filters.clientIds] });
    if (after) query.andWhere('(c.created_at, c.client_id) < (:at::timestamptz, :id)', { at: after.at, id: after.id });
    const { entities, raw } = await query.getRawAndEntities<{ created_text: string }>();
    return entities.map((client, i) => ({ client, createdText: raw[i]!.created_text }));
  }

  /** Up to 10 confirmed, not offboarded clients whose confirmed address folds (A–Z only) to `foldedEmail`, by id. */
  async confirmedWithEmail(foldedEmail: string): Promise<{ clientId: string; email: string; language: Language }[]> {
    return this.clients.query(
      `SELECT client_id AS "clientId", confirmed_email AS email, language FROM clients
        WHERE confirmed_at IS NOT NULL AND status <> 'offboarded' AND translate(confirmed_email, $2, $3) = $1 ORDER BY client_id LIMIT 10`,
      [foldedEmail, ASCII_UPPER, ASCII_LOWER],
    );
  }
}
