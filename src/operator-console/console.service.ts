import { Injectable } from '@nestjs/common';
import { AccountsService, type ClientView, type ListClientsInput } from '../accounts/accounts.service.js';
import { ClientStreamsService } from '../accounts/client-streams.service.js';
import { clientEtag } from '../accounts/client-etag.js';
import type { ClientStatus } from '../accounts/client.entity.js';
import { AuditLogService } from '../audit/audit-log.service.js';
import { SessionsService } from '../auth/sessions/sessions.service.js';
import { SignInLinksService } from '../auth/sign-in-links/sign-in-links.service.js';
import { ClientTokensService } from '../auth/tokens/client-tokens.service.js';
import type { Page } from '../common/paging/keyset-cursor.js';
import { Problem } from '../common/problem/problem.js';
import { DeclarationsAdminService } from '../declarations/declarations-admin.service.js';
import { MailOutbox } from '../mail/mail-outbox.js';
import { ReferenceCatalogue } from '../reference/reference-catalogue.js';
import { type Scope, type Standing, STANDINGS, StandingService, parseScope } from './standing.js';

/** The clients list's filters, as the query string gives them. */
export interface ClientsQuery {
  q?: string;
  status?: string;
  stream?: string;
  eco_organism?: string;
  plan?: string;
  scope?: string;
  standing?: string;
  cursor?: string;
}

/** A client's status as the console lists it: `pending` until its profile is first confirmed. */
export type ConsoleStatus = 'pending' | ClientStatus;
export const CONSOLE_STATUSES: readonly ConsoleStatus[] = ['pending', 'active', 'suspended', 'offboarded'];

export const statusOf = (view: ClientView): ConsoleStatus => (view.confirmedAt === null ? 'pending' : view.status);

const PAGE_SIZE = 25;

const text = (value: unknown): string | undefined => (typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined);

/**
 * What the console's pages show, read through the admin API's own services (clients, streams,
 * tokens, sessions, links, outbox, declarations, audit trail): the console holds no SQL of its own
 * but who owes what for a half-year (standing.repository.ts).
 */
@Injectable()
export class ConsoleService {
  constructor(
    private readonly accounts: AccountsService,
    private readonly streams: ClientStreamsService,
    private readonly tokens: ClientTokensService,
    private readonly sessions: SessionsService,
    private readonly links: SignInLinksService,
    private readonly outbox: MailOutbox,
    private readonly declarations: DeclarationsAdminService,
    private readonly audit: AuditLogService,
    private readonly catalogue: ReferenceCatalogue,
    readonly standing: StandingService,
  ) {}

  /** The scope a query names, else the default one (400 for a scope that is neither a half-year nor a year). */
  scopeOf(value: unknown): Scope {
    const given = text(value);
    if (given === undefined) return this.standing.defaultScope();
    const scope = parseScope(given);
    if (!scope) throw new Problem('bad_request', `"${given}" is neither a half-year (2026-S1) nor a year (2026).`);
    return scope;
  }

  /** The half-years and years the pages offer: the last four half-years and their years. */
  scopeChoices(): string[] {
    const choices: string[] = [];
    let code = this.standing.defaultScope().code;
    for (let i = 0; i < 4; i += 1) {
      choices.push(code);
      const [year, half] = code.split('-S');
      code = half === '1' ? `${Number(year) - 1}-S2` : `${year}-S1`;
    }
    const years = [...new Set(choices.map((c) => c.slice(0, 4)))];
    return [...choices, ...years];
  }

  filterChoices() {
    return { streams: this.catalogue.streamCodes(), ecoOrganisms: this.catalogue.ecoOrganismNames(), plans: this.catalogue.planIds() };
  }

  /** A page of clients by the list's filters; 400 for a value no choice of the form gives. */
  async clients(query: ClientsQuery) {
    const q = text(query.q);
    const status = text(query.status);
    const stream = text(query.stream);
    const eco = text(query.eco_organism);
    const plan = text(query.plan);
    const standing = text(query.standing);
    const choices = this.filterChoices();
    const refuse = (name: string, value: string) => {
      throw new Problem('bad_request', `The ${name} "${value}" is not one the list offers.`);
    };
    if (status !== undefined && !(CONSOLE_STATUSES as readonly string[]).includes(status)) refuse('status', status);
    if (stream !== undefined && !choices.streams.includes(stream)) refuse('stream', stream);
    if (eco !== undefined && !choices.ecoOrganisms.includes(eco)) refuse('eco-organism', eco);
    if (plan !== undefined && !choices.plans.includes(plan)) refuse('plan', plan);
    if (standing !== undefined && !(STANDINGS as readonly string[]).includes(standing)) refuse('standing', standing);
    if (q !== undefined && q.length > 200) throw new Problem('bad_request', 'The search text is longer than 200 characters.');
    const scope = this.scopeOf(query.scope);
    const report = await this.standing.report(scope);
    const input: ListClientsInput = {
      q,
      plan,
      stream,
      ecoOrganism: eco,
      ...(status === 'pending' ? { confirmed: false } : status !== undefined ? { confirmed: true, status: status as ClientStatus } : {}),
      ...(standing !== undefined
        ? { clientIds: this.standing.clientsWith(report, standing as Standing, { stream, ecoOrganism: eco }) }
        : {}),
      cursor: text(query.cursor),
      limit: PAGE_SIZE,
    };
    const page: Page<ClientView> = await this.accounts.list(input);
    return {
      filters: {
        q: q ?? '',
        status: status ?? '',
        stream: stream ?? '',
        eco_organism: eco ?? '',
        plan: plan ?? '',
        standing: standing ?? '',
        scope: scope.code,
      },
      scope,
      counts: report.totals,
      items: page.items.map((view) => ({ view, status: statusOf(view), standing: report.clients.get(view.clientId) ?? null })),
      nextCursor: page.nextCursor,
    };
  }

  /** Everything the client's page shows (404 for no such client). */
  async client(clientId: string) {
    const view = await this.accounts.get(clientId);
    const [streams, tokens, sessions, links, messages, declarations, audit] = await Promise.all([
      this.streams.list(clientId),
      this.tokens.list(clientId),
      this.sessions.list(clientId),
      this.links.outstanding(clientId),
      this.outbox.list(clientId, { limit: 20 }),
      this.declarations.list({ clientId, limit: 20 }),
      this.audit.list({ clientId, limit: 30 }),
    ]);
    return {
      view,
      status: statusOf(view),
      version: clientEtag(view),
      streams,
      tokens,
      sessions,
      links,
      messages: messages.items,
      declarations: declarations.items,
      audit: audit.items,
    };
  }
}
