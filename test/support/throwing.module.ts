import { Controller, Get, Module } from '@nestjs/common';
import { Public } from '../../src/caller/audience.js';

@Controller('test-only')
class ThrowingController {
  /** A bug: an unexpected error with a secret in its message. */
  @Public()
  @Get('boom')
  boom(): never {
    throw new Error('secret internal detail: password=hunter2 at /srv/app/x.ts:42');
  }
}

/** A public route that throws, for tests only. */
@Module({ controllers: [ThrowingController] })
export class ThrowingModule {}
