import { type DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_INTERCEPTOR, APP_PIPE } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import { LoggerModule } from 'nestjs-pino';
import type { DestinationStream } from 'pino';
import { AccountsModule } from './accounts/accounts.module.js';
import { MeFromMemory } from './accounts/me-from-memory.js';
import { AuditModule } from './audit/audit.module.js';
import { AuthModule } from './auth/auth.module.js';
import { CsrfInterceptor } from './auth/sessions/csrf.js';
import { RequestBodyInterceptor } from './common/http/request-body.js';
import { RequestLog } from './common/logging.js';
import { ProblemFilter } from './common/problem/problem.filter.js';
import { ApiValidationPipe } from './common/validation.js';
import type { AppConfig } from './config/config.js';
import { ConfigModule } from './config/config.module.js';
import { DashboardModule } from './dashboard/dashboard.module.js';
import { DeclarationsModule } from './declarations/declarations.module.js';
import { type DatabaseConnection, databaseOptions } from './database/database-options.js';
import { ENTITIES } from './database/entities.js';
import { PreparedStatementsModule } from './database/prepared-statements.js';
import { HealthModule } from './health/health.module.js';
import { RateLimitModule } from './rate-limit/rate-limit.module.js';
import type { RateLimits } from './rate-limit/rate-limits.js';
import { ReferenceModule } from './reference/reference.module.js';
import { SiteModule } from './site/site.module.js';

export interface AppModuleOptions {
  /** Where the JSON log lines go (default stdout); the tests read them. */
  logStream?: DestinationStream;
  /** The request log, when the caller mounts its middleware (createApp); else one is made here. */
  requestLog?: RequestLog;
  /** Overrides of the configured rate limits (the bench raises them). */
  rateLimits?: Partial<RateLimits>;
}

/**
 * The request log, the request id, helmet's headers and the public files (reference files and site
 * pages) come before Nest's router, in the one Express middleware createApp mounts. Request bodies
 * are read once the request is routed and authenticated (RequestBodyInterceptor).
 */
@Module({})
export class AppModule {
  static forRoot(config: AppConfig, database: DatabaseConnection, options: AppModuleOptions = {}): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config),
        LoggerModule.forRoot((options.requestLog ?? new RequestLog(config, options.logStream)).params()),
        TypeOrmModule.forRoot({ ...databaseOptions(database, config.migrationsRun), entities: ENTITIES }),
        PreparedStatementsModule,
        HealthModule,
        AccountsModule,
        AuthModule,
        AuditModule,
        ReferenceModule,
        SiteModule,
        DeclarationsModule,
        DashboardModule,
        RateLimitModule.forRoot(options.rateLimits),
      ],
      providers: [
        // Called by createApp's first handler, before Express; here because it draws on accounts, auth and rate limits.
        MeFromMemory,
        { provide: APP_FILTER, useClass: ProblemFilter },
        { provide: APP_PIPE, useClass: ApiValidationPipe },
        { provide: APP_INTERCEPTOR, useClass: RequestBodyInterceptor },
        // After the body is read: the dashboard's forms bring their CSRF token in it.
        { provide: APP_INTERCEPTOR, useExisting: CsrfInterceptor },
      ],
    };
  }
}
