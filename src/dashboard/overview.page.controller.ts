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
    const streams = obligations.streams.map((stream) => ({ ...stream, periods: stream.periods.map((period) => ({ ...period, state: stateOf(period) })) }));
    this.views.render(req, res, 'overview', { title: m.dashboardPages.overview.title, nav: 'overview' }, { account, obligations, streams, pending, sessions: sessions.length });
  }
}

/**
 * What a half-year asks of the person: declared; in progress (not ended); to declare (ended, a
 * deadline still ahead); overdue (ended, undeclared, every published deadline passed).
 */
function stateOf(period: PeriodObligation): 'declared' | 'open' | 'to_declare' | 'overdue' {
  if (period.status === 'declared') return 'declared';
  if (!period.ended) return 'open';
  return period.next_deadlines.length > 0 ? 'to_declare' : 'overdue';
}
