/**
 * How the image starts the service, read from the Dockerfile's `ENV` line so that the benchmarks
 * cannot drift from it: its `NODE_OPTIONS` (V8's heap limits) and glibc's allocator settings
 * (every `MALLOC_*` variable). Every bench that starts `dist/src/main.js` as a user runs it takes
 * both from here.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The variables of the Dockerfile's `ENV` lines, `NAME=value` or `NAME="value with spaces"`. */
function dockerfileEnv(dockerfile: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [, line] of dockerfile.matchAll(/^ENV (.*)$/gm)) {
    for (const [, name, quoted, plain] of line.matchAll(/(\w+)=(?:"([^"]*)"|(\S*))/g)) env[name] = quoted ?? plain;
  }
  return env;
}

const IMAGE_ENV = dockerfileEnv(readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8'));

/** The image's NODE_OPTIONS, as one string. */
const DEPLOYED_NODE_OPTIONS = IMAGE_ENV.NODE_OPTIONS ?? '';

/** The image's glibc allocator settings (absent: glibc's defaults). */
export const DEPLOYED_MALLOC: Record<string, string> = Object.fromEntries(
  Object.entries(IMAGE_ENV).filter(([name]) => name.startsWith('MALLOC_')),
);

/** What a child process needs in its environment to run as the image runs it. */
export const DEPLOYED_ENV: Record<string, string> = { NODE_OPTIONS: DEPLOYED_NODE_OPTIONS, ...DEPLOYED_MALLOC };

/** The same settings as one line for a bench's report. */
export const DEPLOYED_SUMMARY = Object.entries(DEPLOYED_ENV)
  .map(([name, value]) => `${name}=${value || '(none)'}`)
  .join(' ');
