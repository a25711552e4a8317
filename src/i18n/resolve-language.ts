/**
 * Which language to answer a person in, from what the request tells (pure). The first that names a
 * language of the service wins: 1. the path (`/fr/…`, `/en/…`: a shared link opens as it was seen);
 * 2. the person's choice with the language switch (a cookie); 3. once signed in, the account's
 * language; 4. `Accept-Language` by q-value (`*` accepts the default); 5. a browser naming only
 * languages the service does not speak gets English; no preference at all, French.
 */
import { DEFAULT_LANGUAGE, isLanguage, LANGUAGES, type Language } from './language.js';

/** The cookie that remembers the person's choice (value `fr` or `en`). */
export const LANGUAGE_COOKIE = 'lang';

export interface LanguageHints {
  /** The request path, e.g. `/fr/dashboard/declarations` (query string allowed). */
  path?: string;
  /** The remembered choice: the value of the LANGUAGE_COOKIE cookie. */
  remembered?: string;
  /** The language of the signed-in person's account, if signed in. */
  account?: Language;
  /** The `Accept-Language` header. */
  acceptLanguage?: string;
}

/** The language for a browser whose preferences name none of the service's. */
export const FOREIGN_FALLBACK: Language = 'en';

export interface ResolvedLanguage {
  language: Language;
  /** What decided it (a page may offer to switch only when the browser or the default did). */
  from: 'path' | 'remembered' | 'account' | 'browser' | 'foreign' | 'default';
}

export function resolveLanguage(hints: LanguageHints, fallback: Language = DEFAULT_LANGUAGE): ResolvedLanguage {
  const fromPath = hints.path === undefined ? undefined : languageOfPath(hints.path);
  if (fromPath) return { language: fromPath, from: 'path' };
  const remembered = hints.remembered?.trim().toLowerCase();
  if (isLanguage(remembered)) return { language: remembered, from: 'remembered' };
  if (hints.account !== undefined) return { language: hints.account, from: 'account' };
  const browser = hints.acceptLanguage === undefined ? undefined : preferredLanguage(hints.acceptLanguage, fallback);
  if (browser) return { language: browser, from: 'browser' };
  // A browser that says what it reads, none of it ours: English rather than the default.
  if (hints.acceptLanguage !== undefined && parseAcceptLanguage(hints.acceptLanguage).some((range) => range.q > 0))
    return { language: FOREIGN_FALLBACK, from: 'foreign' };
  return { language: fallback, from: 'default' };
}

/** `/fr`, `/fr/`, `/fr/dashboard?x=1` → `fr`; `/`, `/france`, `/dashboard/fr` → undefined. */
export function languageOfPath(path: string): Language | undefined {
  const prefix = /^\/([a-z]{2})(?=$|[/?#])/.exec(path)?.[1];
  return isLanguage(prefix) ? prefix : undefined;
}

/** One entry of an `Accept-Language` header: its primary language subtag (lower case, or `*`) and weight. */
export interface LanguageRange {
  primary: string;
  q: number;
}

/** Entries read past this many are ignored (a header is a handful of entries; a hostile one is not). */
const MAX_RANGES = 32;
const RANGE = /^([a-z]{1,8}|\*)(?:-[a-z0-9]{1,8})*$/i;
const WEIGHT = /^q=(0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/i;

/**
 * The ranges of an `Accept-Language` header (RFC 9110 §12.5.4), highest weight first (equal
 * weights keep their order). Malformed entries are skipped; `fr-CH` counts as `fr`.
 */
export function parseAcceptLanguage(header: string): LanguageRange[] {
  const ranges: LanguageRange[] = [];
  for (const entry of header.split(',').slice(0, MAX_RANGES)) {
    const [tag = '', ...parameters] = entry.split(';').map((part) => part.trim());
    const range = RANGE.exec(tag);
    if (!range) continue;
    let q = 1;
    if (parameters.length > 0) {
      const weight = WEIGHT.exec(parameters[0]!.replace(/\s+/g, ''));
      if (!weight || parameters.length > 1) continue;
      q = Number(weight[1]);
    }
    ranges.push({ primary: range[1]!.toLowerCase(), q });
  }
  return ranges.sort((a, b) => b.q - a.q);
}

/**
 * The service's language the browser prefers, or undefined when it names none it accepts.
 * `*` stands for any language: it gives `fallback` (unless the header refuses it with q=0).
 */
export function preferredLanguage(header: string, fallback: Language = DEFAULT_LANGUAGE): Language | undefined {
  const ranges = parseAcceptLanguage(header);
  const refused = new Set(ranges.filter((range) => range.q === 0).map((range) => range.primary));
  for (const { primary, q } of ranges) {
    if (q === 0) break;
    if (isLanguage(primary) && !refused.has(primary)) return primary;
    if (primary === '*') return refused.has(fallback) ? LANGUAGES.find((language) => !refused.has(language)) : fallback;
  }
  return undefined;
}
