/**
 * Renders the public site from the published JSON files (the bytes renderReference produced, parsed
 * back), so a page cannot say anything its file does not. Templates are in views/ (Eta, escaping by
 * default), the stylesheet and icon in assets/. Deterministic: the output depends only on the files,
 * the templates, the assets and the URLs.
 *
 * Every fact taken from a file is marked with `data-fact="<file>#<JSON pointer>"` (and `data-value`
 * when it is shown as a word, e.g. `true` as "yes"): the site's tests check each mark against the
 * file, and that every value of every file is marked on the pages.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Eta } from 'eta';
import { PROBLEM_TYPES } from '../common/problem/problem.js';
import { REPO_ROOT } from '../common/repo-root.js';
import {
  REFERENCE_DOCUMENTS,
  type IndexDocument,
  type ReferenceDocuments,
  type ReferenceUrls,
  type RenderedFile,
} from '../reference/reference-documents.js';
import { DASHBOARD_SCRIPT_PATH, ICON_PATH, LANGUAGES, NAV_KINDS, PAGE_ALIASES, SITE_PAGES, STYLESHEET_PATH, problemSlug, type Language, type SitePage } from './site-pages.js';
import { MESSAGES, type Messages } from '../i18n/messages/index.js';

export const VIEWS_DIR = join(REPO_ROOT, 'views');
export const ASSETS_DIR = join(REPO_ROOT, 'assets');

/** The static assets, by URL path, and their file under assets/. */
export const SITE_ASSETS: ReadonlyMap<string, { source: string; contentType: string }> = new Map([
  [STYLESHEET_PATH, { source: 'site.css', contentType: 'text/css; charset=utf-8' }],
  [ICON_PATH, { source: 'icon.svg', contentType: 'image/svg+xml' }],
  // The dashboard's copy button (the site itself runs no script).
  [DASHBOARD_SCRIPT_PATH, { source: 'dashboard.js', contentType: 'text/javascript; charset=utf-8' }],
]);

/** One file of the site: where it is served, where the build writes it, its bytes. */
export interface SiteFile {
  /** URL paths that serve it (a page may have an alias, e.g. `/fr` for `/fr/`). */
  paths: string[];
  /** Path relative to the site folder. */
  file: string;
  body: Buffer;
  contentType: string;
}

export const HTML_CONTENT_TYPE = 'text/html; charset=utf-8';

/**
 * The site's files: every page, the assets, sitemap.xml and robots.txt. `files` are the published
 * reference files (their JSON is what the pages show).
 */
export function renderSite(files: readonly RenderedFile[], urls: ReferenceUrls): SiteFile[] {
  const json = (name: string) => JSON.parse(fileNamed(files, name).body.toString('utf8')) as unknown;
  const documents = Object.fromEntries(REFERENCE_DOCUMENTS.map((name) => [name, json(`${name}.json`)])) as unknown as ReferenceDocuments;
  const index = json('index.json') as IndexDocument;
  const siteUrl = urls.siteUrl.replace(/\/+$/, '');

  const eta = new Eta({ views: VIEWS_DIR, cache: true, autoEscape: true, autoTrim: [false, 'nl'] });
  const out: SiteFile[] = SITE_PAGES.map((page) => ({
    paths: [page.path, ...[...PAGE_ALIASES].filter(([, target]) => target === page.path).map(([alias]) => alias)],
    file: page.file,
    body: Buffer.from(tidy(eta.render(page.template, viewModel(page, documents, index, siteUrl))), 'utf8'),
    contentType: HTML_CONTENT_TYPE,
  }));
  for (const [path, asset] of SITE_ASSETS) {
    out.push({ paths: [path], file: path.slice(1), body: readFileSync(join(ASSETS_DIR, asset.source)), contentType: asset.contentType });
  }
  out.push({ paths: ['/sitemap.xml'], file: 'sitemap.xml', body: Buffer.from(sitemap(siteUrl, index.updated), 'utf8'), contentType: 'application/xml; charset=utf-8' });
  out.push({
    paths: ['/robots.txt'],
    file: 'robots.txt',
    body: Buffer.from(`User-agent: *\nAllow: /\nDisallow: /api/v1/me\nDisallow: /api/v1/declarations\nDisallow: /api/v1/admin/\n\nSitemap: ${siteUrl}/sitemap.xml\n`, 'utf8'),
    contentType: 'text/plain; charset=utf-8',
  });
  return out;
}

function fileNamed(files: readonly RenderedFile[], name: string): RenderedFile {
  const file = files.find((f) => f.name === name);
  if (!file) throw new Error(`renderSite: ${name} is not among the reference files`);
  return file;
}

