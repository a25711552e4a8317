import { join } from 'node:path';
import { loadSources } from './load-sources.js';
import type { ReferenceSources } from './reference-documents.js';
import { REPO_ROOT } from '../common/repo-root.js';

/** Helpers shared by the specs of this folder (not used by the build itself). */
export const SOURCE_DIR = join(REPO_ROOT, 'reference-data');

let cached: Promise<ReferenceSources> | undefined;

/** A fresh deep copy of the real sources, safe to mutate. */
export async function realSources(): Promise<ReferenceSources> {
  cached ??= loadSources(SOURCE_DIR);
  return structuredClone(await cached);
}
