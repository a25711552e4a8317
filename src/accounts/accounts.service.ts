import { createHash, randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, QueryFailedError, type EntityManager } from 'typeorm';
import { AuditTrail } from '../audit/audit-trail.js';
import type { Actor } from '../caller/actor.js';
import { type Page, pageOf, positionOf } from '../common/paging/keyset-cursor.js';
import { DEFAULT_PAGE_SIZE } from '../common/paging/page-query.dto.js';
import { type FieldError, NotFoundProblem, Problem, ValidationProblem } from '../common/problem/problem.js';
import { ReferenceCatalogue } from '../reference/reference-catalogue.js';
import { AccountsRepository } from './accounts.repository.js';
import type { ClientEntity, ClientStatus } from './client.entity.js';
import { contactKey, type ImportRow, readClientsCsv } from './clients-import.js';
import type { CsvCharset } from '../common/csv/read-csv.js';
import { clientEtag, type Preconditions, preconditionsHold } from './client-etag.js';
import { emailKey, foldEmail } from '../common/email-address.js';
import { CLIENT_ID_PATTERN, type CreateClientInput, type LanguagePatch } from './account.js';
import { MailOutbox } from '../mail/mail-outbox.js';
import { ClientStreamsService, type StreamSettingView } from './client-streams.service.js';
import {
  applyPatch,
  confirmationErrors,
  emptyProfile,
  PROFILE_FIELDS,
  type Profile,
  type ProfilePatch,
  profileValueErrors,
  sameProfile,
} from './profile.js';
import { type Language } from '../i18n/language.js';

