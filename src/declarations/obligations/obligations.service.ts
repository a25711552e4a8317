import { Injectable } from '@nestjs/common';
import type { Account } from '../../accounts/account.js';
import { ClientStreamsService } from '../../accounts/client-streams.service.js';
import type { TokenMode } from '../../common/token-format.js';
import type { Stream } from '../../reference/reference-documents.js';
import { ReferenceCatalogue } from '../../reference/reference-catalogue.js';
import { Clock, parisDate } from '../../calendar/clock.js';
import { DeclarationsRepository } from '../declarations.repository.js';
import type { AccountObligations } from './account-obligations.js';
import { type DeclaredPeriod, obligationsOf } from './obligations.js';

const PENDING_DETAIL =
  'Your account has not been confirmed yet: the operator confirms your profile (company, plan, streams) during onboarding. ' +
  'Until then no stream applies and declarations are refused; GET /api/v1/me shows the confirmed profile once it exists.';

/** GET /me/obligations: what the account has declared and still has to, from the published data only. */
@Injectable()
export class ObligationsService {
  constructor(
    private readonly repository: DeclarationsRepository,
    private readonly catalogue: ReferenceCatalogue,
    private readonly clock: Clock,
    private readonly clientStreams: ClientStreamsService,
  ) {}

  /** `mode` `test`: what the client's sandbox declarations leave due (a live token never sees them). */
  async forAccount(account: Account, mode: TokenMode = 'live'): Promise<AccountObligations> {
    if (account.confirmedAt === null) return this.of(account, [], () => null);
    const [declared, settings] = await Promise.all([
      this.repository.currentDeclarations({ clientId: account.clientId, mode }),
      this.clientStreams.list(account.clientId),
    ]);
    // When the client became liable for each stream: the operator's start, else its first confirmation's half-year.
    const starts = new Map(settings.map((setting) => [setting.stream, setting.liableFrom]));
    return this.of(account, declared, (stream) => starts.get(stream) ?? null);
  }

  /**
   * The same answer from rows already read: the client's current declarations (with the streams
   * their lines declare) and when it became liable for each stream. The dashboard's overview reads
   * them with the rest of its page in one statement.
   */
  of(account: Account, declared: readonly DeclaredPeriod[], startOf: (stream: string) => string | null): AccountObligations {
    const today = parisDate(this.clock.now());
    const base = { clientId: account.clientId, today, catalogueVersion: this.catalogue.catalogueVersion };
    if (account.confirmedAt === null) return { ...base, accountStatus: 'pending', detail: PENDING_DETAIL, streams: [] };
    const streams = account.profile.streams.map((code) => this.catalogue.stream(code)).filter((s): s is Stream => s !== undefined);
    return { ...base, accountStatus: 'confirmed', detail: null, streams: obligationsOf(streams, declared, today, { startOf }) };
  }
}
