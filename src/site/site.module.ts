import { Module } from '@nestjs/common';
import { SITE_NOT_FOUND } from '../common/problem/page-problems.js';
import { LlmsTxtController } from './llms-txt.controller.js';
import { SiteFiles } from './site-files.js';
import { siteNotFound } from './site-not-found.js';

/** The public site: its pages, built from the reference files, and its page for unknown addresses. */
@Module({
  controllers: [LlmsTxtController],
  providers: [SiteFiles, { provide: SITE_NOT_FOUND, inject: [SiteFiles], useFactory: siteNotFound }],
  exports: [SiteFiles, SITE_NOT_FOUND],
})
export class SiteModule {}