/** A client with both profiles (admin view). */
export interface ClientView {
  clientId: string;
  pending: Profile;
  confirmed: Profile;
  confirmedAt: Date | null;
  /** The language the service writes to the client in. */
  language: Language;
  unconfirmedChanges: boolean;
  status: ClientStatus;
  statusChangedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface ListClientsInput {
  /** Text in the company or e-mail, pending or confirmed, ignoring case. */
  q?: string;
  confirmed?: boolean;
  plan?: string;
  stream?: string;
  ecoOrganism?: string;
  status?: ClientStatus;
  /** Only these clients (the console's list of who declared, or not, a half-year). */
  clientIds?: readonly string[];
  cursor?: string;
  limit?: number;
}

/** Runs in a confirmation's transaction, with what it changed in the confirmed profile; an error undoes the confirmation. */
export type ConfirmingListener = (
  manager: EntityManager,
  clientId: string,
  changes: Record<string, { from: unknown; to: unknown }>,
  actor: Actor,
) => Promise<void>;

/** Runs in the transaction of a change of a client's status (credentials end what an offboarding ends); an error undoes it. */
export type StatusChangingListener = (
  manager: EntityManager,
  clientId: string,
  change: { from: ClientStatus; to: ClientStatus },
  actor: Actor,
) => Promise<void>;

/** What the operator does to a client's access, and the status it leads to from each status (undefined: not possible). */
export const STATUS_ACTIONS = {
  suspend: { action: 'client.suspended', to: 'suspended', from: ['active', 'suspended'] },
  reactivate: { action: 'client.reactivated', to: 'active', from: ['suspended', 'active'] },
  offboard: { action: 'client.offboarded', to: 'offboarded', from: ['active', 'suspended', 'offboarded'] },
} as const satisfies Record<string, { action: string; to: ClientStatus; from: readonly ClientStatus[] }>;
export type StatusAction = keyof typeof STATUS_ACTIONS;

export type { CreateClientInput, LanguagePatch } from './account.js';

/** The sign-in link e-mailed to a new client: what was sent, to whom, until when. */
export interface Invitation {
  linkId: string;
  expiresAt: Date;
  sentTo: string;
  /** The e-mail in the outbox (`GET /admin/clients/{id}/messages`). */
  messageId: string;
  language: Language;
}

/** Issues and queues an invitation in the caller's transaction (credentials, which sit above accounts, provide it). */
export type Inviter = (manager: EntityManager, clientId: string, actor: Actor) => Promise<Invitation>;

/** A client just created: with its streams' eco-organism and liability, and the invitation sent, if any. */
export interface CreatedClient {
  view: ClientView;
  streams: StreamSettingView[];
  invitation: Invitation | null;
}

/** A client of an import file: on a dry run what would be created (`clientId` null when generated on applying), else what was. */
export interface ImportedClient {
  row: number;
  clientId: string | null;
  pending: Profile;
  language: Language;
}

const UNIQUE_VIOLATION = '23505';
const ID_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** `cl_` + 20 characters of [a-z0-9] (≈ 103 random bits): matches the client id pattern. */
function generateClientId(): string {
  let out = 'cl_';
  while (out.length < 23) {
    for (const byte of randomBytes(32)) {
      if (byte < 252 && out.length < 23) out += ID_ALPHABET[byte % 36];
    }
  }
  return out;
}

const pendingOf = (c: ClientEntity): Profile => ({
  email: c.pendingEmail,
  company: c.pendingCompany,
  country: c.pendingCountry,
  plan: c.pendingPlan,
  streams: c.pendingStreams,
  idus: c.pendingIdus,
});

const confirmedOf = (c: ClientEntity): Profile =>
  c.confirmedAt === null
    ? emptyProfile()
    : {
        email: c.confirmedEmail,
        company: c.confirmedCompany,
        country: c.confirmedCountry,
        plan: c.confirmedPlan,
        streams: c.confirmedStreams,
        idus: c.confirmedIdus,
      };

function setPending(c: ClientEntity, p: Profile): void {
  c.pendingEmail = p.email;
  c.pendingCompany = p.company;
  c.pendingCountry = p.country;
  c.pendingPlan = p.plan;
  c.pendingStreams = p.streams;
  c.pendingIdus = p.idus;
}

function viewOf(c: ClientEntity): ClientView {
  const pending = pendingOf(c);
  const confirmed = confirmedOf(c);
  return {
    clientId: c.clientId,
    pending,
    confirmed,
    confirmedAt: c.confirmedAt,
    language: c.language,
    unconfirmedChanges: c.confirmedAt === null || !sameProfile(pending, confirmed),
    status: c.status,
    statusChangedAt: c.statusChangedAt,
    createdAt: c.createdAt,
    updatedAt: c.updatedAt,
  };
}

/** `{field: {from, to}}` for each profile field that differs (what the audit trail records of a change). */
export function profileChanges(before: Profile, after: Profile): Record<string, { from: unknown; to: unknown }> {
  const changes: Record<string, { from: unknown; to: unknown }> = {};
  for (const field of PROFILE_FIELDS) {
    if (JSON.stringify(before[field]) !== JSON.stringify(after[field])) changes[field] = { from: before[field], to: after[field] };
  }
  return changes;
}

/** 412 unless the conditional headers hold for the client as it is (its ETag). */
function checkPreconditions(client: ClientEntity, preconditions: Preconditions | undefined): void {
  if (!preconditionsHold(preconditions, clientEtag(viewOf(client)))) {
    throw new Problem(
      'precondition_failed',
      `Client "${client.clientId}" changed since it was read (If-Match does not match its ETag, or If-None-Match does); read it again and redo the change.`,
    );
  }
}

/** 409: an offboarded client's records are kept as they were, for good. */
function refuseIfOffboarded(client: ClientEntity, what: string): void {
  if (client.status === 'offboarded') {
    throw new Problem('conflict', `Client "${client.clientId}" is offboarded: its records are kept as they are and it cannot be ${what}.`);
  }
}

/**
 * Clients and their profile. The operator edits a pending profile; `confirm` copies it to the
 * confirmed profile, which is the only one clients (and declarations) see.
 */
@Injectable()
export class AccountsService {
  private readonly accountListeners: ((clientId: string) => void)[] = [];
  private readonly confirmingListeners: ConfirmingListener[] = [];
  private readonly statusListeners: StatusChangingListener[] = [];
  private inviter: Inviter | undefined;

  constructor(
    private readonly clients: AccountsRepository,
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly catalogue: ReferenceCatalogue,
    private readonly audit: AuditTrail,
    private readonly streams: ClientStreamsService,
    private readonly outbox: MailOutbox,
  ) {}

