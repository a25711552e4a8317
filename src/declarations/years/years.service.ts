import { Injectable } from '@nestjs/common';
import type { Account } from '../../accounts/account.js';
import type { TokenMode } from '../../common/token-format.js';
import { NotFoundProblem } from '../../common/problem/problem.js';
import type { Stream } from '../../reference/reference-documents.js';
import { ReferenceCatalogue } from '../../reference/reference-catalogue.js';
import { Clock, parisDate } from '../../calendar/clock.js';
import { parsePeriod } from '../../calendar/half-year.js';
import { tierPlacements, yearDeadlines } from './annual-filing.js';
import type { ClientYear, YearPeriod } from './year.js';
import { YearTotalsRepository } from './year-totals.repository.js';

/** The first year the service accepts declarations for (streams.json `declarable_from`). */
const FIRST_YEAR = 2022;

/** GET /me/years/{year}: the annual view of a client's half-years. */
@Injectable()
export class YearsService {
  constructor(
    private readonly repository: YearTotalsRepository,
    private readonly catalogue: ReferenceCatalogue,
    private readonly clock: Clock,
  ) {}

  /** `mode` `test`: the year of the client's sandbox declarations (a live token never sees them). */
  async forAccount(account: Account, yearText: string, mode: TokenMode): Promise<ClientYear> {
    const today = parisDate(this.clock.now());
    const year = /^[0-9]{4}$/.test(yearText) ? Number(yearText) : NaN;
    // A year the service cannot hold declarations for is not a resource: 404, as an unknown id.
    if (!(year >= FIRST_YEAR && year <= Number(today.slice(0, 4))))
      throw new NotFoundProblem(`Year ${JSON.stringify(yearText).slice(0, 20)} (years from ${FIRST_YEAR} to the current one)`);
    const scope = { clientId: account.clientId, mode };
    const [revisions, lines, unitsSold] = await Promise.all([
      this.repository.currentRevisions(scope, year),
      this.repository.lines(scope, year),
      this.repository.unitsSold(scope, year),
    ]);
    const periods = [`${year}-S1`, `${year}-S2`].map((code): YearPeriod => {
      const period = parsePeriod(code)!;
      const declaration = revisions.find((revision) => revision.period === code);
      return {
        period: code,
        ended: period.end < today,
        status: declaration ? 'declared' : 'missing',
        declaration: declaration ? { id: declaration.id, revision: declaration.revision, receipt: declaration.receipt } : null,
      };
    });
    const codes = new Set([...account.profile.streams, ...lines.map((line) => line.stream)]);
    const streams = [...codes].map((code) => this.catalogue.stream(code)).filter((s): s is Stream => s !== undefined);
    return {
      clientId: account.clientId,
      year,
      today,
      complete: periods.every((period) => period.ended && period.status === 'declared'),
      periods,
      lines,
      filingTiers: tierPlacements(streams, lines, unitsSold, year, (stream, eco, count) => this.catalogue.filingTier(stream, eco, count)),
      deadlines: streams.flatMap((stream) => yearDeadlines(stream, year).map((deadline) => ({ stream: stream.code, ...deadline }))),
    };
  }
}
