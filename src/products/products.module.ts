import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditModule } from '../audit/audit.module.js';
import { DeclarationsModule } from '../declarations/declarations.module.js';
import { DeclarationDerivationContributionEntity, DeclarationDerivationEntity } from './entities/declaration-derivation.entity.js';
import { ProductElementEntity } from './entities/product-element.entity.js';
import { ProductSaleEntity } from './entities/product-sale.entity.js';
import { ProductVersionEntity } from './entities/product-version.entity.js';
import { ProductEntity } from './entities/product.entity.js';
import { ProductFileColumnsRepository } from './product-file-columns.repository.js';
import { ProductRules } from './product-rules.js';
import { ProductsAdminController } from './products-admin.controller.js';
import { ProductsController } from './products.controller.js';
import { ProductsRepository } from './products.repository.js';
import { ProductsService } from './products.service.js';

/** A client's product catalogue (versions by half-year), its sales, and the declaration derived from them (filed through DeclarationsModule). */
@Module({
  imports: [
    TypeOrmModule.forFeature([
      ProductEntity,
      ProductVersionEntity,
      ProductElementEntity,
      ProductSaleEntity,
      DeclarationDerivationEntity,
      DeclarationDerivationContributionEntity,
    ]),
    DeclarationsModule,
    AuditModule,
  ],
  controllers: [ProductsController, ProductsAdminController],
  providers: [ProductsService, ProductsRepository, ProductRules, ProductFileColumnsRepository],
  // For the dashboard's pages; the repository for the sandbox's wipe.
  exports: [ProductsService, ProductsRepository],
})
export class ProductsModule {}