  /**
   * Creates a client (its profile pending), and in the same transaction, when asked: confirms it,
   * records its streams' eco-organism and liability start, and e-mails it an invitation through the
   * outbox (sent once committed). All or nothing: any refusal leaves nothing written.
   */
  async create(input: CreateClientInput, actor: Actor): Promise<CreatedClient> {
    const { clientId: chosen, language, streamSettings = [], confirm = false, invite = false, ...patch } = input;
    this.checkValues(patch);
    if (invite) this.checkCanInvite(confirm);
    const clientId = chosen ?? generateClientId();
    const entity = this.clients.build({ clientId, confirmedAt: null, language: language ?? 'fr' });
    const pending = applyPatch(emptyProfile(), patch);
    setPending(entity, pending);
    let created: CreatedClient;
    try {
      created = await this.dataSource.transaction(async (manager) => {
        await this.clients.insert(manager, entity);
        await this.audit.record(manager, actor, {
          action: 'client.created',
          targetType: 'client',
          targetId: clientId,
          clientId,
          changes: { ...profileChanges(emptyProfile(), pending), ...(language ? { language: { from: null, to: language } } : {}) },
        });
        // Problems point into the request body, where the profile's fields are.
        if (confirm) await this.confirmWithin(manager, clientId, actor, '');
        const settings = streamSettings
          .map((setting, index) => ({ ...setting, pointer: `/streams/${index}` }))
          .filter((setting) => setting.ecoOrganism !== null || setting.liableFrom !== null);
        if (settings.length > 0) await this.streams.setWithin(manager, clientId, settings, actor);
        const invitation = invite ? await this.inviter!(manager, clientId, actor) : null;
        return { view: viewOf(await this.load(manager, clientId)), streams: await this.streams.list(clientId, manager), invitation };
      });
    } catch (error) {
      if (error instanceof QueryFailedError && (error.driverError as { code?: string }).code === UNIQUE_VIOLATION) {
        throw new Problem('conflict', `A client with client_id "${clientId}" already exists.`);
      }
      throw error;
    }
    if (created.invitation) this.outbox.kick();
    if (confirm) for (const listener of this.accountListeners) listener(clientId);
    return created;
  }

  /** Provides the invitations `create` sends (one provider: the sign-in links). */
  useInviter(inviter: Inviter): void {
    this.inviter = inviter;
  }

  /** 409 before anything is written when an invitation cannot be sent: no SMTP_URL, or no address confirmed to send it to. */
  private checkCanInvite(confirm: boolean): void {
    if (!this.outbox.enabled || !this.inviter) {
      throw new Problem(
        'conflict',
        'The service cannot send e-mail: SMTP_URL is not configured. Create the client without "invite", then give its people a sign-in link yourself (POST /api/v1/admin/clients/{client_id}/sign-in-links); nothing was created.',
      );
    }
    if (!confirm) {
      throw new Problem(
        'conflict',
        'An invitation goes to the confirmed e-mail address, and a new client has none until its profile is confirmed: send "confirm": true with "invite": true (the profile must then be complete); nothing was created.',
      );
    }
  }

  /**
   * Onboards the clients of an import file (clients-import.ts read and checked each row) all or
   * nothing: refused whole (422, every problem by row and column) when a row has a problem or names
   * a client that exists (the same client_id, or the same company at the same address, pending or
   * confirmed). A dry run checks and answers what would be created, writing nothing. Applying
   * creates them in one transaction, each recorded as `client.created` (`source: "import"`, its row).
   */
  /** A clients file read, checked and (unless a dry run) applied: see clients-import.ts and `importClients`. */
  async importCsv(
    file: { bytes: Buffer; charset: CsvCharset | undefined } | undefined,
    apply: boolean,
    actor: Actor,
  ): Promise<ImportedClient[]> {
    const sheet = readClientsCsv(file ?? { bytes: Buffer.alloc(0), charset: undefined }, this.catalogue);
    return this.importClients(sheet.rows, sheet.errors, apply, actor);
  }

