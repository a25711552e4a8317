import { Inject, Injectable, type NestMiddleware } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { PrebuiltFiles } from '../common/http/prebuilt-files.js';
import { ReferenceFiles } from '../reference/reference-files.js';
import { SiteFiles } from './site-files.js';

/**
 * The one middleware that answers the public files before the router (AppModule mounts it right
 * after helmet): the reference files (with CORS) and the site (with its strict CSP). Every other
 * request, and every method but GET and HEAD, goes on to the router, guards and all.
 */
@Injectable()
export class PublicFiles implements NestMiddleware {
  readonly files: PrebuiltFiles;

  constructor(@Inject(ReferenceFiles) reference: ReferenceFiles, @Inject(SiteFiles) site: SiteFiles) {
    for (const path of site.routes.keys()) {
      if (reference.routes.has(path)) throw new Error(`${path} is both a reference file and a site file`);
    }
    this.files = new PrebuiltFiles(new Map([...reference.routes, ...site.routes]));
  }

  use(req: Request, res: Response, next: NextFunction): void {
    this.files.use(req, res, next);
  }
}
