import { readFileSync } from 'node:fs';
import { join, matchesGlob } from 'node:path';
import { REPO_ROOT } from './common/repo-root.js';
import { generatedPaths, pathExists, repoFiles } from '../test/support/repo-files.js';

// What the documentation and the comments point a reader to exists: every repository path they
// name (README.md, docs/*.md, and the code's comments and strings), and every environment variable
// the configuration reads is in the README's table. A file moved without its mentions fails here.

const files = repoFiles();
const generated = generatedPaths();
const read = (path: string) => readFileSync(join(REPO_ROOT, path), 'utf8');

/** The folders of src/: a path written from src/ on (`declarations/declaration.ts`) is read under it. */
const SRC_FOLDERS = [...new Set(files.filter((f) => f.startsWith('src/') && f.split('/').length > 2).map((f) => f.split('/')[1]!))];
const TOP = ['src', 'test', 'migrations', 'reference-data', 'views', 'assets', 'scripts', 'bench', 'docs'];

/**
 * A path-like token: a top folder of the repository (or a folder of src/) followed by `/` and path
 * characters, not inside a URL or a longer path (`https://…/src/x.ts`, `dist/src/main.js`, `../x/y.ts`).
 * It stops at a placeholder (`<Name>`, `{id}`, `$VAR`, `…`); a trailing `:line` is dropped.
 */
const PATH = new RegExp(`(?<![\\w./@~-])(${[...TOP, ...SRC_FOLDERS].join('|')})/[\\w./*-]*`, 'g');

const ROUTE_DECORATOR = /@(Get|Post|Put|Patch|Delete|Head|All)\(\s*['"`]$/;

/** Tokens that look like paths on purpose though none exists: examples of a shape, and one rate. */
const EXAMPLES = new Set([
  'src/x/y.spec.ts', // how to run one unit spec
  'test/some.e2e-spec.ts', // how to run one e2e file
  'src/a/', // src/tooling-configs.spec.ts: how a folder list is expanded
  'src/b/',
  'declarations/s', // docs/benchmarks.md: a rate
  'docs/operations.md', // written by the operations engineer on a branch of its own: linked from the README before it lands
]);

/** Stale mentions that stay: an existing migration is never edited (the cache moved to src/auth/tokens/). */
const KEPT = new Set(['migrations/1795900000000-auth-change-notifications.ts: src/auth/authentication-cache.ts']);

/**
 * Where a token may name a file: from the root (`test/…`), else from src/ (`declarations/…`) or
 * views/ (a template's name, `site/home`); undefined for an example.
 */
function candidates(token: string): string[] | undefined {
  const path = token.replace(/[.,:;]+$/, '');
  if (path === '' || EXAMPLES.has(path)) return undefined;
  return TOP.includes(path.split('/')[0]!) ? [path] : [`src/${path}`, `views/${path}`];
}

/** A file, a folder, a glob, or a file named without its extension (`src/main` in nest-cli.json, a template). */
function exists(path: string): boolean {
  if (path.includes('*')) return files.some((file) => matchesGlob(file, path));
  const stem = (file: string) => file.startsWith(`${path}.`) && !file.slice(path.length + 1).includes('/');
  return pathExists(path, files, generated) || files.some(stem) || generated.some(stem);
}

/** Files whose text is read for paths: the docs, and the sources and configs a reader opens. */
const SCANNED = files.filter(
  (f) =>
    f === 'README.md' ||
    /^docs\/[^/]+\.md$/.test(f) ||
    (/^(src|test|bench|scripts|migrations)\//.test(f) && /\.(ts|mts|mjs|cjs|js|lua)$/.test(f)) ||
    /^[^/]+\.(mjs|cjs|js)$/.test(f) ||
    /^(package|nest-cli|tsconfig[\w.]*)\.json$/.test(f) ||
    f === 'Dockerfile' ||
    f === 'docker-compose.yml',
);

describe('repository paths named in the docs and the code', () => {
  it('scans the README, the docs and the code', () => {
    expect(SCANNED).toEqual(expect.arrayContaining(['README.md', 'src/main.ts', 'test/support/test-app.ts']));
    expect(SCANNED.filter((f) => f.startsWith('docs/')).length).toBeGreaterThan(0);
  });

  it('exist (or are written by a build, as .gitignore says)', () => {
    const missing: string[] = [];
    for (const file of SCANNED) {
      if (file === 'src/repo-paths.spec.ts') continue; // its own examples
      const text = read(file);
      for (const match of text.matchAll(PATH)) {
        // A route in a controller's decorator (`@Get('exports/annual/:year')`) is an address, not a file.
        if (ROUTE_DECORATOR.test(text.slice(Math.max(0, match.index - 20), match.index))) continue;
        const paths = candidates(match[0]);
        if (paths !== undefined && !paths.some(exists) && !KEPT.has(`${file}: ${match[0]}`)) missing.push(`${file}: ${match[0]}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('the pattern finds paths as the docs write them, and leaves URLs and other trees alone', () => {
    const found = (text: string) => [...text.matchAll(PATH)].map((m) => m[0]);
    expect(found('see `src/edge/me-from-memory.ts` and declarations/declaration.ts: line')).toEqual([
      'src/edge/me-from-memory.ts',
      'declarations/declaration.ts',
    ]);
    expect(found('https://example.org/src/x.ts dist/src/main.js ../site/x.ts node_modules/pg/')).toEqual([]);
    expect(candidates('declarations/declaration.ts.')).toEqual(['src/declarations/declaration.ts', 'views/declarations/declaration.ts']);
    expect(exists('src/edge/me-from-memory.ts')).toBe(true);
    expect(exists('src/accounts/me-from-memory.ts')).toBe(false);
  });
});

describe('comments that stand alone', () => {
  it('cite no tracker numbers (existing migrations excepted: they are never edited)', () => {
    const cited = SCANNED.filter((file) => !file.startsWith('migrations/')).flatMap((file) =>
      read(file)
        .split('\n')
        .flatMap((line, i) => (/\b[Ii]ssues? [0-9]+|\(#[0-9]+\)/.test(line) ? [`${file}:${i + 1}`] : [])),
    );
    expect(cited).toEqual([]);
  });
});

describe('the README configuration table', () => {
  it('lists every environment variable the config reads', () => {
    const schema = read('src/config/config.ts');
    const variables = [...schema.matchAll(/^ {2}([A-Z][A-Z0-9_]+): /gm)].map((m) => m[1]!);
    expect(variables).toEqual(expect.arrayContaining(['PORT', 'DATABASE_URL', 'ADMIN_TOKEN', 'TRUST_PROXY']));
    const table = new Set([...read('README.md').matchAll(/^\| `([A-Z][A-Z0-9_]+)` \|/gm)].map((m) => m[1]!));
    expect(variables.filter((name) => !table.has(name))).toEqual([]);
  });
});
