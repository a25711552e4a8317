import { type DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_INTERCEPTOR, APP_PIPE } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import { LoggerModule } from 'nestjs-pino';
import type { DestinationStream } from 'pino';
import { AccountsModule } from './accounts/accounts.module.js';
import { AuditModule } from './audit/audit.module.js';
import { RefusedActionsInterceptor } from './audit/refused-actions.js';
import { AuthGuard } from './auth/auth.guard.js';
import { AuthModule } from './auth/auth.module.js';
import { CsrfInterceptor } from './auth/sessions/csrf.js';
import { RequestBodyInterceptor } from './common/http/request-body.js';
import { RequestLog } from './common/logging.js';
import { type Metrics, MetricsModule } from './common/metrics.js';
import { ProblemFilter } from './common/problem/problem.filter.js';
import { ApiValidationPipe } from './common/validation.js';
import type { AppConfig } from './config/config.js';
import { ConfigModule } from './config/config.module.js';
import { DashboardModule } from './dashboard/dashboard.module.js';
import { OperatorConsoleModule } from './operator-console/operator-console.module.js';
import { type DatabaseConnection, databaseOptions, type QueryTimeouts } from './database/database-options.js';
import { PreparedStatementsModule } from './database/prepared-statements.js';
import { ProcessPresenceModule } from './database/process-presence.js';
import { DeclarationsModule } from './declarations/declarations.module.js';
import { EdgeModule } from './edge/edge.module.js';
import { ExportsModule } from './exports/exports.module.js';
import { HealthModule } from './health/health.module.js';
import type { MailDelivery } from './mail/mail-delivery.js';
import { MailModule } from './mail/mail.module.js';
import { ProductsModule } from './products/products.module.js';
import { RateLimitGuard } from './rate-limit/rate-limit.guard.js';
import { RateLimitModule } from './rate-limit/rate-limit.module.js';
import type { RateLimits } from './rate-limit/rate-limits.js';
import { SignInLimitGuard } from './rate-limit/sign-in-limits.js';
import { ReferenceModule } from './reference/reference.module.js';
import { SandboxModule } from './sandbox/sandbox.module.js';
import { SiteModule } from './site/site.module.js';

export interface AppModuleOptions {
  /** Where the JSON log lines go (default stdout); the tests read them. */
  logStream?: DestinationStream;
  /** The request log, when the caller runs the edge (createApp); else one is made here. */
  requestLog?: RequestLog;
  /** Overrides of the configured rate limits (the bench raises them). */
  rateLimits?: Partial<RateLimits>;
  /** The query timeouts of the app's connections (tests lower them). */
  queryTimeouts?: QueryTimeouts;
  /** The Prometheus metrics, when METRICS_PORT is set (createApp makes them). */
  metrics?: Metrics;
  /** How the mail outbox is delivered (tests shorten the waits). */
  mailDelivery?: Partial<MailDelivery>;
}

/**
 * The application: every module, and the request pipeline in its order.
 *
 * Before Nest, the edge (src/edge/edge-handler.ts) gives each request its id and log line, answers
 * the public files and GET /me from memory, and sets helmet's headers. Then Express routes it, and
 * Nest runs, for the route found: the guards, the interceptors, the pipe, the handler, in the order
 * below; the filter answers whatever any of them throws.
 */
@Module({})
export class AppModule {
  static forRoot(config: AppConfig, database: DatabaseConnection, options: AppModuleOptions = {}): DynamicModule {
    return {
      module: AppModule,
      imports: [
        // platform
        ConfigModule.forRoot(config),
        LoggerModule.forRoot((options.requestLog ?? new RequestLog(config, options.logStream)).params()),
        // Each module registers its own entities (TypeOrmModule.forFeature).
        TypeOrmModule.forRoot({
          ...databaseOptions(database, config.migrationsRun, options.queryTimeouts, (kind) => options.metrics?.queryTimedOut(kind)),
          autoLoadEntities: true,
        }),
        MetricsModule.forRoot(options.metrics),
        PreparedStatementsModule,
        ProcessPresenceModule,
        RateLimitModule.forRoot(options.rateLimits),
        HealthModule,
        MailModule.forRoot(options.mailDelivery),
        // domain, credentials, features, pages, edge
        ReferenceModule,
        AuditModule,
        AccountsModule,
        AuthModule,
        DeclarationsModule,
        SandboxModule,
        ProductsModule,
        ExportsModule,
        SiteModule,
        DashboardModule,
        OperatorConsoleModule,
        EdgeModule,
      ],
      providers: [
        // 1. Who is calling, by the route's audience: deny by default (public, client token, operator, dashboard session).
        { provide: APP_GUARD, useExisting: AuthGuard },
        // 2. Their quotas: per client or operator, so after 1.
        { provide: APP_GUARD, useExisting: RateLimitGuard },
        // 3. A public form's POST (signing in) against its address's sign-in limit: before its body is read.
        { provide: APP_GUARD, useExisting: SignInLimitGuard },
        // 4. The body, read only now that the caller is known (json | csv | form | multipart, as the route declares).
        { provide: APP_INTERCEPTOR, useClass: RequestBodyInterceptor },
        // An operator's write refused (409, 412, 422, from 6 or the handler): recorded in the audit trail, then answered.
        { provide: APP_INTERCEPTOR, useExisting: RefusedActionsInterceptor },
        // 5. A form's CSRF token, which comes in its body: after 4.
        { provide: APP_INTERCEPTOR, useExisting: CsrfInterceptor },
        // 6. JSON bodies and queries validated against their DTOs (every problem at once: 422).
        { provide: APP_PIPE, useClass: ApiValidationPipe },
        // Any error of 1–6 or of the handler: problem+json, or a page under /dashboard or /operator (PAGE_PROBLEMS, from OperatorConsoleModule).
        { provide: APP_FILTER, useClass: ProblemFilter },
      ],
    };
  }
}
