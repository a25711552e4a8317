import { Module } from '@nestjs/common';
import { PublicFiles } from './public-files.js';
import { SiteFiles } from './site-files.js';

/** The public site (pages built from the reference files) and the middleware serving all public files. */
@Module({
  providers: [SiteFiles, PublicFiles],
  exports: [SiteFiles, PublicFiles],
})
export class SiteModule {}
