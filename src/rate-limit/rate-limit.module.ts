import { type DynamicModule, Global, Module } from '@nestjs/common';
import { getOptionsToken, getStorageToken } from '@nestjs/throttler';
import { APP_CONFIG } from '../config/config.module.js';
import type { AppConfig } from '../config/config.js';
import { FailedAuthentications } from './failed-authentications.js';
import { PostgresRateLimitStore } from './postgres-rate-limit.store.js';
import { RateLimitGuard } from './rate-limit.guard.js';
import { RATE_LIMITS, type RateLimits } from './rate-limits.js';
import { SignInLimitGuard, SignInLimits } from './sign-in-limits.js';
import { throttlerOptions } from './throttlers.js';

/**
 * @nestjs/throttler on the shared counters. Its two providers are given here rather than through
 * ThrottlerModule.forRoot, whose `storage` option takes an instance, not an injectable (the store
 * needs the DataSource and flushes before shutdown). Global: the AuthGuard counts failed
 * authentications with FailedAuthentications, the dashboard's sign-in with SignInLimits.
 */
@Global()
@Module({})
export class RateLimitModule {
  /** Limits from the configuration; `override` raises or lowers some (tests, the bench). */
  static forRoot(override: Partial<RateLimits> = {}): DynamicModule {
    return {
      module: RateLimitModule,
      providers: [
        {
          provide: RATE_LIMITS,
          useFactory: (config: AppConfig): RateLimits => ({ ...config.rateLimits, ...override }),
          inject: [APP_CONFIG],
        },
        PostgresRateLimitStore,
        { provide: getStorageToken(), useExisting: PostgresRateLimitStore },
        { provide: getOptionsToken(), useFactory: throttlerOptions, inject: [RATE_LIMITS] },
        FailedAuthentications,
        SignInLimits,
        RateLimitGuard,
        SignInLimitGuard,
      ],
      exports: [RateLimitGuard, SignInLimitGuard, FailedAuthentications, SignInLimits, PostgresRateLimitStore, RATE_LIMITS],
    };
  }
}