  async importClients(
    rows: readonly ImportRow[],
    fileErrors: readonly FieldError[],
    apply: boolean,
    actor: Actor,
  ): Promise<ImportedClient[]> {
    const planned = (manager: EntityManager) => this.checkImport(manager, rows, fileErrors);
    if (!apply) return planned(this.clients.manager);
    try {
      return await this.dataSource.transaction(async (manager) => {
        // Two imports at once cannot both find a client absent and both create it.
        await this.clients.lockImport(manager);
        const clients = await planned(manager);
        const entities = clients.map((client) => {
          const entity = this.clients.build({
            clientId: client.clientId ?? generateClientId(),
            confirmedAt: null,
            language: client.language,
          });
          setPending(entity, client.pending);
          return entity;
        });
        await this.clients.insert(manager, entities);
        for (const [i, entity] of entities.entries()) {
          const { row, pending, language } = clients[i]!;
          clients[i] = { ...clients[i]!, clientId: entity.clientId };
          await this.audit.record(manager, actor, {
            action: 'client.created',
            targetType: 'client',
            targetId: entity.clientId,
            clientId: entity.clientId,
            changes: { ...profileChanges(emptyProfile(), pending), language: { from: null, to: language }, source: 'import', row },
          });
        }
        return clients;
      });
    } catch (error) {
      if (error instanceof QueryFailedError && (error.driverError as { code?: string }).code === UNIQUE_VIOLATION) {
        throw new Problem(
          'conflict',
          'A client of the file was created by someone else meanwhile; nothing was imported. Send the file again to see which.',
        );
      }
      throw error;
    }
  }

  /** The clients an import would create; 422 with every problem of the file and every client it names that exists. */
  private async checkImport(
    manager: EntityManager,
    rows: readonly ImportRow[],
    fileErrors: readonly FieldError[],
  ): Promise<ImportedClient[]> {
    const errors = [...fileErrors];
    const ids = rows.flatMap((r) => (r.input.clientId ? [r.input.clientId] : []));
    const emails = rows.map((r) => emailKey(r.input.email!));
    const existing = await this.clients.findExisting(manager, ids, emails);
    const existingIds = new Set(existing.map((c) => c.clientId));
    const contacts = new Map<string, string>();
    for (const c of existing) {
      if (c.pendingEmail && c.pendingCompany) contacts.set(contactKey(c.pendingEmail, c.pendingCompany), c.clientId);
      if (c.confirmedEmail && c.confirmedCompany) contacts.set(contactKey(c.confirmedEmail, c.confirmedCompany), c.clientId);
    }
    for (const { row, input } of rows) {
      if (input.clientId && existingIds.has(input.clientId)) {
        errors.push({
          pointer: `/rows/${row}/client_id`,
          code: 'client_exists',
          detail: `row ${row}: a client with client_id "${input.clientId}" already exists`,
          row,
          params: { row, value: input.clientId },
        });
      }
      const same = contacts.get(contactKey(input.email!, input.company!));
      if (same !== undefined) {
        errors.push({
          pointer: `/rows/${row}/email`,
          code: 'client_exists',
          detail: `row ${row}: client "${same}" already has this company and e-mail address`,
          row,
          params: { row, value: same },
        });
      }
    }
    if (errors.length > 0) {
      throw new ValidationProblem(
        errors.sort((a, b) => (a.row ?? 0) - (b.row ?? 0)),
        `The file cannot be imported: ${errors.length} problem${errors.length === 1 ? '' : 's'}; nothing was created.`,
      );
    }
    return rows.map(({ row, input }) => {
      const { clientId, language, ...patch } = input;
      return { row, clientId: clientId ?? null, pending: applyPatch(emptyProfile(), patch), language: language ?? 'fr' };
    });
  }

  async get(clientId: string): Promise<ClientView> {
    return viewOf(await this.load(this.clients.manager, clientId));
  }

