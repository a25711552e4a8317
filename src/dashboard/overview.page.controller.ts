import { Controller, Get, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { AccountsService } from '../accounts/accounts.service.js';
import { DashboardPage } from '../auth/audience.js';
import { type AuthenticatedClient, CurrentClient } from '../auth/current-client.decorator.js';
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
  ) {}

  @Get()
  async overview(@Req() req: Request, @Res() res: Response, @CurrentClient() client: AuthenticatedClient): Promise<void> {
    const [obligations, view] = await Promise.all([this.obligations.forAccount(client.account), this.accounts.get(client.clientId)]);
    // What the operator has recorded and not confirmed yet (the whole profile before onboarding ends).
    const pending = view.confirmedAt === null || view.unconfirmedChanges ? view.pending : null;
    this.views.render(req, res, 'overview', { title: 'Overview', nav: 'overview' }, { account: client.account, obligations, pending });
  }
}
