import { Controller, Get, Param } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { AdminApi } from '../caller/audience.js';
import { ApiProblems } from '../common/openapi.js';
import { DerivationDto } from './dto/product.dto.js';
import { ProductsService } from './products.service.js';

/** Operator: the per-product detail behind a derived declaration. */
@ApiTags('admin')
@AdminApi()
@Controller('api/v1/admin/declarations')
export class ProductsAdminController {
  constructor(private readonly products: ProductsService) {}

  @Get(':id/derivation')
  @ApiOperation({
    operationId: 'adminGetDerivation',
    summary: 'The products behind a derived declaration',
    description:
      'For a revision a client filed from its catalogue and sales (`POST /api/v1/periods/{period}/derived-declaration`): each product version it used, the units sold in the period and each packaging element (material category, grams, elements per unit, and for EPRO category and reuse status) — what a filing per consumer sales unit needs. A declaration entered directly, an unknown or a malformed id: 404.',
  })
  @ApiParam({ name: 'id', schema: { type: 'string', format: 'uuid' } })
  @ApiOkResponse({ description: 'The derivation, products by reference.', type: DerivationDto })
  @ApiProblems(404)
  derivation(@Param('id') id: string): Promise<DerivationDto> {
    return this.products.derivation(id);
  }
}
