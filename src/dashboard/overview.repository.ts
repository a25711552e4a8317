import { Injectable } from '@nestjs/common';
import { STREAM_SETTINGS_JSON, streamSettings, type StreamSettingView } from '../accounts/client-streams.read-model.js';
import type { StreamSettingRow } from '../accounts/client-streams.repository.js';
import { type Profile, sameProfile } from '../accounts/profile.js';
import { LIVE } from '../auth/sessions/sessions.repository.js';
import { SESSION_IDLE_MS } from '../auth/sessions/session-cookie.js';
import type { DeclaredPeriod } from '../declarations/obligations/obligations.js';
import type { HalfYearUnitsSold, YearLine } from '../declarations/years/annual-filing.js';
import { PreparedStatements, type Statement } from '../database/prepared-statements.js';

/** What the overview shows besides the signed-in account, read in one statement. */
export interface OverviewData {
  /** The profile the operator recorded and has not confirmed yet (the whole profile before onboarding ends); null when there is none. */
  pending: Profile | null;
  /** The current live revisions that have lines, with the streams they declare (DeclarationsRepository.currentDeclarations). */
  declared: DeclaredPeriod[];
  /** Per year, stream, material and unit: the current revisions' quantities of S1, S2 and both (YearTotalsRepository.lines, without the material names the page does not show). */
  yearLines: Map<string, Pick<YearLine, 'stream' | 'unit' | 's1' | 's2' | 'quantity'>[]>;
  /** Per year, the units sold its current revisions state (YearTotalsRepository.unitsSold). */
  yearUnitsSold: Map<string, HalfYearUnitsSold[]>;
  /** How many live sessions the client has (SessionsService.list's count). */
  sessions: number;
  /** Each stream's eco-organism and liability start, as the operator recorded them (ClientStreamsService.list). */
  settings: StreamSettingView[];
}

interface OverviewRow {
  pendingEmail: string | null;
  pendingCompany: string | null;
  pendingCountry: string | null;
  pendingPlan: string | null;
  pendingStreams: string[];
  pendingIdus: string[];
  confirmedEmail: string | null;
  confirmedCompany: string | null;
  confirmedCountry: string | null;
  confirmedPlan: string | null;
  confirmedStreams: string[];
  confirmedIdus: string[];
  confirmedAt: Date | null;
  firstConfirmedAt: Date | null;
  settings: StreamSettingRow[];
  declared: (Omit<DeclaredPeriod, 'streams'> & { streams: string[] | null })[];
  yearLines: { year: string; stream: string; unit: string; s1: string | null; s2: string | null; quantity: string }[];
  unitsSold: ({ year: string } & HalfYearUnitsSold)[];
  sessions: number;
}

/**
 * The overview's reads: the client's profiles, its stream settings (through their owner's read
 * model), its current live declarations, each year's totals for the filing tiers, and its live
 * sessions — what five services read in 6 statements plus 2 per declared year — in ONE statement,
 * prepared once per connection. Each part is the SQL of the service named in `OverviewData`; the e2e
 * tests of the overview, of GET /me/obligations and of GET /me/years/{year} pin that they say the same.
 */
