import { createRequire } from 'node:module';
import { matchesGlob } from 'node:path';
import { generatedPaths, repoFiles } from '../test/support/repo-files.js';

// Every path, glob or path pattern in the tooling configs names at least one file: a file moved
// without its config entry (a mutated file no longer mutated, a layer rule over a folder that is
// gone) fails here rather than going unnoticed.

const files = repoFiles();
/** Files, plus what a build or run writes (.gitignore) and the packages installed (for rules on node_modules/). */
const universe = [
  ...files,
  ...generatedPaths(),
  ...createRequire(import.meta.url)('node:fs')
    .readdirSync('node_modules')
    .map((name: string) => `node_modules/${name}/package.json`),
];

/** Whether a glob matches a file; dot files count (ESLint's globs match them; node's matchesGlob would not). */
const globMatches = (glob: string) =>
  universe.some((file) => matchesGlob(file.replace(/(^|\/)\./g, '$1'), glob) || (glob.endsWith('/') && file.startsWith(glob)));

/**
 * A path regex and the variants its groups of plain alternatives make (`^src/(a|b)/` → `^src/a/`,
 * `^src/b/`): each must match a file, so that one folder gone from a list is seen.
 */
function variants(source: string): string[] {
  const group = /\(([^()|?]+(?:\|[^()|?]+)+)\)/.exec(source);
  if (!group) return [source];
  const alternatives = group[1]!.split('|');
  if (!alternatives.every((a) => /^[\w./\\$-]+$/.test(a) && /[a-z]/i.test(a))) return [source];
  return alternatives.flatMap((a) => variants(source.slice(0, group.index) + a + source.slice(group.index + group[0].length)));
}
const regexMisses = (source: string) => variants(source).filter((variant) => !universe.some((file) => new RegExp(variant).test(file)));

describe('stryker.config.mjs', () => {
  it('mutates files that exist, and names only them among its survivors', async () => {
    const { default: config } = (await import('../stryker.config.mjs' as string)) as { default: { mutate: string[] } };
    expect(config.mutate.filter((glob) => !globMatches(glob))).toEqual([]);
    const text = createRequire(import.meta.url)('node:fs').readFileSync('stryker.config.mjs', 'utf8') as string;
    const named = [...new Set([...text.matchAll(/^\/\/ - ([\w.-]+\.ts):/gm)].map((m) => m[1]!))];
    const mutated = new Set(config.mutate.map((path) => path.split('/').at(-1)));
    expect(named.filter((name) => !mutated.has(name))).toEqual([]);
  });
});

describe('.dependency-cruiser.cjs', () => {
  it('every path pattern of its rules and options matches a file, each alternative of a folder list included', () => {
    const config = createRequire(import.meta.url)('../.dependency-cruiser.cjs') as {
      forbidden: { name: string; from: Record<string, unknown>; to: Record<string, unknown> }[];
      options: { exclude: { path: string }; doNotFollow: { path: string }; tsConfig: { fileName: string } };
    };
    const patterns = (value: unknown): string[] =>
      typeof value === 'string' ? [value] : Array.isArray(value) ? value.flatMap(patterns) : [];
    const misses = config.forbidden.flatMap((rule) =>
      (['from', 'to'] as const).flatMap((side) =>
        (['path', 'pathNot'] as const).flatMap((key) =>
          patterns(rule[side][key]).flatMap((source) => regexMisses(source).map((v) => `${rule.name} ${side}.${key}: ${v}`)),
        ),
      ),
    );
    misses.push(...[config.options.exclude.path, config.options.doNotFollow.path].flatMap(regexMisses));
    if (!files.includes(config.options.tsConfig.fileName)) misses.push(config.options.tsConfig.fileName);
    expect(misses).toEqual([]);
  });
});

describe('eslint.config.js', () => {
  it("every `files` and `ignores` glob matches a file, and every restricted import's folder exists", async () => {
    const { default: configs } = (await import('../eslint.config.js' as string)) as {
      default: { name?: string; files?: unknown[]; ignores?: string[] }[];
    };
    // Ours only: the shared configs (named, e.g. `typescript-eslint/base`) list every extension they know.
    const globs = configs
      .filter((c) => c.name === undefined)
      .flatMap((c) => [...(c.files ?? []).flat(), ...(c.ignores ?? [])])
      .filter((g): g is string => typeof g === 'string');
    expect(globs.length).toBeGreaterThan(5);
    expect([...new Set(globs)].filter((glob) => !globMatches(glob))).toEqual([]);
    // The import patterns are relative to the importing file: `build/`, `build-site.js`, `scripts/` are
    // the build-time code the running service must not import.
    expect(['src/reference/build/', 'src/site/build-site.ts', 'scripts/'].filter((path) => !globMatches(path))).toEqual([]);
  });
});
