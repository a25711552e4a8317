import { Inject, Injectable } from '@nestjs/common';
import { PrebuiltFiles } from '../common/http/prebuilt-files.js';
import { precomputedSecurityHeaders } from '../common/http/security-headers.js';
import { ReferenceFiles } from '../reference/reference-files.js';
import { SiteFiles } from './site-files.js';

/**
 * The public files answered before the router and before Nest's middleware (createApp mounts
 * `files.answer` on the Express instance, right after the request log): the reference files (with
 * CORS) and the site (with its strict CSP), each with helmet's headers precomputed. Every other
 * request, and every method but GET and HEAD, goes on to Nest: helmet, the router, guards and all.
 */
@Injectable()
export class PublicFiles {
  readonly files: PrebuiltFiles;

  constructor(@Inject(ReferenceFiles) reference: ReferenceFiles, @Inject(SiteFiles) site: SiteFiles) {
    for (const path of site.routes.keys()) {
      if (reference.routes.has(path)) throw new Error(`${path} is both a reference file and a site file`);
    }
    this.files = new PrebuiltFiles(new Map([...reference.routes, ...site.routes]), precomputedSecurityHeaders());
  }
}
