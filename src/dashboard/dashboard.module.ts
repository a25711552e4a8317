import { Module } from '@nestjs/common';
import type { Request } from 'express';
import { AccountsModule } from '../accounts/accounts.module.js';
import { AuthModule } from '../auth/auth.module.js';
import type { PageProblems } from '../common/problem/page-problems.js';
import { DeclarationsModule } from '../declarations/declarations.module.js';
import { ReferenceModule } from '../reference/reference.module.js';
import { DashboardViews } from './dashboard-views.js';
import { DeclarationsPageController } from './declarations.page.controller.js';
import { DeclarationCheckPresenter } from './declaration-check.presenter.js';
import { OverviewPageController } from './overview.page.controller.js';
import { ProductFilePageController } from './product-file.page.controller.js';
import { OverviewRepository } from './overview.repository.js';
import { ProductsPageController } from './products.page.controller.js';
import { ProductsModule } from '../products/products.module.js';
import { SignInPageController } from './sign-in.page.controller.js';
import { TokensPageController } from './tokens.page.controller.js';

/** The dashboard's answer to problems (the operator's console, above it, combines it with its own as PAGE_PROBLEMS). */
export const DASHBOARD_PAGE_PROBLEMS = Symbol('DASHBOARD_PAGE_PROBLEMS');

/** Every address under /dashboard answers problems as pages. */
const isDashboard = (req: Request) => req.path === '/dashboard' || req.path.startsWith('/dashboard/');

/** The client dashboard: sign-in, overview, tokens, declarations; server-rendered pages. */
@Module({
  imports: [AuthModule, AccountsModule, DeclarationsModule, ProductsModule, ReferenceModule],
  controllers: [
    SignInPageController,
    OverviewPageController,
    TokensPageController,
    ProductFilePageController,
    DeclarationsPageController,
    ProductsPageController,
  ],
  providers: [
    DashboardViews,
    DeclarationCheckPresenter,
    OverviewRepository,
    {
      provide: DASHBOARD_PAGE_PROBLEMS,
      useFactory: (views: DashboardViews): PageProblems => ({
        handles: isDashboard,
        render: (req, res, problem, instance) => views.renderProblem(req, res, problem, instance),
      }),
      inject: [DashboardViews],
    },
  ],
  exports: [DASHBOARD_PAGE_PROBLEMS],
})
export class DashboardModule {}
