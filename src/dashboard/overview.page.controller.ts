import { Controller, Get, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { AccountsService } from '../accounts/accounts.service.js';
import { DashboardPage } from '../caller/audience.js';
import type { Account } from '../accounts/account.js';
import { CurrentAccount } from '../accounts/current-account.js';
import { SessionsService } from '../auth/sessions/sessions.service.js';
import { ObligationsService } from '../declarations/obligations/obligations.service.js';
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
    this.views.render(req, res, 'overview', { title: 'Overview', nav: 'overview' }, { account, obligations, pending, sessions: sessions.length });
  }
}
