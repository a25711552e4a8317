import { type DynamicModule, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { PostgresRateLimitStore } from './postgres-rate-limit.store.js';
import { RateLimitGuard } from './rate-limit.guard.js';
import { DEFAULT_RATE_LIMITS, RATE_LIMITS, type RateLimits } from './rate-limits.js';

/**
 * Not @nestjs/throttler: its CommonJS build requires NestJS 12's ES modules, which jest on
 * Node 20 cannot load (jest supports require(esm) only from Node 24.9). The guard is small.
 */
@Module({})
export class RateLimitModule {
  static forRoot(limits: RateLimits = DEFAULT_RATE_LIMITS): DynamicModule {
    return {
      module: RateLimitModule,
      providers: [PostgresRateLimitStore, { provide: RATE_LIMITS, useValue: limits }, { provide: APP_GUARD, useClass: RateLimitGuard }],
    };
  }
}
