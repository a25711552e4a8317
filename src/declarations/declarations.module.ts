import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Clock } from './clock.js';
import { DeclarationValidator } from './declaration-validator.js';
import { DeclarationsController } from './declarations.controller.js';
import { DeclarationsRepository } from './declarations.repository.js';
import { DeclarationsService } from './declarations.service.js';
import { DeclarationLineEntity } from './entities/declaration-line.entity.js';
import { DeclarationEntity } from './entities/declaration.entity.js';
import { IdempotencyKeyEntity } from './entities/idempotency-key.entity.js';
import { IdempotencyStore } from './idempotency-store.js';
import { ObligationsController } from './obligations/obligations.controller.js';
import { ObligationsService } from './obligations/obligations.service.js';

/** Declarations and their lines, validation, revisions, idempotency, listing, and each account's obligations. */
@Module({
  imports: [TypeOrmModule.forFeature([DeclarationEntity, DeclarationLineEntity, IdempotencyKeyEntity])],
  controllers: [DeclarationsController, ObligationsController],
  providers: [DeclarationsService, DeclarationsRepository, DeclarationValidator, IdempotencyStore, Clock, ObligationsService],
})
export class DeclarationsModule {}
