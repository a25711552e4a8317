import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

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
