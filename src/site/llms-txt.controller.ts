import { Controller, Get, Inject, Req, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProduces, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { Public } from '../caller/audience.js';
import { describe, NOT_MODIFIED, VALIDATORS } from '../reference/reference.controller.js';
import { LLMS_PATH } from './llms-txt.js';
import { SiteFiles } from './site-files.js';

/**
 * llms.txt, as documented in the OpenAPI document. The edge answers GET and HEAD from memory before
 * the router; the handler answers the same way, should a request ever reach it.
 */
@ApiTags('reference data')
@Public()
@Controller()
export class LlmsTxtController {
  constructor(@Inject(SiteFiles) private readonly files: SiteFiles) {}

  @Get('llms.txt')
  @ApiOperation({
    operationId: 'getLlmsTxt',
    summary: 'Markdown summary of the service (llms.txt)',
    description: describe(
      'The service, its reference files and its client API in a few paragraphs of Markdown with links, following the llms.txt convention, for people and language models.',
    ),
  })
  @ApiProduces('text/markdown')
  @ApiOkResponse({
    description: 'The summary, in Markdown.',
    content: { 'text/markdown': { schema: { type: 'string' } } },
    headers: VALIDATORS,
  })
  @ApiResponse(NOT_MODIFIED)
  llms(@Req() req: Request, @Res() res: Response): void {
    this.files.send(LLMS_PATH, req, res);
  }
}
