import { mkdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join, parse, resolve } from 'node:path';
import { COMPRESSED_VARIANTS } from '../common/http/compression.js';
import { loadSources } from '../reference/load-sources.js';
import type { ReferenceUrls, RenderedFile } from '../reference/reference-documents.js';
import { renderReference } from '../reference/render-reference.js';
import { validateReference } from '../reference/validate-reference.js';
import { renderSite, type SiteFile } from './render-site.js';
import { SERVED_FILES } from '../reference/reference-files.js';

export interface BuildSiteOptions {
  /** The `reference-data/` directory. */
  sourceDir: string;
  /** Output directory (e.g. `dist/site/`); owned by the build: it is emptied first. */
  outDir: string;
  urls: ReferenceUrls;
}

/**
 * Everything a static host needs to serve the public site as the service does: the pages, the
 * assets, sitemap.xml and robots.txt, and the reference files at their API paths
 * (`api/v1/*.json`, `llms.txt`), all from the same loaded and validated sources. Each file is
 * written with its `.gz` and `.br` variant (for hosts that serve precompressed files).
 */
export function siteFolder(files: readonly RenderedFile[], urls: ReferenceUrls): SiteFile[] {
  const published: SiteFile[] = [...SERVED_FILES]
    .filter(([path]) => path !== '/api/v1')
    .map(([path, name]) => {
      const file = files.find((f) => f.name === name)!;
      return { paths: [path], file: path.slice(1), body: file.body, contentType: file.contentType };
    });
  return [...renderSite(files, urls), ...published];
}

/** Loads and validates the sources, renders the site and writes it to a freshly emptied `outDir`. */
export async function buildSite({ sourceDir, outDir, urls }: BuildSiteOptions): Promise<{ path: string; bytes: number }[]> {
  const files = renderReference(validateReference(await loadSources(sourceDir)), urls);
  const target = resolve(outDir);
  if (parse(target).root === target) throw new Error(`Refusing to use ${target} as the output directory`);
  await rm(target, { recursive: true, force: true });
  const written: { path: string; bytes: number }[] = [];
  for (const file of siteFolder(files, urls)) {
    const variants: [string, Buffer][] = [
      [file.file, file.body],
      ...COMPRESSED_VARIANTS.map(({ suffix, compress }) => [`${file.file}${suffix}`, compress(file.body)] as [string, Buffer]),
    ];
    for (const [name, body] of variants) {
      const path = join(target, name);
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, body);
      written.push({ path, bytes: body.length });
    }
  }
  return written;
}
