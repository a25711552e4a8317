import { type DynamicModule, type MiddlewareConsumer, Module, type NestModule } from '@nestjs/common';
import { APP_FILTER, APP_INTERCEPTOR, APP_PIPE } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import cookieParser from 'cookie-parser';
import helmet from 'helmet';
import { LoggerModule } from 'nestjs-pino';
import type { DestinationStream } from 'pino';
import { AccountsModule } from './accounts/accounts.module.js';
import { AuditModule } from './audit/audit.module.js';
import { AuthModule } from './auth/auth.module.js';
import { CsrfInterceptor } from './auth/sessions/csrf.js';
import { RequestBodyInterceptor } from './common/http/request-body.js';
import { loggerParams } from './common/logging.js';
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
import { PublicFiles } from './site/public-files.js';
import { SiteModule } from './site/site.module.js';

export interface AppModuleOptions {
  /** Where the JSON log lines go (default stdout); the tests read them. */
  logStream?: DestinationStream;
  /** Overrides of the configured rate limits (the bench raises them). */
  rateLimits?: Partial<RateLimits>;
}

@Module({})
export class AppModule implements NestModule {
  static forRoot(config: AppConfig, database: DatabaseConnection, options: AppModuleOptions = {}): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config),
        LoggerModule.forRoot(loggerParams(config, options.logStream)),
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
        { provide: APP_FILTER, useClass: ProblemFilter },
        { provide: APP_PIPE, useClass: ApiValidationPipe },
        { provide: APP_INTERCEPTOR, useClass: RequestBodyInterceptor },
        // After the body is read: the dashboard's forms bring their CSRF token in it.
        { provide: APP_INTERCEPTOR, useExisting: CsrfInterceptor },
      ],
    };
  }

  /**
   * After the logger's own middleware (request id first), before any route. The public files
   * (reference files and site pages) are answered right after helmet (they need no routing or
   * guard). Request bodies are read later, once the request is routed and authenticated
   * (RequestBodyInterceptor).
   */
  configure(consumer: MiddlewareConsumer): void {
    consumer
      .apply(
        helmet({
          contentSecurityPolicy: {
            // Swagger UI (at /docs) loads its own script and styles from this origin, and inline SVG icons.
            directives: { 'img-src': ["'self'", 'data:', 'https://validator.swagger.io'] },
          },
        }),
        PublicFiles,
        // The dashboard's session and CSRF cookies (nothing else reads cookies).
        cookieParser(),
      )
      .forRoutes('*');
  }
}
