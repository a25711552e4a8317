/**
 * The bench's entry point to the BUILT service: `src/main.ts` with two differences, both printed
 * by `bench/run.ts` next to the figures:
 *
 * - the per-token rate limits are raised to 10^9/min: the limiter still counts every client
 *   request exactly as in production, it only never answers 429;
 * - a bench-only module (not part of the production app) adds two public routes:
 *   `GET /bench/baseline` → `{"ok":true}` (the constant route the ratios are measured against),
 *   and `POST /bench/limiter/off` / `POST /bench/limiter/on`, which replace the limiter's store by a
 *   no-op and back, to measure what the limiter costs in the same warmed-up process.
 *
 * Configuration comes from the environment as for `dist/src/main.js`.
 */
import 'reflect-metadata';
import { Controller, Get, HttpCode, Module, Post } from '@nestjs/common';
import { createApp, openDatabase } from '../src/app.factory.js';
import { Public } from '../src/caller/audience.js';
import { loadConfig } from '../src/config/config.js';
import { PostgresRateLimitStore } from '../src/rate-limit/postgres-rate-limit.store.js';

/** High enough never to be reached in a bench run. */
const RAISED_LIMITS = { client: 1e9, clientWrite: 1e9, admin: 1e9 };

const countingHit = PostgresRateLimitStore.prototype.hit;
/** Every request counts as the first of its window, with no SQL. */
const noopHit: typeof countingHit = async (keys) => ({ hits: keys.map(() => 1), secondsLeft: 60 });

@Public()
@Controller('bench')
class BenchController {
  @Get('baseline')
  baseline() {
    return { ok: true };
  }

  @Post('limiter/off')
  @HttpCode(204)
  limiterOff(): void {
    PostgresRateLimitStore.prototype.hit = noopHit;
  }

  @Post('limiter/on')
  @HttpCode(204)
  limiterOn(): void {
    PostgresRateLimitStore.prototype.hit = countingHit;
  }
}

@Module({ controllers: [BenchController] })
class BenchModule {}

async function main(): Promise<void> {
  const config = loadConfig();
  const database = await openDatabase(config);
  const app = await createApp(config, database.connection, { rateLimits: RAISED_LIMITS, extraImports: [BenchModule] });
  await app.listen(config.port, config.host);
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await app.close();
    await database.close();
    process.exit(0);
  };
  process.once('SIGTERM', () => void stop());
  process.once('SIGINT', () => void stop());
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
