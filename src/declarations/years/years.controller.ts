import { Controller, Get, Header, Param } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { Account } from '../../accounts/account.js';
import { CurrentAccount } from '../../accounts/current-account.js';
import { ClientApi } from '../../caller/audience.js';
import { type AuthenticatedClient, CurrentClient } from '../../caller/current-client.js';
import { ApiProblems } from '../../common/openapi.js';
import { YearDto } from './dto/year.dto.js';
import { YearsService } from './years.service.js';

@ApiTags('client')
@ClientApi()
@Controller('api/v1/me/years')
export class YearsController {
  constructor(private readonly years: YearsService) {}

  @Get(':year')
  @Header('Cache-Control', 'no-store')
  @ApiOperation({
    operationId: 'getMyYear',
    summary: 'A calendar year: S1 + S2 per stream, material and unit, and your filing tier',
    description: [
      "Eco-organisms take one declaration a year; this service collects it by half-year. This answer adds the current revisions of S1 and S2 of `year` per stream, material (published category, or the text as declared) and unit, exactly, with each half-year's part; says which half-years are declared; places the year's count of sales units in the filing tiers each eco-organism of your streams publishes (streams.json, `filing.tiers`: e.g. under 10,000 UVC a year, Citeo's €80 flat fee); and lists the year's deadlines once each.",
      '',
      'Until both half-years are over and declared (`complete: false`) every figure is the year so far. Years from 2022 to the current one; any other `year` is 404.',
    ].join('\n'),
  })
  @ApiParam({
    name: 'year',
    description: 'A calendar year, `YYYY`, from 2022 to the current year.',
    schema: { type: 'string', pattern: '^[0-9]{4}$', example: '2026' },
  })
  @ApiOkResponse({
    description: 'The year so far, or the whole year once both half-years are over and declared.',
    type: YearDto,
    headers: { 'Cache-Control': { description: 'Always `no-store`.', schema: { type: 'string', example: 'no-store' } } },
  })
  @ApiProblems(404)
  async get(
    @CurrentAccount() account: Account,
    @CurrentClient() client: AuthenticatedClient,
    @Param('year') year: string,
  ): Promise<YearDto> {
    return YearDto.from(await this.years.forAccount(account, year, client.mode));
  }
}
