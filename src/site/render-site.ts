/**
 * Renders the public site from the published JSON files (renderReference's bytes, parsed back), so a
 * page says nothing its file does not; templates in views/ (Eta, escaping by default), stylesheet and
 * icon in assets/; deterministic. Every fact taken from a file is marked `data-fact="<file>#<pointer>"`
 * (and `data-value` when shown as a word, `true` as "yes"): the site's tests check each mark, and that
 * every value of every file is marked.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROBLEM_TYPES } from '../common/problem/problem.js';
import { REPO_ROOT } from '../common/repo-root.js';
import { escapePointer } from '../common/problem/json-pointer.js';
import { views } from '../common/views.js';
import { dueDate, type DueRule } from '../calendar/half-year.js';
import {
  LLMS_FILE,
  MARKDOWN_CONTENT_TYPE,
  REFERENCE_DOCUMENTS,
  type IndexDocument,
  type ReferenceDocuments,
  type Stream,
  type ReferenceUrls,
  type RenderedFile,
} from '../reference/reference-documents.js';
import {
  DASHBOARD_SCRIPT_PATH,
  ICON_PATH,
  LANGUAGES,
  NAV_KINDS,
  NOT_FOUND_PAGES,
  PAGE_ALIASES,
  ROOT_LANGUAGE,
  SITE_PAGES,
  STYLESHEET_PATH,
  problemSlug,
  type Language,
  type SitePage,
} from './site-pages.js';
import { MESSAGES, type Messages } from '../i18n/messages/index.js';
import { LLMS_PATH, renderLlmsTxt } from './llms-txt.js';
import { sourceLabel } from '../reference/source-labels.js';
import { GLOSSARY } from '../i18n/glossary.js';
import { formatDate, formatList, formatMoney, formatNumber, unitSymbol } from '../i18n/format.js';
import { LANGUAGE_REGISTRY, textIn } from '../i18n/languages.js';

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

  const out: SiteFile[] = SITE_PAGES.map((page) => ({
    paths: [page.path, ...[...PAGE_ALIASES].filter(([, target]) => target === page.path).map(([alias]) => alias)],
    file: page.file,
    body: Buffer.from(tidy(views.render(page.template, viewModel(page, documents, index, siteUrl))), 'utf8'),
    contentType: HTML_CONTENT_TYPE,
  }));
  // The pages for an unknown address: served with status 404 only, at no path of their own.
  for (const page of NOT_FOUND_PAGES) {
    out.push({
      paths: [],
      file: page.file,
      body: Buffer.from(tidy(views.render(page.template, viewModel(page, documents, index, siteUrl))), 'utf8'),
      contentType: HTML_CONTENT_TYPE,
    });
  }
  for (const [path, asset] of SITE_ASSETS) {
    out.push({ paths: [path], file: path.slice(1), body: readFileSync(join(ASSETS_DIR, asset.source)), contentType: asset.contentType });
  }
  out.push({
    paths: [LLMS_PATH],
    file: LLMS_FILE,
    body: Buffer.from(
      renderLlmsTxt(documents, index, { ...urls, referenceBaseUrl: urls.referenceBaseUrl.replace(/\/+$/, ''), siteUrl }),
      'utf8',
    ),
    contentType: MARKDOWN_CONTENT_TYPE,
  });
  out.push({
    paths: ['/sitemap.xml'],
    file: 'sitemap.xml',
    body: Buffer.from(sitemap(siteUrl, index.updated), 'utf8'),
    contentType: 'application/xml; charset=utf-8',
  });
  out.push({
    paths: ['/robots.txt'],
    file: 'robots.txt',
    body: Buffer.from(
      `User-agent: *\nAllow: /\nDisallow: /api/v1/me\nDisallow: /api/v1/declarations\nDisallow: /api/v1/admin/\n\nSitemap: ${siteUrl}/sitemap.xml\n`,
      'utf8',
    ),
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
  // One entry per page of each language, all listing the same versions (each page's own included), in the registry's order.
  const entries = SITE_PAGES.filter((page) => page.lang === ROOT_LANGUAGE).map((page) => {
    const versions = [{ lang: page.lang, path: page.path }, ...page.alternates];
    const links = versions.map((v) => `    <xhtml:link rel="alternate" hreflang="${v.lang}" href="${siteUrl}${v.path}"/>`);
    return versions
      .flatMap((version) => [
        '  <url>',
        `    <loc>${siteUrl}${version.path}</loc>`,
        `    <lastmod>${updated}</lastmod>`,
        ...links,
        '  </url>',
      ])
      .join('\n');
  });
  return `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:xhtml="http://www.w3.org/1999/xhtml">\n${entries.join('\n')}\n</urlset>\n`;
}

// ---------------------------------------------------------------- view model

/** The site's words (the catalogue's `site` section of each language). */
type SiteText = Messages['site'];

