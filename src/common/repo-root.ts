import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The nearest directory at or above `startDir` that holds a `package.json`:
 * the repository root, whether the code runs from `src/` or from `dist/`.
 */
export function findRepoRoot(startDir: string): string {
  let dir = resolve(startDir);
  for (;;) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`No package.json found at or above ${startDir}`);
    dir = parent;
  }
}

/** The repository root (this file is in src/ or dist/src/, both under it). */
export const REPO_ROOT = findRepoRoot(dirname(fileURLToPath(import.meta.url)));