const OVERVIEW: Statement = {
  name: 'dashboard.overview',
  text: `SELECT c.pending_email AS "pendingEmail", c.pending_company AS "pendingCompany", c.pending_country AS "pendingCountry",
                c.pending_plan AS "pendingPlan", c.pending_streams AS "pendingStreams", c.pending_idus AS "pendingIdus",
                c.confirmed_email AS "confirmedEmail", c.confirmed_company AS "confirmedCompany", c.confirmed_country AS "confirmedCountry",
                c.confirmed_plan AS "confirmedPlan", c.confirmed_streams AS "confirmedStreams", c.confirmed_idus AS "confirmedIdus",
                c.confirmed_at AS "confirmedAt", c.first_confirmed_at AS "firstConfirmedAt", ${STREAM_SETTINGS_JSON('c')} AS settings,
                (SELECT coalesce(json_agg(json_build_object('id', d.id, 'period', d.period, 'revision', d.revision, 'receipt', d.receipt,
                                                            'streams', (SELECT array_agg(DISTINCT l.stream ORDER BY l.stream) FROM declaration_lines l WHERE l.declaration_id = d.id))), '[]')
                   FROM declarations d WHERE d.client_id = c.client_id AND d.mode = 'live' AND d.status = 'current') AS declared,
                (SELECT coalesce(json_agg(y), '[]')
                   FROM (SELECT left(d.period, 4) AS year, l.stream, l.unit,
                                trim_scale(sum(l.quantity) FILTER (WHERE right(d.period, 2) = 'S1'))::text AS s1,
                                trim_scale(sum(l.quantity) FILTER (WHERE right(d.period, 2) = 'S2'))::text AS s2,
                                trim_scale(sum(l.quantity))::text AS quantity
                           FROM declarations d JOIN declaration_lines l ON l.declaration_id = d.id
                          WHERE d.client_id = c.client_id AND d.mode = 'live' AND d.status = 'current'
                          GROUP BY left(d.period, 4), l.stream, l.material_code, CASE WHEN l.material_code IS NULL THEN l.material END, l.unit) AS y) AS "yearLines",
                (SELECT coalesce(json_agg(json_build_object('year', left(d.period, 4), 'half', lower(right(d.period, 2)), 'stream', u.stream, 'quantity', u.quantity)), '[]')
                   FROM declarations d CROSS JOIN LATERAL jsonb_to_recordset(d.units_sold) AS u (stream text, quantity text)
                  WHERE d.client_id = c.client_id AND d.mode = 'live' AND d.status = 'current') AS "unitsSold",
                (SELECT count(*)::int FROM dashboard_sessions s WHERE s.client_id = c.client_id AND ${LIVE('$2')}) AS sessions
           FROM clients c WHERE c.client_id = $1`,
};

@Injectable()
export class OverviewRepository {
  constructor(private readonly statements: PreparedStatements) {}

  /** Undefined when the client is gone (the session was read a moment ago: a race with offboarding). */
  async read(clientId: string): Promise<OverviewData | undefined> {
    const [row] = await this.statements.query<OverviewRow>(OVERVIEW, [clientId, SESSION_IDLE_MS]);
    if (!row) return undefined;
    const pending: Profile = {
      email: row.pendingEmail,
      company: row.pendingCompany,
      country: row.pendingCountry,
      plan: row.pendingPlan,
      streams: row.pendingStreams,
      idus: row.pendingIdus,
    };
    const confirmed: Profile | null =
      row.confirmedAt === null
        ? null
        : {
            email: row.confirmedEmail,
            company: row.confirmedCompany,
            country: row.confirmedCountry,
            plan: row.confirmedPlan,
            streams: row.confirmedStreams,
            idus: row.confirmedIdus,
          };
    const yearLines = new Map<string, Pick<YearLine, 'stream' | 'unit' | 's1' | 's2' | 'quantity'>[]>();
    for (const { year, ...line } of row.yearLines) yearLines.set(year, [...(yearLines.get(year) ?? []), line]);
    const yearUnitsSold = new Map<string, HalfYearUnitsSold[]>();
    for (const { year, ...entry } of row.unitsSold) yearUnitsSold.set(year, [...(yearUnitsSold.get(year) ?? []), entry]);
    return {
      pending: confirmed === null || !sameProfile(pending, confirmed) ? pending : null,
      // A revision without lines declares no stream (the services' queries join the lines).
      declared: row.declared.filter((d): d is DeclaredPeriod => d.streams !== null),
      yearLines,
      yearUnitsSold,
      sessions: row.sessions,
      settings: streamSettings(row, row.settings),
    };
  }
}
