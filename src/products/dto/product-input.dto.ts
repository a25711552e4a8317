import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { PERIOD_PATTERN_TEXT } from '../../calendar/half-year.js';
import {
  MAX_ELEMENTS,
  MAX_NAME_LENGTH,
  MAX_PER_UNIT,
  MAX_PRODUCTS,
  MAX_REFERENCE_LENGTH,
  MAX_SALES,
  MAX_UNITS,
  MAX_WEIGHT_G,
  MIN_WEIGHT_G,
} from '../product-rules.js';

@ApiSchema({
  description:
    'One packaging element of one sales unit (a bottle, a cap, a label, a carton). Unknown fields are refused (`unknown_field`).',
})
export class PackagingElementInputDto {
  /** A material category of the stream's published grid (`/api/v1/streams.json`), by code, French or English name, ignoring case; else `unknown_material`. Stored as the category code. */
  @ApiProperty({ example: 'glass' })
  material!: string;

  /** Grams of ONE element: a JSON number from 0.001 (a milligram) to 10,000,000 (`invalid_weight`), at most 3 decimals (`weight_too_precise`). Stored exactly, as a decimal. */
  @ApiProperty({ type: Number, example: 410.5, minimum: MIN_WEIGHT_G, maximum: MAX_WEIGHT_G })
  weight_g!: number;

  /** How many such elements one sales unit carries: a whole number from 1 to 10,000 (`invalid_count`). Default 1. */
  @ApiProperty({ type: Number, required: false, example: 1, minimum: 1, maximum: MAX_PER_UNIT })
  per_unit?: number;

  /** Required for a stream that publishes packaging categories (EPRO: `sales`, `grouped`, `transport`, `service`, `primary_production`; `unknown_packaging_category`); refused for the others (`not_applicable`). */
  @ApiProperty({ type: String, required: false, nullable: true, example: null })
  packaging_category?: string | null;

  /** Required for a stream that publishes reuse statuses (EPRO: `single_use`, `reusable_new`, `reused`; `unknown_reuse_status`); refused for the others (`not_applicable`). */
  @ApiProperty({ type: String, required: false, nullable: true, example: null })
  reuse_status?: string | null;
}

@ApiSchema({ description: 'A product as it is from one half-year on. Unknown fields are refused (`unknown_field`).' })
export class ProductInputDto {
  /** Your own reference, unique among your products: 1–64 characters, trimmed (`invalid_text`). */
  @ApiProperty({ example: 'BTL-75-ROUGE', minLength: 1, maxLength: MAX_REFERENCE_LENGTH })
  reference!: string;

  @ApiProperty({ example: 'Vin rouge 75 cl', minLength: 1, maxLength: MAX_NAME_LENGTH })
  name!: string;

  /** A published stream code (`unknown_stream`): `EMB` household, `EPRO` professional packaging. */
  @ApiProperty({ example: 'EMB' })
  stream!: string;

  /** Optional GTIN-8, -12, -13 (EAN) or -14, digits only, with a right GS1 check digit (`invalid_gtin`). */
  @ApiProperty({ type: String, required: false, nullable: true, example: '3017620422003', pattern: '^([0-9]{8}|[0-9]{12,14})$' })
  gtin?: string | null;

  /** The half-year this packaging applies from; a derived declaration uses, for each product, the version with the latest `valid_from` not after its period. */
  @ApiProperty({ example: '2026-S1', pattern: PERIOD_PATTERN_TEXT })
  valid_from!: string;

  @ApiProperty({ type: [PackagingElementInputDto], minItems: 1, maxItems: MAX_ELEMENTS })
  elements!: PackagingElementInputDto[];
}

@ApiSchema({
  description:
    'Products to add to your catalogue, all or nothing: every problem is reported at once in a 422 (JSON pointers such as `/products/3/elements/0/weight_g`), nothing is stored then. ' +
    'A (reference, valid_from) twice in one request is `duplicate_reference`.',
})
export class CreateProductsDto {
  @ApiProperty({ type: [ProductInputDto], minItems: 1, maxItems: MAX_PRODUCTS })
  products!: ProductInputDto[];
}

export class SaleInputDto {
  /** The reference of one of your products (`unknown_product`), with a version in force in the period (`no_version_for_period`). */
  @ApiProperty({ example: 'BTL-75-ROUGE' })
  reference!: string;

  /** Sales units placed on the French market in the period: a whole number from 0 to 10^12 (`invalid_count`). */
  @ApiProperty({ type: Number, example: 48000, minimum: 0, maximum: MAX_UNITS })
  units!: number;
}

@ApiSchema({
  description: 'Units sold per product in the half-year of `?period=`, all or nothing. Each product once (`duplicate_reference`).',
})
export class CreateSalesDto {
  @ApiProperty({ type: [SaleInputDto], minItems: 1, maxItems: MAX_SALES })
  sales!: SaleInputDto[];
}
