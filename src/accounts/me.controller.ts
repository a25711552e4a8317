import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { type AuthenticatedClient, CurrentClient } from '../auth/current-client.decorator.js';
import { ClientApi } from '../common/openapi.js';
import { AccountsService } from './accounts.service.js';
import { AccountDto } from './dto/client.dto.js';

@ApiTags('client')
@ClientApi()
@Controller('api/v1/me')
export class MeController {
  constructor(private readonly accounts: AccountsService) {}

  @Get()
  @ApiOperation({
    operationId: 'getMe',
    summary: 'Your account',
    description: 'The profile confirmed during onboarding; fields are null or empty until then. `Cache-Control: no-store`.',
  })
  @ApiOkResponse({ type: AccountDto })
  async me(@CurrentClient() client: AuthenticatedClient): Promise<AccountDto> {
    return AccountDto.fromAccount(await this.accounts.account(client.clientId));
  }
}
