import { Inject, Injectable } from '@nestjs/common';
import { PrebuiltFiles } from '../common/http/prebuilt-files.js';
import { precomputedSecurityHeaders } from './security-headers.js';
import { ReferenceFiles } from '../reference/reference-files.js';
import { SiteFiles } from '../site/site-files.js';

/**
 * The public files the edge answers before Express and Nest (edge-handler.ts): the reference files
 * (with CORS) and the site (with its strict CSP), each with helmet's headers precomputed. Every
 * other request, and every method but GET and HEAD, goes on to Express and Nest's pipeline.
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
