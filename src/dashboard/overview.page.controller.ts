import { Controller, Get, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { AccountsService } from '../accounts/accounts.service.js';
import { DashboardPage } from '../caller/audience.js';
import type { Account } from '../accounts/account.js';
import { CurrentAccount } from '../accounts/current-account.js';
import { SessionsService } from '../auth/sessions/sessions.service.js';
import { ObligationsService } from '../declarations/obligations/obligations.service.js';
import type { PeriodObligation } from '../declarations/obligations/obligations.js';
import type { YearDto } from '../declarations/years/year.dto.js';
import { YearsService } from '../declarations/years/years.service.js';
import type { Language } from '../i18n/language.js';
import { ReferenceCatalogue } from '../reference/reference-catalogue.js';
import { DashboardViews } from './dashboard-views.js';

/** The account as GET /me shows it, and what is due: the same rules as GET /me/obligations. */
@ApiExcludeController()
@DashboardPage()
@Controller('dashboard')
export class OverviewPageController {
  constructor(
    private readonly views: DashboardViews,
    private readonly obligations: ObligationsService,
    private readonly accounts: AccountsService,
    private readonly sessions: SessionsService,
    private readonly years: YearsService,
    private readonly catalogue: ReferenceCatalogue,
  ) {}

  @Get()
  async overview(@Req() req: Request, @Res() res: Response, @CurrentAccount() account: Account): Promise<void> {
    const [obligations, view, sessions] = await Promise.all([
      this.obligations.forAccount(account),
      this.accounts.get(account.clientId),
      this.sessions.list(account.clientId),
    ]);
    // What the operator has recorded and not confirmed yet (the whole profile before onboarding ends).
    const pending = view.confirmedAt === null || view.unconfirmedChanges ? view.pending : null;
    const m = this.views.messages(req, res);
    const language = this.views.language(req, res);
    // Where each year with a declaration puts the client in the eco-organisms' filing tiers (GET /api/v1/me/years/{year}).
    const declaredYears = [...new Set(obligations.streams.flatMap((s) => s.periods.filter((p) => p.declaration).map((p) => p.period.slice(0, 4))))];
    const yearViews = new Map(await Promise.all(declaredYears.map(async (year) => [year, await this.years.forAccount(account, year, 'live')] as const)));
    const tiersOf = (stream: string, year: string) => this.tierLines(yearViews.get(year), stream, language);
    const streams = obligations.streams.map((stream) => ({ ...stream, years: byYear(stream.periods).map((y) => ({ ...y, tiers: tiersOf(stream.stream, y.year) })) }));
    this.views.render(req, res, 'overview', { title: m.dashboardPages.overview.title, nav: 'overview', liveData: true }, { account, obligations, streams, pending, sessions: sessions.length });
  }

  /** A stream's tier placements of a year, as the page says them: the count's bounds, the tier or the tiers it may be in, in the page's language. */
  private tierLines(year: YearDto | undefined, stream: string, language: Language) {
    if (!year) return [];
    return year.filing_tiers
      // An eco-organism that publishes no tiers places no one: nothing to say.
      .filter((placement) => placement.stream === stream && placement.count !== null && placement.possible_tiers.length > 0)
      .map((placement) => {
        const label = (id: string) => this.catalogue.filingScheme(stream, placement.eco_organism)?.tiers.find((tier) => tier.id === id)?.label[language] ?? id;
        return { eco: placement.eco_organism, low: placement.count!.at_least, high: placement.count!.at_most, soFar: !year.complete, tier: placement.tier ? placement.tier.label[language] : null, tiers: placement.possible_tiers.map(label) };
      });
  }
}

/**
 * A stream's half-years by year, newest first: S1 and S2 of a year are added together for the
 * eco-organism's annual declaration, so the year's deadline is said once.
 */
function byYear(periods: readonly PeriodObligation[]): { year: string; due: string | null; periods: PeriodObligation[]; settled: boolean }[] {
  const years = new Map<string, PeriodObligation[]>();
  for (const period of periods) years.set(period.period.slice(0, 4), [...(years.get(period.period.slice(0, 4)) ?? []), period]);
  return [...years.entries()]
    .sort(([a], [b]) => (a < b ? 1 : -1))
    .map(([year, list]) => ({ year, due: list.find((p) => p.due_date)?.due_date ?? null, periods: list, settled: list.every((p) => p.status === 'declared') }));
}
