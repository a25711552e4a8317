import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ClientApi } from '../caller/audience.js';
import type { Account } from './account.js';
import { CurrentAccount } from './current-account.js';
import { AccountDto } from './dto/client.dto.js';

@ApiTags('client')
@ClientApi()
@Controller('api/v1/me')
export class MeController {
  @Get()
  @ApiOperation({
    operationId: 'getMe',
    summary: 'Your account',
    description: 'The profile confirmed during onboarding; fields are null or empty until then. `Cache-Control: no-store`.',
  })
  @ApiOkResponse({ description: 'Your account as confirmed by the operator (null or empty fields until then).', type: AccountDto })
  me(@CurrentAccount() account: Account): AccountDto {
    // The account was read with the token, in the same query.
    return AccountDto.fromAccount(account);
  }
}
