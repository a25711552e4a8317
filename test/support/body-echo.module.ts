import { Body, Controller, HttpCode, Module, Post } from '@nestjs/common';
import { Accepts, type FormBody } from '../../src/common/http/request-body.js';
import { Public } from '../../src/caller/audience.js';

@Controller('test-only')
class BodyEchoController {
  /** What the body pipeline made of a form (the future dashboard's forms), sent back as JSON. */
  @Public()
  @Post('form')
  @HttpCode(200)
  @Accepts('form')
  form(@Body() body: FormBody): { body: FormBody; prototype: null | object } {
    return { body, prototype: Object.getPrototypeOf(body) as null | object };
  }
}

/** A public route that takes a form, for tests only. */
@Module({ controllers: [BodyEchoController] })
export class BodyEchoModule {}