/** No trailing spaces, one blank line at most: the templates' indentation stays readable and the bytes small. */
function tidy(html: string): string {
  return `${html
    .split('\n')
    .map((line) => line.trimEnd())
    .filter((line, i, lines) => line !== '' || (i > 0 && lines[i - 1] !== ''))
    .join('\n')
    .trim()}\n`;
}

function sitemap(siteUrl: string, updated: string): string {
  const entries = SITE_PAGES.filter((page) => page.lang === 'en').map((page) => {
    const fr = SITE_PAGES.find((p) => p.path === page.otherPath)!;
    return [
      '  <url>',
      `    <loc>${siteUrl}${page.path}</loc>`,
      `    <lastmod>${updated}</lastmod>`,
      `    <xhtml:link rel="alternate" hreflang="en" href="${siteUrl}${page.path}"/>`,
      `    <xhtml:link rel="alternate" hreflang="fr" href="${siteUrl}${fr.path}"/>`,
      '  </url>',
      '  <url>',
      `    <loc>${siteUrl}${fr.path}</loc>`,
      `    <lastmod>${updated}</lastmod>`,
      `    <xhtml:link rel="alternate" hreflang="en" href="${siteUrl}${page.path}"/>`,
      `    <xhtml:link rel="alternate" hreflang="fr" href="${siteUrl}${fr.path}"/>`,
      '  </url>',
    ].join('\n');
  });
  return `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:xhtml="http://www.w3.org/1999/xhtml">\n${entries.join('\n')}\n</urlset>\n`;
}

// ---------------------------------------------------------------- view model

/** The site's words (the catalogue's `site` section of each language). */
type SiteText = Messages['site'];

function viewModel(page: SitePage, documents: ReferenceDocuments, index: IndexDocument, siteUrl: string) {
  const t = MESSAGES[page.lang].site;
  const h = helpers(page.lang, t);
  const pathFor = (kind: SitePage['kind'], lang: Language = page.lang) => SITE_PAGES.find((p) => p.kind === kind && p.lang === lang)!.path;
  const problem = page.problem;
  return {
    page,
    t,
    h,
    lang: page.lang,
    otherLang: page.lang === 'en' ? 'fr' : 'en',
    siteUrl,
    index,
    ...documents,
    nav: NAV_KINDS.map((kind) => ({ kind, path: pathFor(kind), label: t.nav[kind], current: kind === page.kind })),
    pathFor,
    homePath: pathFor('home'),
    stylesheet: STYLESHEET_PATH,
    icon: ICON_PATH,
    title: problem ?? t.titles[page.kind],
    /** The title and the service's name, when both fit in a search result (70 characters). */
    documentTitle: [problem ?? t.titles[page.kind], index.name].join(' · ').length <= 70 ? [problem ?? t.titles[page.kind], index.name].join(' · ') : (problem ?? t.titles[page.kind]),
    problems: Object.entries(PROBLEM_TYPES).map(([code, type]) => ({
      code,
      ...type,
      path: `${page.lang === 'en' ? '' : '/fr'}/problems/${problemSlug(code as keyof typeof PROBLEM_TYPES)}`,
      ...t.problemTypes[code as keyof typeof PROBLEM_TYPES],
    })),
    problem: problem ? { code: problem, slug: problemSlug(problem), ...PROBLEM_TYPES[problem], ...t.problemTypes[problem] } : undefined,
    /** Stream code → path of its section on the streams page; law id → its section on the law page. */
    streamHref: (code: string) => `${pathFor('streams')}#stream-${code}`,
    lawHref: (id: string) => `${pathFor('law')}#law-${id}`,
    languages: LANGUAGES,
  };
}

export type Helpers = ReturnType<typeof helpers>;

/**
 * Small functions the templates call to show one fact with its mark. Each returns HTML with every
 * piece of text escaped (templates output them raw, with `<%~`).
 */
