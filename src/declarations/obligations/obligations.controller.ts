import { Controller, Get, Header } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Account } from '../../accounts/account.js';
import { CurrentAccount } from '../../accounts/current-account.js';
import { type AuthenticatedClient, CurrentClient } from '../../caller/current-client.js';
import { ClientApi } from '../../caller/audience.js';
import { ObligationsDto } from './dto/obligations.dto.js';
import { ObligationsService } from './obligations.service.js';

@ApiTags('client')
@ClientApi()
@Controller('api/v1/me/obligations')
export class ObligationsController {
  constructor(private readonly obligations: ObligationsService) {}

  @Get()
  @Header('Cache-Control', 'no-store')
  @ApiOperation({
    operationId: 'getMyObligations',
    summary: 'What you have declared and still have to declare',
    description: [
      "For each stream of your confirmed account and each half-year from the stream's first declarable period (`declarable_from` in streams.json) to the current one (or the stream's last, `declarable_until`): whether a current declaration has lines of that stream (`declared`, with its id, revision and receipt) or not (`missing`), whether the half-year has ended, and the stream's published deadlines for it that are still ahead. Computed from the published reference data only.",
      '',
      'An account whose profile is not confirmed yet gets **200** with `account_status: "pending"`, a `detail` and no streams: not an error, and the way a client system learns its onboarding state.',
    ].join('\n'),
  })
  @ApiOkResponse({
    description:
      'Per stream and half-year, what is declared and what is due; or, for an account not yet confirmed, `account_status: "pending"` and no streams.',
    type: ObligationsDto,
    headers: { 'Cache-Control': { description: 'Always `no-store`.', schema: { type: 'string', example: 'no-store' } } },
  })
  async get(@CurrentAccount() account: Account, @CurrentClient() client: AuthenticatedClient): Promise<ObligationsDto> {
    return ObligationsDto.from(await this.obligations.forAccount(account, client.mode));
  }
}
