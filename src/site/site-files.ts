import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG } from '../config/config.module.js';
import type { AppConfig } from '../config/config.js';
import {
  type Encoding,
  PUBLIC_CACHE_CONTROL,
  type PrebuiltFile,
  PrebuiltFiles,
  type Representation,
  representation,
} from '../common/http/prebuilt-files.js';
import type { Request, Response } from 'express';
import { CORS_HEADERS } from '../reference/reference-files.js';
import { LLMS_PATH } from './llms-txt.js';
import { brotli, gzip, ON_DEMAND_BROTLI_QUALITY } from '../common/http/compression.js';
import { PUBLISHED_FILES, type RenderedFile } from '../reference/reference-documents.js';
import { REPO_ROOT } from '../common/repo-root.js';
import { ReferenceStore } from '../reference/reference-store.js';
import { HTML_CONTENT_TYPE, renderSite } from './render-site.js';
import { NOT_FOUND_PAGES, type Language } from './site-pages.js';

/** Where `npm run build` writes the site (with its `.gz`/`.br` variants). */
export const BUILT_SITE_DIR = join(REPO_ROOT, 'dist', 'site');

/**
 * Pages load nothing but this origin's stylesheet and icon, and run no script at all. Sent by the
 * edge's public-files step (src/edge/public-files.ts) in place of the API's (helmet's) policy, which Swagger UI needs.
 */
export const SITE_CONTENT_SECURITY_POLICY =
  "default-src 'none'; style-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/**
 * The public site's files in memory, served by the edge's public-files step (src/edge/public-files.ts). They are rendered at
 * start-up by the same renderer as the build, from the reference files this instance serves, so
 * page and file agree even when this instance runs under other base URLs than the build; where the
 * bytes are those the build wrote to dist/site/, its prebuilt gzip and brotli variants are used,
 * else they are compressed on first request (brotli at ON_DEMAND_BROTLI_QUALITY: the request waits).
 */
@Injectable()
export class SiteFiles {
  readonly routes: ReadonlyMap<string, PrebuiltFile>;
  /** The page for an unknown address, per language (served with status 404 only). */
  readonly notFound: Readonly<Record<Language, Buffer>>;

  constructor(@Inject(APP_CONFIG) config: AppConfig, @Inject(ReferenceStore) store: ReferenceStore) {
    const files: RenderedFile[] = PUBLISHED_FILES.map((name) => {
      const file = store.get(name);
      return { name, body: file.variants.identity.body, contentType: file.contentType };
    });
    const lastModified = store.get('index.json').lastModified;
    const routes = new Map<string, PrebuiltFile>();
    const urls = {
      referenceBaseUrl: config.referenceBaseUrl,
      clientBaseUrl: config.clientBaseUrl,
      siteUrl: config.publicBaseUrl,
      contact: config.contactEmail ?? null,
    };
    const rendered = renderSite(files, urls);
    this.notFound = Object.fromEntries(
      NOT_FOUND_PAGES.map((page) => [page.lang, rendered.find((f) => f.file === page.file)!.body]),
    ) as Record<Language, Buffer>;
    for (const file of rendered) {
      const prebuilt = prebuiltVariants(file.file, file.body);
      const variants: Partial<Record<Encoding, Representation>> = { identity: representation(file.body, 'identity'), ...prebuilt };
      const served: PrebuiltFile = {
        contentType: file.contentType,
        lastModified,
        cacheControl: PUBLIC_CACHE_CONTROL,
        // Pages: the strict CSP; llms.txt: open to any origin, as the reference files.
        headers:
          file.contentType === HTML_CONTENT_TYPE
            ? { 'Content-Security-Policy': SITE_CONTENT_SECURITY_POLICY }
            : file.paths.includes(LLMS_PATH)
              ? CORS_HEADERS
              : {},
        variant: (encoding) =>
          (variants[encoding] ??= representation(
            encoding === 'br' ? brotli(file.body, ON_DEMAND_BROTLI_QUALITY) : gzip(file.body),
            encoding,
          )),
      };
      for (const path of file.paths) routes.set(path, served);
    }
    this.routes = routes;
    this.files = new PrebuiltFiles(routes);
  }

  private readonly files: PrebuiltFiles;

  /** Answers with the file served at `path` (for a controller that documents it). */
  send(path: string, req: Request, res: Response): void {
    this.files.send(this.routes.get(path)!, req, res);
  }
}

/** The build's compressed variants of a file, if the build wrote these very bytes. */
function prebuiltVariants(file: string, body: Buffer): Partial<Record<Encoding, Representation>> {
  try {
    if (!readFileSync(join(BUILT_SITE_DIR, file)).equals(body)) return {};
    return {
      gzip: representation(readFileSync(join(BUILT_SITE_DIR, `${file}.gz`)), 'gzip'),
      br: representation(readFileSync(join(BUILT_SITE_DIR, `${file}.br`)), 'br'),
    };
  } catch {
    return {};
  }
}
