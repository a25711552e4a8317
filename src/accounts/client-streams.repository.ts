import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';

/** The streams of a client's profile, as `client_streams` settings need them. */
export interface ClientStreamsRow {
  pendingStreams: string[];
  confirmedStreams: string[];
  firstConfirmedAt: Date | null;
}

/** The settings of one stream of a client, as stored. */
export interface StreamSettingRow {
  stream: string;
  ecoOrganism: string | null;
  liableFrom: string | null;
}

/**
 * The SQL of per-client stream settings (`client_streams`) and the client's streams they hang on.
 * Every statement is scoped by client id and runs in the caller's `manager`.
 */
@Injectable()
export class ClientStreamsRepository {
  /** The client's pending and confirmed streams, locked FOR UPDATE when `lock` (a write follows); undefined for no such client. */
  async findClient(manager: EntityManager, clientId: string, lock = false): Promise<ClientStreamsRow | undefined> {
    const [row] = (await manager.query(
      `SELECT pending_streams AS "pendingStreams", confirmed_streams AS "confirmedStreams", first_confirmed_at AS "firstConfirmedAt"
         FROM clients WHERE client_id = $1 ${lock ? 'FOR UPDATE' : ''}`,
      [clientId],
    )) as ClientStreamsRow[];
    return row;
  }

  /** Every stream setting stored for the client. */
  listSettings(manager: EntityManager, clientId: string): Promise<StreamSettingRow[]> {
    return manager.query(
      `SELECT stream, eco_organism AS "ecoOrganism", liable_from AS "liableFrom" FROM client_streams WHERE client_id = $1`,
      [clientId],
    );
  }

  /** The setting stored for one stream of the client, if any. */
  async findSetting(manager: EntityManager, clientId: string, stream: string): Promise<StreamSettingRow | undefined> {
    const [row] = (await manager.query(
      `SELECT stream, eco_organism AS "ecoOrganism", liable_from AS "liableFrom" FROM client_streams WHERE client_id = $1 AND stream = $2`,
      [clientId, stream],
    )) as StreamSettingRow[];
    return row;
  }

  /** Inserts or replaces the setting of one stream of the client. */
  async upsertSetting(manager: EntityManager, clientId: string, setting: StreamSettingRow): Promise<void> {
    await manager.query(
      `INSERT INTO client_streams (client_id, stream, eco_organism, liable_from) VALUES ($1, $2, $3, $4)
       ON CONFLICT (client_id, stream) DO UPDATE SET eco_organism = EXCLUDED.eco_organism, liable_from = EXCLUDED.liable_from, updated_at = now()`,
      [clientId, setting.stream, setting.ecoOrganism, setting.liableFrom],
    );
  }
}
