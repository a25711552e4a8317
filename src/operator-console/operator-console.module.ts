import { Module } from '@nestjs/common';
import type { Request } from 'express';
import { AccountsModule } from '../accounts/accounts.module.js';
import { AuditModule } from '../audit/audit.module.js';
import { AuthModule } from '../auth/auth.module.js';
import { isConsolePath } from '../auth/sessions/csrf.js';
import { PAGE_PROBLEMS, type PageProblems } from '../common/problem/page-problems.js';
import { DASHBOARD_PAGE_PROBLEMS, DashboardModule } from '../dashboard/dashboard.module.js';
import { DeclarationsModule } from '../declarations/declarations.module.js';
import { ExportsModule } from '../exports/exports.module.js';
import { ProductsModule } from '../products/products.module.js';
import { ReferenceModule } from '../reference/reference.module.js';
import { ConsolePageController } from './console.page.controller.js';
import { ConsoleService } from './console.service.js';
import { OperatorViews } from './operator-views.js';
import { OperatorSignInPageController } from './sign-in.page.controller.js';
import { StandingRepository } from './standing.repository.js';
import { StandingService } from './standing.js';

/** The operator's console at /operator: named operators' pages on the admin API's services. */
@Module({
  imports: [AuthModule, AccountsModule, AuditModule, DeclarationsModule, ExportsModule, ProductsModule, ReferenceModule, DashboardModule],
  controllers: [OperatorSignInPageController, ConsolePageController],
  providers: [
    OperatorViews,
    ConsoleService,
    StandingRepository,
    StandingService,
    {
      // Problems on console addresses are the console's pages; the dashboard's answer the rest.
      provide: PAGE_PROBLEMS,
      useFactory: (views: OperatorViews, dashboard: PageProblems): PageProblems => ({
        handles: (req: Request) => isConsolePath(req.path) || dashboard.handles(req),
        render: (req, res, problem, instance) =>
          isConsolePath(req.path) ? views.renderProblem(req, res, problem, instance) : dashboard.render(req, res, problem, instance),
      }),
      inject: [OperatorViews, DASHBOARD_PAGE_PROBLEMS],
    },
  ],
  exports: [PAGE_PROBLEMS],
})
export class OperatorConsoleModule {}
