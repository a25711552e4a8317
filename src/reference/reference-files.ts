import { Inject, Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import { PUBLIC_CACHE_CONTROL, PrebuiltFiles, type PrebuiltFile } from '../common/http/prebuilt-files.js';
import type { PublishedFileName } from './reference-documents.js';
import { ReferenceStore } from './reference-store.js';

/** Browsers and CDNs may keep a copy 5 minutes, then revalidate with the ETag (cheap 304). */
export const REFERENCE_CACHE_CONTROL = PUBLIC_CACHE_CONTROL;

/** Where each published file is served: the index also at `/api/v1`. */
export const SERVED_FILES: ReadonlyMap<string, PublishedFileName> = new Map<string, PublishedFileName>([
  ['/api/v1/pricing.json', 'pricing.json'],
  ['/api/v1/streams.json', 'streams.json'],
  ['/api/v1/law.json', 'law.json'],
  ['/api/v1/obligations.json', 'obligations.json'],
  ['/api/v1/index.json', 'index.json'],
  ['/api/v1', 'index.json'],
  ['/api/v1/declaration-template.csv', 'declaration-template.csv'],
]);

/** Any origin may read the public files (and their validators); llms.txt, the site's, too. */
export const CORS_HEADERS = {
  'Cross-Origin-Resource-Policy': 'cross-origin',
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Expose-Headers': 'ETag, Last-Modified, Content-Length',
} as const;

/**
 * The public reference files as prebuilt files (src/common/http/prebuilt-files.ts): GET and HEAD
 * of the paths in SERVED_FILES, with validators, compression and CORS, answered by the
 * edge's public-files step (src/edge/public-files.ts) before Nest. ReferenceController declares the same routes for the
 * OpenAPI document and the 405 `Allow` lists, and answers through `send` too.
 */
@Injectable()
export class ReferenceFiles {
  readonly routes: ReadonlyMap<string, PrebuiltFile>;
  private readonly files: PrebuiltFiles;
  private readonly byName = new Map<PublishedFileName, PrebuiltFile>();

  constructor(@Inject(ReferenceStore) store: ReferenceStore) {
    for (const name of new Set(SERVED_FILES.values())) {
      const file = store.get(name);
      this.byName.set(name, {
        contentType: file.contentType,
        lastModified: file.lastModified,
        cacheControl: REFERENCE_CACHE_CONTROL,
        headers: CORS_HEADERS,
        variant: (encoding) => file.variants[encoding],
      });
    }
    this.routes = new Map([...SERVED_FILES].map(([path, name]) => [path, this.byName.get(name)!]));
    this.files = new PrebuiltFiles(this.routes);
  }

  send(name: PublishedFileName, req: Request, res: Response): void {
    this.files.send(this.byName.get(name)!, req, res);
  }
}