  /** JSON merge patch of the pending profile; the confirmed profile is untouched. A patch that changes nothing writes (and records) nothing. */
  async update(clientId: string, input: ProfilePatch & LanguagePatch, actor: Actor, preconditions?: Preconditions): Promise<ClientView> {
    const { language, ...patch } = input;
    this.checkValues(patch);
    return this.dataSource.transaction(async (manager) => {
      const client = await this.load(manager, clientId, true);
      // Checked under the row lock: two operators who read the same version cannot both change it.
      checkPreconditions(client, preconditions);
      refuseIfOffboarded(client, 'changed');
      const before = pendingOf(client);
      const after = applyPatch(before, patch);
      const changes: Record<string, { from: unknown; to: unknown }> = profileChanges(before, after);
      const nextLanguage = language === undefined ? client.language : (language ?? 'fr');
      if (nextLanguage !== client.language) changes.language = { from: client.language, to: nextLanguage };
      if (Object.keys(changes).length === 0) return viewOf(client);
      setPending(client, after);
      client.language = nextLanguage;
      const saved = await this.clients.save(manager, client);
      await this.audit.record(manager, actor, { action: 'client.updated', targetType: 'client', targetId: clientId, clientId, changes });
      return viewOf(saved);
    });
  }

  /**
   * Called with a client's id once a change to its account has committed (the authentication cache
   * forgets it at once on this replica; other replicas hear of it from PostgreSQL).
   */
  onAccountChanged(listener: (clientId: string) => void): void {
    this.accountListeners.push(listener);
  }

  /**
   * Called in the transaction of every confirmation, with what it changed (credentials, which sit
   * above accounts, end the sessions of a client whose confirmed address changed).
   */
  onConfirming(listener: ConfirmingListener): void {
    this.confirmingListeners.push(listener);
  }

  /**
   * The pending profile becomes the confirmed one, if it is complete and consistent with the reference
   * data; with `preconditions`, only if the client is still the version they name (412 otherwise).
   */
  async confirm(clientId: string, actor: Actor, preconditions?: Preconditions): Promise<ClientView> {
    const view = await this.dataSource.transaction((manager) => this.confirmWithin(manager, clientId, actor, '/pending', preconditions));
    for (const listener of this.accountListeners) listener(clientId);
    return view;
  }

  /** `confirm` in `manager`'s transaction; problems point at `root` + the field (`/pending/email`). */
  private async confirmWithin(
    manager: EntityManager,
    clientId: string,
    actor: Actor,
    root = '/pending',
    preconditions?: Preconditions,
  ): Promise<ClientView> {
    // Locked, so that a concurrent PATCH cannot slip an unchecked value in between the check and the copy.
    const client = await this.load(manager, clientId, true);
    checkPreconditions(client, preconditions);
    refuseIfOffboarded(client, 'confirmed');
    const pending = pendingOf(client);
    const errors = confirmationErrors(pending, this.catalogue, root);
    if (errors.length > 0) {
      throw new ValidationProblem(
        errors,
        `The ${root === '/pending' ? 'pending ' : ''}profile cannot be confirmed: ${errors.map((e) => `${e.pointer} ${e.detail}`).join('; ')}.`,
      );
    }
    const changes = profileChanges(confirmedOf(client), pending);
    // Confirmed already as it is: nothing to write or record.
    if (client.confirmedAt !== null && Object.keys(changes).length === 0) return viewOf(client);
    client.confirmedEmail = pending.email;
    client.confirmedCompany = pending.company;
    client.confirmedCountry = pending.country;
    client.confirmedPlan = pending.plan;
    client.confirmedStreams = [...pending.streams];
    client.confirmedIdus = [...pending.idus];
    client.confirmedAt = new Date();
    client.firstConfirmedAt ??= client.confirmedAt;
    const saved = await this.clients.save(manager, client);
    await this.audit.record(manager, actor, { action: 'client.confirmed', targetType: 'client', targetId: clientId, clientId, changes });
    for (const listener of this.confirmingListeners) await listener(manager, clientId, changes, actor);
    return viewOf(saved);
  }

  /** Called in the transaction of every change of a client's status. */
  onStatusChanging(listener: StatusChangingListener): void {
    this.statusListeners.push(listener);
  }

