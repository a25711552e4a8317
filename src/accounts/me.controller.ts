import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { type AuthenticatedClient, CurrentClient } from '../auth/current-client.decorator.js';
import { ClientApi } from '../auth/audience.js';
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
  me(@CurrentClient() client: AuthenticatedClient): AccountDto {
    // The account was read with the token, in the same query.
    return AccountDto.fromAccount(client.account);
  }
}