function viewModel(page: SitePage, documents: ReferenceDocuments, index: IndexDocument, siteUrl: string) {
  const t = MESSAGES[page.lang].site;
  const h = helpers(page.lang, t, documents.law, documents.streams.units);
  const pathFor = (kind: SitePage['kind'], lang: Language = page.lang) => SITE_PAGES.find((p) => p.kind === kind && p.lang === lang)!.path;
  const problem = page.problem;
  const title = problem ?? t.titles[page.kind];
  const documentTitle = `${title} · ${t.serviceName}`;
  return {
    page,
    t,
    h,
    lang: page.lang,
    /** The same page in each other language, named in that language (the language switch). */
    switches: page.alternates.map((other) => ({
      ...other,
      name: LANGUAGE_REGISTRY.get(other.lang).ownName,
      hint: MESSAGES[other.lang].language.versionHint,
    })),
    /** The page in the language at the site's root: every page's `x-default`. */
    defaultPath: page.lang === ROOT_LANGUAGE ? page.path : page.alternates.find((other) => other.lang === ROOT_LANGUAGE)!.path,
    /** A reference text in the page's language, else in its declared fallback, marked with that language. */
    tx: (value: Partial<Record<Language, string>>) => {
      const shown = textIn(value, page.lang);
      return shown.language === page.lang ? escapeHtml(shown.text) : `<span lang="${shown.language}">${escapeHtml(shown.text)}</span>`;
    },
    /** The same, as plain text (an attribute). */
    textOf: (value: Partial<Record<Language, string>>) => textIn(value, page.lang).text,
    siteUrl,
    index,
    ...documents,
    nav: NAV_KINDS.map((kind) => ({ kind, path: pathFor(kind), label: t.nav[kind], current: kind === page.kind })),
    pathFor,
    homePath: pathFor('home'),
    /** The dashboard's sign-in, in this page's language (the dashboard remembers `?lang=`). */
    signInPath: `/dashboard/sign-in?lang=${page.lang}`,
    stylesheet: STYLESHEET_PATH,
    icon: ICON_PATH,
    title,
    /** The title and the service's name in the page's language, when both fit in a search result (70 characters). */
    documentTitle: documentTitle.length <= 70 ? documentTitle : title,
    /** The year whose quantities the deadlines on the pages are told for: the year of the data. */
    dataYear: Number(index.updated.slice(0, 4)),
    problems: Object.entries(PROBLEM_TYPES).map(([code, type]) => ({
      code,
      ...type,
      path: `${LANGUAGE_REGISTRY.get(page.lang).sitePrefix}/problems/${problemSlug(code as keyof typeof PROBLEM_TYPES)}`,
      ...t.problemTypes[code as keyof typeof PROBLEM_TYPES],
    })),
    problem: problem ? { code: problem, slug: problemSlug(problem), ...PROBLEM_TYPES[problem], ...t.problemTypes[problem] } : undefined,
    /** Stream code → path of its section on the streams page; law id → its section on the law page. */
    streamHref: (code: string) => `${pathFor('streams')}#stream-${code}`,
    lawHref: (id: string) => `${pathFor('law')}#law-${id}`,
    languages: LANGUAGES,
    glossary: GLOSSARY,
    timeline: (stream: Stream, i: number) => timeline(stream, i, documents, page.lang, h),
    /** Material codes of a stream as their names, joined as the language lists them, each marked. */
    materialNames: (stream: Stream, i: number, codes: readonly string[], pointer: string) =>
      h.list(
        codes.map((code, j) => {
          const material = stream.materials.find((m) => m.code === code);
          return material ? h.shown(`${pointer}/${j}`, code, textIn(material.name, page.lang).text) : h.fact(`${pointer}/${j}`, code);
        }),
      ),
  };
}