  /**
   * Suspends, reactivates or offboards a client. Suspension refuses its tokens and sessions until
   * reactivation (nothing is revoked); offboarding is for good. Records are kept in every case.
   * Repeating the status a client already has changes and records nothing; offboarded is final
   * (409). Every replica forgets what it kept of the client at once (the clients trigger).
   */
  async changeStatus(
    clientId: string,
    what: StatusAction,
    actor: Actor,
    reason?: string,
    preconditions?: Preconditions,
  ): Promise<ClientView> {
    const { action, to, from } = STATUS_ACTIONS[what];
    const view = await this.dataSource.transaction(async (manager) => {
      const client = await this.load(manager, clientId, true);
      checkPreconditions(client, preconditions);
      const before = client.status;
      if (!(from as readonly ClientStatus[]).includes(before)) {
        throw new Problem(
          'conflict',
          `Client "${clientId}" is ${before}: it cannot be ${what === 'suspend' ? 'suspended' : 'reactivated'} (offboarding is final).`,
        );
      }
      if (before === to) return viewOf(client);
      client.status = to;
      client.statusChangedAt = new Date();
      const saved = await this.clients.save(manager, client);
      await this.audit.record(manager, actor, {
        action,
        targetType: 'client',
        targetId: clientId,
        clientId,
        changes: { status: { from: before, to }, ...(reason ? { reason } : {}) },
      });
      for (const listener of this.statusListeners) await listener(manager, clientId, { from: before, to }, actor);
      return viewOf(saved);
    });
    for (const listener of this.accountListeners) listener(clientId);
    return view;
  }

  /**
   * The operator's listing: newest first, keyset on `(created_at, client_id)` (its index), with
   * filters on either profile (a client being onboarded is found by what was entered so far).
   */
  async list(input: ListClientsInput): Promise<Page<ClientView>> {
    const filters = {
      q: input.q,
      confirmed: input.confirmed,
      plan: input.plan,
      stream: input.stream,
      eco_organism: input.ecoOrganism,
      status: input.status,
      // A cursor holds its filters: a digest of the ids keeps it short.
      clients: input.clientIds && createHash('sha256').update(input.clientIds.join(',')).digest('base64url').slice(0, 16),
    };
    const after = positionOf(input.cursor, filters, CLIENT_ID_PATTERN);
    const limit = input.limit ?? DEFAULT_PAGE_SIZE;
    const listed = await this.clients.list(
      {
        q: input.q,
        confirmed: input.confirmed,
        plan: input.plan,
        stream: input.stream,
        ecoOrganism: input.ecoOrganism,
        status: input.status,
        clientIds: input.clientIds,
      },
      after,
      limit + 1,
    );
    const rows = listed.map(({ client, createdText }) => ({ view: viewOf(client), createdText }));
    const page = pageOf(rows, limit, (r) => ({ at: r.createdText, id: r.view.clientId }), filters);
    return { ...page, items: page.items.map((r) => r.view) };
  }

  /**
   * In `manager`'s transaction, before a credential is issued: 404 unless the client exists, 409 if
   * it is offboarded; its row is locked until the transaction ends, so that an offboarding cannot
   * slip in between.
   */
  async lockForIssue(manager: EntityManager, clientId: string): Promise<void> {
    refuseIfOffboarded(await this.load(manager, clientId, true), 'given new tokens');
  }

  /** 404 unless the client exists. */
  async assertExists(clientId: string): Promise<void> {
    if (!CLIENT_ID_PATTERN.test(clientId) || !(await this.clients.exists(clientId))) throw new NotFoundProblem(`Client "${clientId}"`);
  }

  /**
   * The confirmed clients whose confirmed e-mail address is `email` ignoring the case of A–Z only
   * (see email-address.ts: no Unicode case mapping, PostgreSQL's `lower()` included, takes part),
   * with that address as stored: who may get a sign-in link by e-mail, and where it goes.
   */
  async confirmedWithEmail(email: string): Promise<{ clientId: string; email: string; language: Language }[]> {
    return this.clients.confirmedWithEmail(foldEmail(email));
  }

  private checkValues(patch: ProfilePatch): void {
    const errors = profileValueErrors(patch, this.catalogue);
    if (errors.length > 0) throw new ValidationProblem(errors);
  }

  private async load(manager: EntityManager, clientId: string, lock = false): Promise<ClientEntity> {
    // An id that cannot exist is not looked up (and a NUL byte never reaches PostgreSQL).
    if (!CLIENT_ID_PATTERN.test(clientId)) throw new NotFoundProblem(`Client "${clientId}"`);
    const client = await this.clients.find(manager, clientId, lock);
    if (!client) throw new NotFoundProblem(`Client "${clientId}"`);
    return client;
  }
}
