/**
 * The pages of the public site: where each is served, which template renders it and which JSON
 * file it shows. Pure data (no I/O): the build, the server and llms.txt all read it.
 *
 * One copy of every page per language of the registry (src/i18n/languages.ts), at its site prefix:
 * English at `/`, French under `/fr/` (same path after the prefix). A page at `/pricing` is the
 * file `pricing.html` (`/` is `index.html`, `/fr/` is `fr/index.html`), which is how static hosts
 * serve clean URLs.
 */
import { PROBLEM_TYPES, type ProblemCode } from '../common/problem/problem.js';
import { LANGUAGE_REGISTRY, LANGUAGES, type Language } from '../i18n/languages.js';

export { LANGUAGES, type Language } from '../i18n/languages.js';

export type PageKind =
  | 'notFound'
  | 'home'
  | 'start'
  | 'pricing'
  | 'streams'
  | 'law'
  | 'obligations'
  | 'abroad'
  | 'glossary'
  | 'developers'
  | 'problems'
  | 'problem';

export interface SitePage {
  kind: PageKind;
  lang: Language;
  /** The URL path, e.g. `/fr/pricing`. */
  path: string;
  /** The same page in each other language, in the registry's order (the language switch, `hreflang`). */
  alternates: readonly { lang: Language; path: string }[];
  /** Where the build writes it, relative to the site folder. */
  file: string;
  /** Template under views/. */
  template: string;
  /** The path of the JSON the page shows (its `rel="alternate"`). */
  json: string;
  /** Only for kind `problem`. */
  problem?: ProblemCode;
}

/** The slug of a problem code in its `type` URL: `not_found` → `not-found` (see ProblemFilter). */
export function problemSlug(code: ProblemCode): string {
  return code.replace(/_/g, '-');
}

interface PageSpec {
  kind: PageKind;
  /** Path after the language prefix, without a leading slash ('' for home). */
  slug: string;
  template: string;
  json: string;
  problem?: ProblemCode;
}

const SPECS: PageSpec[] = [
  { kind: 'home', slug: '', template: 'site/home', json: '/api/v1/index.json' },
  { kind: 'start', slug: 'getting-started', template: 'site/start', json: '/api/v1/index.json' },
  { kind: 'pricing', slug: 'pricing', template: 'site/pricing', json: '/api/v1/pricing.json' },
  { kind: 'streams', slug: 'streams', template: 'site/streams', json: '/api/v1/streams.json' },
  { kind: 'law', slug: 'law', template: 'site/law', json: '/api/v1/law.json' },
  { kind: 'obligations', slug: 'obligations', template: 'site/obligations', json: '/api/v1/obligations.json' },
  { kind: 'abroad', slug: 'selling-from-abroad', template: 'site/abroad', json: '/api/v1/obligations.json' },
  // The glossary comes from reference-data/glossary.yaml (src/i18n/glossary.ts), not from a published file.
  { kind: 'glossary', slug: 'glossary', template: 'site/glossary', json: '/api/v1/index.json' },
  { kind: 'developers', slug: 'developers', template: 'site/developers', json: '/api/v1/index.json' },
  { kind: 'problems', slug: 'problems', template: 'problems/index', json: '/docs/openapi.json' },
  ...(Object.keys(PROBLEM_TYPES) as ProblemCode[]).map((code) => ({
    kind: 'problem' as const,
    slug: `problems/${problemSlug(code)}`,
    template: 'problems/problem',
    json: '/docs/openapi.json',
    problem: code,
  })),
];

function pathOf(lang: Language, slug: string): string {
  const prefix = LANGUAGE_REGISTRY.get(lang).sitePrefix;
  return slug === '' ? `${prefix}/` : `${prefix}/${slug}`;
}

function fileOf(lang: Language, slug: string): string {
  const prefix = LANGUAGE_REGISTRY.get(lang).sitePrefix;
  return `${prefix === '' ? '' : `${prefix.slice(1)}/`}${slug === '' ? 'index' : slug}.html`;
}

function alternatesOf(lang: Language, slug: string): SitePage['alternates'] {
  return LANGUAGES.filter((other) => other !== lang).map((other) => ({ lang: other, path: pathOf(other, slug) }));
}

/** Every page, in the registry's order of languages (English first), in a stable order. */
export const SITE_PAGES: readonly SitePage[] = LANGUAGES.flatMap((lang) =>
  SPECS.map((spec) => ({
    kind: spec.kind,
    lang,
    path: pathOf(lang, spec.slug),
    alternates: alternatesOf(lang, spec.slug),
    file: fileOf(lang, spec.slug),
    template: spec.template,
    json: spec.json,
    ...(spec.problem ? { problem: spec.problem } : {}),
  })),
);

/**
 * The page a person gets for an address that does not exist (status 404, never served at a path of
 * its own): written as `404.html` and `fr/404.html`, the names static hosts look for.
 */
export const NOT_FOUND_PAGES: readonly SitePage[] = LANGUAGES.map((lang) => ({
  kind: 'notFound',
  lang,
  path: pathOf(lang, ''),
  alternates: alternatesOf(lang, ''),
  file: fileOf(lang, '404'),
  template: 'site/not-found',
  json: '/api/v1/index.json',
}));

/** The language of a site path, by its prefix: French under `/fr`, English elsewhere. */
export function languageOfPath(path: string): Language {
  return LANGUAGE_REGISTRY.languageOfPath(path) as Language;
}

/** The language at the site's root, whose pages are the `x-default` of every page. */
export const ROOT_LANGUAGE = LANGUAGE_REGISTRY.languageOfPath('/') as Language;

/** The pages listed in the navigation, in order. */
export const NAV_KINDS: readonly PageKind[] = ['start', 'pricing', 'streams', 'law', 'obligations', 'abroad', 'glossary', 'developers'];

/** Paths that serve a page without being its canonical path (`/fr` is `/fr/`). */
export const PAGE_ALIASES: ReadonlyMap<string, string> = new Map(
  LANGUAGE_REGISTRY.definitions.filter((d) => d.sitePrefix !== '').map((d) => [d.sitePrefix, `${d.sitePrefix}/`]),
);

export const STYLESHEET_PATH = '/assets/site.css';
export const ICON_PATH = '/assets/icon.svg';
/** The dashboard's one script (its copy button); the site's pages run none. */
export const DASHBOARD_SCRIPT_PATH = '/assets/dashboard.js';

/** Every path the site answers (pages, aliases, assets, sitemap.xml, robots.txt, llms.txt): nothing else. */
export const SITE_PATHS: readonly string[] = [
  ...SITE_PAGES.map((page) => page.path),
  ...PAGE_ALIASES.keys(),
  STYLESHEET_PATH,
  ICON_PATH,
  DASHBOARD_SCRIPT_PATH,
  '/sitemap.xml',
  '/robots.txt',
  // The Markdown summary lists the pages, so the site renders it (llms-txt.ts: LLMS_PATH).
  '/llms.txt',
];
