import { textIn, type Language, type Localized } from '../i18n/languages.js';

/**
 * The words of a source link, shared by the site (which prints them) and the build (which refuses
 * a link whose words name an article its address does not lead to).
 */

/** Hosts whose pages are the legal texts themselves (the official journals and their public copies). */
const OFFICIAL_HOSTS = ['legifrance.gouv.fr', 'eur-lex.europa.eu', 'aida.ineris.fr'];

/** A law entry as far as its link is concerned. */
interface LinkedText {
  url: string;
  title: Localized;
}

/**
 * The words of a link to `url`: the title of the legal text it is (an official address that a law
 * entry gives as its `url`; among several entries sharing it, the one whose title names no article,
 * e.g. the whole Code rather than one of its articles), else the site and the page ("citeo.com ·
 * faq mon adhesion"), so a reader sees where it leads without reading an address.
 */
export function sourceLabel(url: string, law: readonly LinkedText[], lang: Language): string {
  return titleOf(url, law, lang) ?? pageWords(url, lang);
}

/** The title of the legal text a link is, as `sourceLabel` chooses it; undefined when the link is named by its site and page. */
export function titleOf(url: string, law: readonly LinkedText[], lang: Language): string | undefined {
  const host = hostOf(url);
  if (host === null || !OFFICIAL_HOSTS.some((official) => host === official || host.endsWith(`.${official}`))) return undefined;
  const entries = law.filter((entry) => entry.url === url);
  const title = (entries.find((e) => articlesNamed(textIn(e.title, lang).text).length === 0) ?? entries.at(-1))?.title;
  return title && textIn(title, lang).text;
}

/** The articles a link's title names that its address does not lead to (none for a link named by its site and page). */
export function misnamedArticles(url: string, law: readonly LinkedText[], lang: Language): string[] {
  const title = titleOf(url, law, lang);
  return title === undefined ? [] : articlesNamed(title).filter((article) => !leadsToArticle(url, article));
}

/**
 * The articles a label names: « article L541-9-5 », « art. R543-43 », « art. 45 », « article 44 ».
 * Numbers as written, without the dot of « L. 541-9-5 ».
 */
export function articlesNamed(label: string): string[] {
  const found: string[] = [];
  for (const match of label.matchAll(/\b(?:articles?|art\.)\s*((?:[LRDA]\.?\s?)?\d+(?:-\d+)*)/giu)) {
    found.push(match[1]!.replace(/[.\s]/g, '').toUpperCase());
  }
  return found;
}

/**
 * Whether `url` leads to the article `article` (as `articlesNamed` writes it). A heuristic: an
 * article-level address of the official journals (Légifrance's LEGIARTI… or JORFARTI… ids) is taken
 * to be right, since the address alone does not say which article it is; any other address must
 * carry the article's number (« l541-9-5 », « art_45 », « article=45 »). A link to a whole code, a
 * section or a web page about something else does not.
 */
export function leadsToArticle(url: string, article: string): boolean {
  if (/(LEGIARTI|JORFARTI)\d{6,}/.test(url)) return true;
  const address = safeDecode(url).toLowerCase().replace(/\./g, '');
  const number = article.toLowerCase();
  const escaped = number.replace(/[-]/g, '\\-');
  if (/^[a-z]/.test(number)) return new RegExp(`(^|[^a-z0-9])${escaped}($|[^0-9-])`).test(address);
  return new RegExp(`(^|[^a-z0-9])art(icle)?[_=/-]?${escaped}($|[^0-9])`).test(address);
}

/**
 * The site and the page of an address. Pages in another language than French name the site only: the
 * pages' addresses are mostly French words, which such a reader should not have to read as a title.
 */
function pageWords(url: string, lang: Language): string {
  try {
    const parsed = new URL(url);
    const host = parsed.hostname.replace(/^www\./, '');
    if (lang !== 'fr') return host;
    const segments = parsed.pathname.split('/').filter((s) => s !== '');
    const last = segments.at(-1);
    const page =
      last === undefined
        ? ''
        : safeDecode(last)
            .replace(/\.(php\d?|html?|aspx?)$/, '')
            .replace(/[-_+]+/g, ' ')
            .trim();
    const words = page.length > 70 ? `${page.slice(0, 69).replace(/\s+\S*$/, '')}…` : page;
    return words === '' || /^\d+$/.test(words) || /^[A-Z0-9]{12,}$/.test(words) ? host : `${host} · ${words}`;
  } catch {
    return url;
  }
}

function hostOf(url: string): string | null {
  try {
    return new URL(url).hostname.replace(/^www\./, '');
  } catch {
    return null;
  }
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