function helpers(lang: Language, t: SiteText) {
  const word = (value: unknown): string => t.values[String(value)] ?? String(value);
  const mark = (pointer: string, value: unknown, shown: string, attrs = '', tag = 'span') => {
    const valueAttr = typeof value === 'string' || typeof value === 'number' ? '' : ` data-value="${escapeHtml(JSON.stringify(value))}"`;
    return `<${tag}${attrs} data-fact="${escapeHtml(pointer)}"${valueAttr}>${escapeHtml(shown)}</${tag}>`;
  };
  const coded = (pointer: string, value: unknown, shown: string, attrs = '') =>
    `<span${attrs} data-fact="${escapeHtml(pointer)}" data-value="${escapeHtml(JSON.stringify(value))}">${escapeHtml(shown)}</span>`;
  const h = {
    /** A value as the file holds it (text, number); true/false/null as a word. */
    fact: (pointer: string, value: unknown, nullWord?: string) =>
      mark(
        pointer,
        value,
        value === null && nullWord ? nullWord : typeof value === 'string' || typeof value === 'number' ? String(value) : Array.isArray(value) ? '—' : word(value),
      ),
    /** A code of a closed list (status, role…) as a word of the page's language. */
    word: (pointer: string, value: string) => coded(pointer, value, word(value)),
    /** An ISO date, or null. */
    date: (pointer: string, value: string | null, nullWord = t.values.noDate) =>
      value === null ? mark(pointer, null, nullWord) : mark(pointer, value, value, ` datetime="${escapeHtml(value)}"`, 'time'),
    /** The verification label of a fact. */
    badge: (pointer: string, value: string) => coded(pointer, value, word(value), ` class="badge badge-${escapeHtml(value)}"`),
    /** A link whose text is the address the file holds. */
    link: (pointer: string, url: string) => `<a href="${escapeHtml(url)}" data-fact="${escapeHtml(pointer)}">${escapeHtml(url)}</a>`,
    /** A list of source addresses. */
    sources: (pointer: string, urls: readonly string[]) =>
      urls.length === 0
        ? mark(pointer, [], '—')
        : `<ul class="sources">${urls.map((url, i) => `<li>${h.link(`${pointer}/${i}`, url)}</li>`).join('')}</ul>`,
    /** A name in the page's language, and the other language's after it. */
    names: (pointer: string, name: { fr: string; en: string }) => {
      const other: Language = lang === 'en' ? 'fr' : 'en';
      return `${mark(`${pointer}/${lang}`, name[lang], name[lang])} <span class="other-lang" lang="${other}">(${mark(`${pointer}/${other}`, name[other], name[other])})</span>`;
    },
    /** English text of the data on a French page says so (screen readers switch voice). */
    enText: (pointer: string, value: string | null, nullWord = '—') =>
      value === null ? mark(pointer, null, nullWord) : mark(pointer, value, value, lang === 'en' ? '' : ' lang="en"'),
    /** A text for people ({fr, en}) in the page's language only; null (or absent) as `nullWord`. */
    text: (pointer: string, value: { fr: string; en: string } | null | undefined, nullWord = '—') =>
      value === null || value === undefined ? mark(pointer, null, nullWord) : mark(`${pointer}/${lang}`, value[lang], value[lang]),
    /**
     * Every field of `object` that the template does not show by name, as a definition list: a
     * field added to the data shows up on the page without a template change.
     */
    extras: (object: object, pointer: string, shown: readonly string[]) => {
      const leaves = Object.entries(object)
        .filter(([key]) => !shown.includes(key))
        .flatMap(([key, value]) => flatten(value, `${pointer}/${escapePointer(key)}`, key));
      if (leaves.length === 0) return '';
      return `<dl class="extras">${leaves
        .map(({ label, pointer: p, value }) => `<dt>${escapeHtml(label)}</dt><dd>${isIsoDate(value) ? h.date(p, value as string) : isLocalized(value) ? h.text(p, value) : h.anyValue(p, value)}</dd>`)
        .join('')}</dl>`;
    },
    /** A field of any kind: an address as a link, a text as text, anything else as `fact` shows it. */
    anyValue: (pointer: string, value: unknown) =>
      typeof value === 'string' && /^https?:\/\//.test(value) ? h.link(pointer, value) : typeof value === 'string' ? h.enText(pointer, value) : h.fact(pointer, value),
    /** A JSON pointer into a file: `streams.json#/streams/0`. */
    ptr: (file: string, ...path: (string | number)[]) => `${file}#${path.map((p) => `/${escapePointer(String(p))}`).join('')}`,
  };
  return h;
}

function flatten(value: unknown, pointer: string, label: string): { label: string; pointer: string; value: unknown }[] {
  // A text for people is one value, shown in the page's language.
  if (isLocalized(value)) return [{ label, pointer, value }];
  if (Array.isArray(value)) {
    return value.length === 0 ? [{ label, pointer, value: [] }] : value.flatMap((item, i) => flatten(item, `${pointer}/${i}`, `${label} ${i + 1}`));
  }
  if (typeof value === 'object' && value !== null) {
    return Object.entries(value).flatMap(([key, v]) => flatten(v, `${pointer}/${escapePointer(key)}`, `${label} ${key}`));
  }
  return [{ label, pointer, value }];
}

/** A text for people: exactly `{fr, en}`, both strings. */
function isLocalized(value: unknown): value is { fr: string; en: string } {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const keys = Object.keys(value);
  return keys.length === 2 && typeof (value as Record<string, unknown>).fr === 'string' && typeof (value as Record<string, unknown>).en === 'string';
}

function isIsoDate(value: unknown): boolean {
  return typeof value === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(value);
}

function escapePointer(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}