/**
 * What changed in a stream, and when, oldest first: its start, its first and last declarable
 * periods and the stream that takes over, its eco-organisms' approvals, and the materials a later
 * catalogue replaced. Each line is HTML with its facts marked.
 */
function timeline(stream: Stream, i: number, documents: ReferenceDocuments, lang: Language, h: Helpers): string[] {
  const s = MESSAGES[lang].site.streamPage;
  const colon = MESSAGES[lang].site.colon;
  const p = h.ptr('streams.json', 'streams', i);
  const events: { date: string; html: string }[] = [];
  const at = (date: string, pointer: string, text: string) =>
    events.push({ date, html: `${h.date(pointer, date)}${colon} ${escapeHtml(text)}` });
  if (stream.start_date !== null) at(stream.start_date, `${p}/start_date`, s.eventStart);
  at(stream.declarable_from, `${p}/declarable_from`, s.eventFirst);
  if (stream.declarable_until !== null) {
    const next = documents.streams.streams.find((x) => x.code === stream.replaced_by);
    at(
      stream.declarable_until,
      `${p}/declarable_until`,
      next ? `${s.eventLast}${s.eventThen} ${textIn(next.name, lang).text}.` : `${s.eventLast}.`,
    );
  }
  stream.eco_organisms.forEach((eo, j) => {
    if (eo.approval === null) return;
    const e = `${p}/eco_organisms/${j}`;
    if (eo.approval_periods !== undefined) {
      // Each approval on its own line: a one-year approval and its renewal are two facts with two sources.
      eo.approval_periods.forEach((period, k) => {
        const a = `${e}/approval_periods/${k}`;
        events.push({
          date: period.from,
          html: `${h.date(`${a}/from`, period.from)}${colon} ${h.fact(`${e}/name`, eo.name)}, ${escapeHtml(k === 0 ? s.eventApproval : s.eventRenewal)} ${h.date(`${a}/to`, period.to)}`,
        });
      });
      return;
    }
    events.push({
      date: eo.approval.from,
      html: `${h.date(`${e}/approval/from`, eo.approval.from)}${colon} ${h.fact(`${e}/name`, eo.name)}, ${escapeHtml(s.eventApproval)} ${h.date(`${e}/approval/to`, eo.approval.to)}`,
    });
  });
  events.sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
  const lines = events.map((event) => event.html);
  const retired = new Map<number, string[]>();
  stream.retired_materials.forEach((old, j) => {
    const names = retired.get(old.retired_in_catalogue_version) ?? [];
    names.push(h.text(`${p}/retired_materials/${j}/name`, old.name));
    retired.set(old.retired_in_catalogue_version, names);
  });
  for (const [version, names] of retired) lines.push(`${escapeHtml(s.eventRetired(version))}${colon} ${h.list(names)}`);
  return lines;
}

export type Helpers = ReturnType<typeof helpers>;

/**
 * Small functions the templates call to show one fact with its mark. Each returns HTML with every
 * piece of text escaped (templates output them raw, with `<%~`). A fact shown otherwise than the
 * file writes it (a date in words, a price as money, a code as a word) carries the file's value in
 * `data-value`.
 */
