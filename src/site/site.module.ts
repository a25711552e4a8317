import { Module } from '@nestjs/common';
import { SiteFiles } from './site-files.js';

/** The public site: its pages, built from the reference files. */
@Module({
  providers: [SiteFiles],
  exports: [SiteFiles],
})
export class SiteModule {}
