import type { Language } from '../i18n/language.js';
import { emptyProfile, type Profile, type ProfilePatch } from './profile.js';

// The accounts module's public surface for other modules: what an account is, and how a query that
// joins `clients AS c` reads one (the token lookup reads the token and its account in one query).

/** Operator-chosen client ids: lower case, URL-safe, 3 to 63 characters. */
export const CLIENT_ID_PATTERN = /^[a-z0-9][a-z0-9_-]{2,62}$/;

/**
 * The client's account as the client, and the declarations, see it: the confirmed profile, or an
 * empty one before the first confirmation (`confirmedAt` null).
 */
export interface Account {
  clientId: string;
  profile: Profile;
  confirmedAt: Date | null;
  /** The language the service speaks to the client in (set by the operator): its e-mails, and its dashboard unless a person chose otherwise. */
  language?: Language;
}

/**
 * The columns of an `Account`, for queries that read it next to something else (the token lookup
 * joins `clients AS c`), and their mapping.
 */
export const ACCOUNT_COLUMNS = `c.client_id AS "clientId", c.confirmed_at AS "confirmedAt", c.confirmed_email AS "email",
  c.confirmed_company AS "company", c.confirmed_country AS "country", c.confirmed_plan AS "plan",
  c.confirmed_streams AS "streams", c.confirmed_idus AS "idus", c.status AS "status", c.language AS "language"`;

/** `active`; `suspended` (its credentials are refused until reactivated); `offboarded` (access ended for good). */
export type AccountStatus = 'active' | 'suspended' | 'offboarded';

export type AccountRow = Profile & { clientId: string; confirmedAt: Date | null; status?: AccountStatus; language?: Language };

export function accountFromRow(row: AccountRow): Account {
  const { clientId, confirmedAt, email, company, country, plan, streams, idus, language } = row;
  return {
    clientId,
    confirmedAt,
    profile: confirmedAt === null ? emptyProfile() : { email, company, country, plan, streams, idus },
    ...(language ? { language } : {}),
  };
}

/** What the operator sets for one stream of a client. */
export interface StreamSettingInput {
  ecoOrganism: string | null;
  liableFrom: string | null;
}

/** The language the service writes to the client in: not part of the profile to confirm (it applies at once); null = French. */
export interface LanguagePatch {
  language?: Language | null;
}

/** A new client, as the admin API and the console create it. */
export interface CreateClientInput extends ProfilePatch, LanguagePatch {
  clientId?: string | null;
  /** Per stream of `streams`, where its declarations go and from when: recorded as `PUT …/streams/{stream}` records them. */
  streamSettings?: (StreamSettingInput & { stream: string })[];
  /** Confirm the profile at once. */
  confirm?: boolean;
  /** E-mail the client a sign-in link to its dashboard (needs `confirm` and the service's SMTP_URL). */
  invite?: boolean;
}
