import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { brotli, gzip } from '../common/http/compression.js';
import { loadService } from './load-sources.js';
import {
  contentTypeOf,
  INDEX_FILE,
  PUBLISHED_FILES,
  REFERENCE_DOCUMENTS,
  type IndexDocument,
  type PublishedFileName,
  type ReferenceDocuments,
  type ReferenceUrls,
} from './reference-documents.js';
import { renderIndexDocument } from './render-reference.js';
import { REPO_ROOT } from '../common/repo-root.js';
import { type Encoding, type Representation, representation } from '../common/http/prebuilt-files.js';

export type { Encoding, Representation };

export interface PublishedFile {
  name: PublishedFileName;
  contentType: string;
  lastModified: string;
  variants: Record<Encoding, Representation>;
}

/** Where `npm run build` writes the published files. */
export const BUILT_REFERENCE_DIR = path.join(REPO_ROOT, 'dist', 'reference');
export const REFERENCE_SOURCE_DIR = path.join(REPO_ROOT, 'reference-data');

/**
 * The published files, in memory: the bytes written by the build step and their prebuilt
 * gzip/brotli variants. Only when this instance runs under other base URLs than the build
 * used is the index document rendered again (same renderer, from the documents as built and
 * `service.yaml`; llms.txt is the site's: src/site/site-files.ts).
 */
export class ReferenceStore {
  private constructor(
    readonly documents: ReferenceDocuments,
    private readonly files: Map<PublishedFileName, PublishedFile>,
    readonly reRendered: boolean,
  ) {}

  get(name: PublishedFileName): PublishedFile {
    const file = this.files.get(name);
    if (!file) throw new Error(`Unknown published file ${name}`);
    return file;
  }

  static async load(urls: ReferenceUrls, dir = BUILT_REFERENCE_DIR): Promise<ReferenceStore> {
    const read = async (name: string) => {
      try {
        return await readFile(path.join(dir, name));
      } catch (error) {
        throw new Error(`Reference file ${name} is missing from ${dir}: run "npm run build" first.`, { cause: error });
      }
    };
    const raw = new Map<PublishedFileName, Record<Encoding, Buffer>>();
    for (const name of PUBLISHED_FILES) {
      raw.set(name, { identity: await read(name), gzip: await read(`${name}.gz`), br: await read(`${name}.br`) });
    }
    const json = (name: PublishedFileName) => JSON.parse(raw.get(name)!.identity.toString('utf8'));
    const documents = Object.fromEntries(REFERENCE_DOCUMENTS.map((name) => [name, json(`${name}.json`)])) as ReferenceDocuments;
    const index = json(INDEX_FILE) as IndexDocument;

    const reRendered = !builtFor(index, urls);
    if (reRendered) {
      const body = renderIndexDocument({ ...documents, service: await loadService(REFERENCE_SOURCE_DIR) }, urls);
      raw.set(INDEX_FILE, { identity: body, gzip: gzip(body), br: brotli(body) });
    }

    const files = new Map<PublishedFileName, PublishedFile>();
    for (const [name, bodies] of raw) {
      const updated =
        name.endsWith('.json') && name !== INDEX_FILE
          ? documents[name.replace('.json', '') as keyof ReferenceDocuments]?.updated
          : index.updated;
      files.set(name, {
        name,
        contentType: contentTypeOf(name),
        lastModified: new Date(`${updated ?? index.updated}T00:00:00Z`).toUTCString(),
        variants: {
          identity: representation(bodies.identity, 'identity'),
          gzip: representation(bodies.gzip, 'gzip'),
          br: representation(bodies.br, 'br'),
        },
      });
    }
    return new ReferenceStore(documents, files, reRendered);
  }
}

function builtFor(index: IndexDocument, urls: ReferenceUrls): boolean {
  return (
    index.endpoints.pricing === `${urls.referenceBaseUrl}/pricing.json` &&
    index.client_api.base === urls.clientBaseUrl &&
    index.markdown === `${urls.siteUrl}/llms.txt` &&
    index.contact === (urls.contact ?? null)
  );
}
