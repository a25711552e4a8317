import { mkdir, rm, writeFile } from 'node:fs/promises';
import { isAbsolute, join, parse, relative, resolve } from 'node:path';
import { COMPRESSED_VARIANTS } from '../../common/http/compression.js';
import { loadSources } from '../load-sources.js';
import type { ReferenceUrls, RenderedFile } from '../reference-documents.js';
import { renderReference } from '../render-reference.js';
import { validateReference } from '../validate-reference.js';

export interface BuildReferenceOptions {
  /** The `reference-data/` directory (YAML sources and `schemas/`). */
  sourceDir: string;
  /** Output directory; owned by the build: it is emptied first. */
  outDir: string;
  urls: ReferenceUrls;
}

export interface WrittenFile {
  /** Absolute path of the written file. */
  path: string;
  bytes: number;
}

/**
 * Loads and validates the sources, renders the published files and writes
 * them, each with its `.gz` and `.br` variant, to a freshly emptied `outDir`.
 * Returns the files written, in a stable order.
 */
export async function buildReference({ sourceDir, outDir, urls }: BuildReferenceOptions): Promise<WrittenFile[]> {
  const sources = validateReference(await loadSources(sourceDir));
  const files: RenderedFile[] = renderReference(sources, urls);

  const target = resolve(outDir);
  assertSafeOutDir(target, resolve(sourceDir));
  await rm(target, { recursive: true, force: true });
  await mkdir(target, { recursive: true });

  const written: WrittenFile[] = [];
  for (const file of files) {
    const variants: [string, Buffer][] = [
      [file.name, file.body],
      ...COMPRESSED_VARIANTS.map(({ suffix, compress }) => [`${file.name}${suffix}`, compress(file.body)] as [string, Buffer]),
    ];
    for (const [name, body] of variants) {
      const path = join(target, name);
      await writeFile(path, body);
      written.push({ path, bytes: body.length });
    }
  }
  return written;
}

/** Refuses to empty a directory that is a filesystem root or holds the sources. */
function assertSafeOutDir(outDir: string, sourceDir: string): void {
  if (parse(outDir).root === outDir) throw new Error(`Refusing to use ${outDir} as the output directory`);
  const fromOut = relative(outDir, sourceDir);
  if (fromOut === '' || (!fromOut.startsWith('..') && !isAbsolute(fromOut))) {
    throw new Error(`The output directory ${outDir} must not contain the source directory ${sourceDir}`);
  }
}
