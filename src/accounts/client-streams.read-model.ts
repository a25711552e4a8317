import { liableFrom } from '../calendar/liability.js';
import type { ClientStreamsRow, StreamSettingRow } from './client-streams.repository.js';

// What another module's statement may read of a client's stream settings, so that a page reads them
// with the rest of what it shows in one round trip (the dashboard's overview).

/** One stream of a client, with its settings. */
export interface StreamSettingView {
  stream: string;
  /** Whether the stream is in the confirmed profile (else only in the pending one). */
  confirmed: boolean;
  ecoOrganism: string | null;
  /** As set by the operator; null = the half-year of the first confirmation. */
  liableFromSet: string | null;
  /** The half-year from which the client declares the stream; null while never confirmed. */
  liableFrom: string | null;
}

/** SQL: the settings stored for the client of the `clients` row `alias`, a JSON array of StreamSettingRow. */
export const STREAM_SETTINGS_JSON = (alias: string) =>
  `(SELECT coalesce(json_agg(json_build_object('stream', cs.stream, 'ecoOrganism', cs.eco_organism, 'liableFrom', cs.liable_from)), '[]')
      FROM client_streams cs WHERE cs.client_id = ${alias}.client_id)`;

/** Every stream of the client (pending or confirmed, or with a setting), sorted, with its settings. */
export function streamSettings(client: ClientStreamsRow, rows: readonly StreamSettingRow[]): StreamSettingView[] {
  const settings = new Map(rows.map((r) => [r.stream, r]));
  const streams = [...new Set([...client.confirmedStreams, ...client.pendingStreams, ...rows.map((r) => r.stream)])].sort();
  return streams.map((stream) => {
    const s = settings.get(stream);
    return {
      stream,
      confirmed: client.confirmedStreams.includes(stream),
      ecoOrganism: s?.ecoOrganism ?? null,
      liableFromSet: s?.liableFrom ?? null,
      liableFrom: liableFrom(s?.liableFrom, client.firstConfirmedAt),
    };
  });
}
