import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { AuditTrail } from '../audit/audit-trail.js';
import type { Actor } from '../caller/actor.js';
import { type FieldError, NotFoundProblem, ValidationProblem } from '../common/problem/problem.js';
import { ReferenceCatalogue } from '../reference/reference-catalogue.js';
import { type ClientStreamsRow, ClientStreamsRepository } from './client-streams.repository.js';
import { streamSettings, type StreamSettingView } from './client-streams.read-model.js';
import { CLIENT_ID_PATTERN, type StreamSettingInput } from './account.js';
import { halfYearOf, parsePeriod } from '../calendar/half-year.js';
import { liableFrom } from '../calendar/liability.js';

export type { StreamSettingInput } from './account.js';
export type { StreamSettingView };

/**
 * Per client and stream: the eco-organism its declarations of the stream go to, and the half-year
 * from which it is liable (its own table, `client_streams`). The eco-organism must be one the
 * published streams data lists for the stream, approved (where an approval is published) in the
 * half-year from which the client declares.
 */
@Injectable()
export class ClientStreamsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly repository: ClientStreamsRepository,
    private readonly catalogue: ReferenceCatalogue,
    private readonly audit: AuditTrail,
  ) {}

  /** Every stream of the client (pending or confirmed), with its settings. */
  async list(clientId: string, manager: EntityManager = this.dataSource.manager): Promise<StreamSettingView[]> {
    const client = await this.client(manager, clientId);
    return streamSettings(client, await this.repository.listSettings(manager, clientId));
  }

  /** Sets the eco-organism and liability start of one stream of the client (both replaced; null clears). */
  async set(clientId: string, stream: string, input: StreamSettingInput, actor: Actor, now = new Date()): Promise<StreamSettingView> {
    return this.dataSource.transaction(async (manager) => {
      await this.client(manager, clientId, true);
      if (!this.catalogue.stream(stream)) throw new NotFoundProblem(`Stream "${stream}"`);
      await this.setWithin(manager, clientId, [{ stream, ...input, pointer: '' }], actor, now);
      return (await this.list(clientId, manager)).find((s) => s.stream === stream)!;
    });
  }

  /**
   * In `manager`'s transaction, sets each stream's eco-organism and liability start (both replaced;
   * null clears), all or none: every problem at once (422, at `pointer` + `/eco_organism`), nothing
   * written. Each stream that changes is recorded as `client.stream_updated`.
   */
  async setWithin(
    manager: EntityManager,
    clientId: string,
    settings: readonly (StreamSettingInput & { stream: string; pointer: string })[],
    actor: Actor,
    now = new Date(),
  ): Promise<void> {
    const client = await this.client(manager, clientId, true);
    const errors: FieldError[] = [];
    const registered = [...new Set([...client.confirmedStreams, ...client.pendingStreams])];
    for (const { stream, ecoOrganism, liableFrom: liableFromSet, pointer } of settings) {
      if (!registered.includes(stream)) {
        errors.push({
          pointer,
          code: 'stream_not_registered',
          detail: `the client's profile has no stream ${stream} (it has ${registered.join(', ') || 'none'}): add it to the profile first`,
          params: { stream, registered },
        });
      }
      if (ecoOrganism !== null) {
        const period = liableFromSet ?? liableFrom(null, client.firstConfirmedAt) ?? halfYearOf(now);
        const listed = this.ecoOrganismsFor(stream, period);
        if (!listed.includes(ecoOrganism)) {
          errors.push({
            pointer: `${pointer}/eco_organism`,
            code: 'unknown_eco_organism',
            detail: `"${ecoOrganism}" is not an eco-organism the published data lists for ${stream} in ${period}; choose one of: ${listed.join(', ') || 'none'}`,
            params: { value: ecoOrganism, stream, period, listed },
          });
        }
      }
    }
    if (errors.length > 0) throw new ValidationProblem(errors);

    for (const { stream, ...input } of settings) {
      const before = await this.repository.findSetting(manager, clientId, stream);
      const changes: Record<string, { from: unknown; to: unknown }> = {};
      if ((before?.ecoOrganism ?? null) !== input.ecoOrganism)
        changes.eco_organism = { from: before?.ecoOrganism ?? null, to: input.ecoOrganism };
      if ((before?.liableFrom ?? null) !== input.liableFrom)
        changes.liable_from = { from: before?.liableFrom ?? null, to: input.liableFrom };
      if (Object.keys(changes).length === 0) continue;
      await this.repository.upsertSetting(manager, clientId, { stream, ecoOrganism: input.ecoOrganism, liableFrom: input.liableFrom });
      await this.audit.record(manager, actor, {
        action: 'client.stream_updated',
        targetType: 'client',
        targetId: clientId,
        clientId,
        changes: { stream, ...changes },
      });
    }
  }

  /**
   * The eco-organisms the published data lists for a stream in a half-year: every one listed
   * (approved, candidate, or approval not verified: the data says which), except a coordinating
   * body (producers do not join it) and those whose published approval does not cover any of the half-year.
   */
  ecoOrganismsFor(stream: string, period: string): string[] {
    const { start, end } = parsePeriod(period)!;
    return (this.catalogue.stream(stream)?.eco_organisms ?? [])
      .filter((organism) => organism.role !== 'coordinating_body')
      .filter((organism) => !organism.approval || (organism.approval.from <= end && organism.approval.to >= start))
      .map((organism) => organism.name);
  }

  private async client(manager: EntityManager, clientId: string, lock = false): Promise<ClientStreamsRow> {
    if (!CLIENT_ID_PATTERN.test(clientId)) throw new NotFoundProblem(`Client "${clientId}"`);
    const row = await this.repository.findClient(manager, clientId, lock);
    if (!row) throw new NotFoundProblem(`Client "${clientId}"`);
    return row;
  }
}
