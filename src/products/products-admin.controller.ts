import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Controller, Get, Param, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { AdminApi } from '../caller/audience.js';
import { ApiProblems } from '../common/openapi.js';
import { HEAVY_READS_PER_PROCESS_TEXT, HeavyRead } from '../rate-limit/heavy-reads.js';
import { DerivationDto } from './dto/product.dto.js';
import { ProductsService } from './products.service.js';
import { ReferenceCatalogue } from '../reference/reference-catalogue.js';

/** Operator: the per-product detail behind a derived declaration. */
@ApiTags('admin')
@AdminApi()
@Controller('api/v1/admin/declarations')
export class ProductsAdminController {
  constructor(
    private readonly products: ProductsService,
    private readonly catalogue: ReferenceCatalogue,
  ) {}

  @Get(':id/derivation')
  @HeavyRead()
  @ApiOperation({
    operationId: 'adminGetDerivation',
    summary: 'The products behind a derived declaration',
    description: [
      'For a revision a client filed from its catalogue and sales (`POST /api/v1/periods/{period}/derived-declaration`): each product version it used, the units sold in the period and each packaging element (material category, grams, elements per unit, and for EPRO category and reuse status) — what a filing per consumer sales unit needs. A declaration entered directly, an unknown or a malformed id: 404.',
      '',
      'Streamed product by product, whatever the catalogue (up to 10,000 products of 20 elements: some 20 MB). If the service fails after the first byte, the connection is cut rather than the body ended: a complete answer ends with `]}`. Heavy reads run at most two at once per caller: another answers 429 `rate_limited` with `Retry-After`. ' +
        HEAVY_READS_PER_PROCESS_TEXT,
    ].join('\n'),
  })
  @ApiParam({ name: 'id', schema: { type: 'string', format: 'uuid' } })
  @ApiOkResponse({ description: 'The derivation, products by reference.', type: DerivationDto })
  @ApiProblems(404)
  async derivation(@Param('id') id: string, @Res() res: Response): Promise<void> {
    const derivation = await this.products.derivation(id);
    res.status(200).setHeader('Content-Type', 'application/json; charset=utf-8');
    // With backpressure: a slow reader holds the next chunk of products unread.
    await pipeline(Readable.from(DerivationDto.json(derivation, this.catalogue)), res);
  }
}