function helpers(lang: Language, t: SiteText, law: ReferenceDocuments['law'], units: ReferenceDocuments['streams']['units']) {
  const word = (value: unknown): string => t.values[String(value)] ?? String(value);
  const mark = (pointer: string, value: unknown, shown: string, attrs = '', tag = 'span') => {
    const plain = (typeof value === 'string' || typeof value === 'number') && squash(String(value)) === squash(shown);
    const valueAttr = plain ? '' : ` data-value="${escapeHtml(JSON.stringify(value))}"`;
    return `<${tag}${attrs} data-fact="${escapeHtml(pointer)}"${valueAttr}>${escapeHtml(shown)}</${tag}>`;
  };
  const h = {
    /** A value as the file holds it (text, number); true/false as a word. */
    fact: (pointer: string, value: unknown) =>
      mark(pointer, value, typeof value === 'string' || typeof value === 'number' ? String(value) : word(value)),
    /** A value shown in words the page chooses (`null` as "unlimited", `true` as "API access included"). */
    shown: (pointer: string, value: unknown, words: string) => mark(pointer, value, words),
    /** A code of a closed list (status, role…) as a word of the page's language. */
    word: (pointer: string, value: string) => mark(pointer, value, word(value)),
    /** An ISO date as the page's language writes it: "28 février 2027", "28 February 2027". */
    date: (pointer: string, value: string) => mark(pointer, value, formatDate(lang, value), ` datetime="${escapeHtml(value)}"`, 'time'),
    /** A count: "10 000" (narrow no-break space), "10,000". */
    count: (pointer: string, value: number) => mark(pointer, value, formatNumber(lang, value)),
    /** A price `{amount, currency}`: "290,00 €", "€290.00". */
    money: (pointer: string, price: { amount: string; currency: string }) =>
      mark(`${pointer}/amount`, price.amount, formatMoney(lang, price.amount, price.currency)),
    /** The verification label of a fact. */
    badge: (pointer: string, value: string) => mark(pointer, value, word(value), ` class="badge badge-${escapeHtml(value)}"`),
    /** A link whose text is the address the file holds. */
    link: (pointer: string, url: string) => `<a href="${escapeHtml(url)}" data-fact="${escapeHtml(pointer)}">${escapeHtml(url)}</a>`,
    /** The words of a link to a legal text's address (`sourceLabel`): the law page's « official text » links. */
    sourceName: (url: string) => sourceLabel(url, law.law, lang),
    /** A link to a source, named by the legal text it is or by its site (and, in French, its page): `sourceLabel`. */
    source: (pointer: string, url: string, title = sourceLabel(url, law.law, lang)) =>
      mark(pointer, url, title, ` href="${escapeHtml(url)}"`, 'a'),
    /** A list of sources as titled links; two of one site are numbered ("citeo.com (2)"). */
    sources: (pointer: string, urls: readonly string[]) => {
      if (urls.length === 0) return '';
      const titles = urls.map((url) => sourceLabel(url, law.law, lang));
      const shown = titles.map((title, i) => {
        const same = titles.filter((other) => other === title).length;
        return same > 1 ? `${title} (${titles.slice(0, i + 1).filter((other) => other === title).length})` : title;
      });
      return `<ul class="sources">${urls.map((url, i) => `<li>${h.source(`${pointer}/${i}`, url, shown[i])}</li>`).join('')}</ul>`;
    },
    /**
     * A text for people ({fr, en}) in the page's language, else in the fallback the registry declares
     * for it, marked with that language (`lang="en"`): never one language passed for another.
     */
    text: (pointer: string, value: Partial<Record<Language, string>> | null | undefined) => {
      if (!value) return '';
      const shown = textIn(value, lang);
      return mark(`${pointer}/${shown.language}`, shown.text, shown.text, shown.language === lang ? '' : ` lang="${shown.language}"`);
    },
    /** A JSON pointer into a file: `streams.json#/streams/0`. */
    ptr: (file: string, ...path: (string | number)[]) => `${file}#${path.map((p) => `/${escapePointer(String(p))}`).join('')}`,
    /** The date a deadline falls on for the quantities of `year`: `day` past the month's end is its last day. */
    dueDate: (due: DueRule, year: number) => formatDate(lang, dueDate({ due }, { year })),
    /** A number written for people (not a year, an article or an id). */
    number: (value: number | string) => formatNumber(lang, value),
    /** How a unit code is written after a number, as the streams file says (`symbol`): "UVC", "kg". */
    unit: (code: string) => units.find((unit) => unit.code === code)?.symbol ?? unitSymbol(lang, code),
    /** A list: "a, b et c" / "a, b and c". */
    list: (items: readonly string[]) => formatList(lang, items),
  };
  return h;
}

function squash(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}
