import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module.js';
import { ReferenceModule } from '../reference/reference.module.js';
import { SiteModule } from '../site/site.module.js';
import { MeFromMemory } from './me-from-memory.js';
import { PublicFiles } from './public-files.js';

/** What the edge (edge-handler.ts) answers before Express and Nest: the public files, and GET /me from memory. */
@Module({
  imports: [ReferenceModule, SiteModule, AuthModule],
  providers: [PublicFiles, MeFromMemory],
  exports: [PublicFiles, MeFromMemory],
})
export class EdgeModule {}
