import { Controller, Delete, HttpCode, Req } from '@nestjs/common';
import { ApiNoContentResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { ClientApi } from '../caller/audience.js';
import { type AuthenticatedClient, CurrentClient } from '../caller/current-client.js';
import { ApiProblems } from '../common/openapi.js';
import { TestDataService } from './test-data.service.js';

/** The client's sandbox (test tokens, `eprt_…`). */
@ApiTags('client')
@ClientApi()
@Controller('api/v1/test-data')
export class TestDataController {
  constructor(private readonly testData: TestDataService) {}

  @Delete()
  @HttpCode(204)
  @ApiOperation({
    operationId: 'wipeTestData',
    summary: 'Wipe your test data (test token only)',
    description:
      'Deletes every declaration (all revisions, all periods) and every `Idempotency-Key` of your sandbox, so that a journey can start again from nothing. ' +
      'Only with a test token (`eprt_…`); a live token (`eprc_…`) gets 403 `insufficient_scope` and nothing is deleted: live declarations are never deleted. ' +
      'Your live data is untouched. Recorded in the audit trail (`test_data.wiped`). Wiping an empty sandbox is a 204 too.',
  })
  @ApiNoContentResponse({ description: 'Your test data is gone (or there was none).' })
  @ApiProblems(403)
  async wipe(@CurrentClient() client: AuthenticatedClient, @Req() req: Request): Promise<void> {
    await this.testData.wipe(client, typeof req.id === 'string' ? req.id : null);
  }
}
