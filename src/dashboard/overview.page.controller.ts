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
    const streams = obligations.streams.map((stream) => ({ ...stream, years: byYear(stream.periods) }));
    this.views.render(req, res, 'overview', { title: m.dashboardPages.overview.title, nav: 'overview' }, { account, obligations, streams, pending, sessions: sessions.length });
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
