import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../../src/common/repo-root.js';

/** What a build, a run or a tool writes into the repository (not sources): never walked. */
const OUTPUT = new Set(['node_modules', '.git', 'dist', 'data', 'coverage', 'reports', 'test-results', '.stryker-tmp']);

/** Every file of the repository (paths relative to its root, `/`-separated), build output left out. */
export function repoFiles(): string[] {
  const files: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(join(REPO_ROOT, dir), { withFileTypes: true })) {
      const path = dir ? `${dir}/${entry.name}` : entry.name;
      if (entry.isDirectory()) {
        if (!OUTPUT.has(entry.name) && path !== 'bench/results') walk(path);
      } else files.push(path);
    }
  };
  walk('');
  return files;
}

/** The entries of .gitignore: paths a build or a run writes (`dist/`, `src/metadata.ts`), absent from a clean clone. */
export function generatedPaths(): string[] {
  return readFileSync(join(REPO_ROOT, '.gitignore'), 'utf8')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
}

/** Whether `path` (a file, or a folder written with a trailing `/`) exists, or is one a build or run writes. */
export function pathExists(path: string, files: readonly string[], generated: readonly string[] = generatedPaths()): boolean {
  const folder = path.endsWith('/');
  const found = folder
    ? files.some((file) => file.startsWith(path))
    : files.includes(path) || files.some((file) => file.startsWith(`${path}/`));
  return found || generated.some((entry) => `${path}/`.startsWith(entry.endsWith('/') ? entry : `${entry}/`) || path === entry);
}
