/**
 * The languages the service speaks, one entry each: every language list, type, validator, template,
 * CSV writer and DTO enum reads this registry. A third language is one entry here and its catalogues
 * in messages/ (the compiler then asks for them); nothing else names a language.
 */

/** How a language sets its punctuation (the catalogues and the reference texts carry their own spaces). */
export type Typography = 'french' | 'plain';

export interface LanguageDefinition {
  /** The code used in paths, `?lang=`, the database and the API (a BCP 47 primary subtag). */
  readonly code: string;
  /** The `Intl` locale it formats with (BCP 47). */
  readonly locale: string;
  /** The site's path prefix: `''` for the language at `/`, else `/<code>`. */
  readonly sitePrefix: string;
  /** Its name in itself, for a language switch: « Français », "English". */
  readonly ownName: string;
  /** Its name in English, for messages to developers and build logs. */
  readonly englishName: string;
  /** How its CSV files are written: cell separator and decimal mark; headers come from its catalogue. */
  readonly csv: { readonly delimiter: ',' | ';'; readonly decimal: '.' | ',' };
  /** How reference texts and catalogues in this language are checked. */
  readonly typography: Typography;
  /**
   * The language a reference text missing in this one is shown in, said so on the page (`lang`): null
   * for a language every reference text must have.
   */
  readonly fallback: string | null;
}

/** The languages, in the order the site lists them (the first is the site's `x-default`, at `/`). */
export const LANGUAGE_DEFINITIONS = [
  {
    code: 'en',
    locale: 'en-GB',
    sitePrefix: '',
    ownName: 'English',
    englishName: 'English',
    csv: { delimiter: ',', decimal: '.' },
    typography: 'plain',
    fallback: null,
  },
  {
    code: 'fr',
    locale: 'fr-FR',
    sitePrefix: '/fr',
    ownName: 'Français',
    englishName: 'French',
    csv: { delimiter: ';', decimal: ',' },
    typography: 'french',
    fallback: null,
  },
] as const satisfies readonly LanguageDefinition[];

export type Language = (typeof LANGUAGE_DEFINITIONS)[number]['code'];

/** A set of languages and what the code asks of it; `LANGUAGE_REGISTRY` is the service's, tests build others. */
export interface LanguageRegistry {
  readonly definitions: readonly LanguageDefinition[];
  readonly codes: readonly string[];
  /** The languages every reference text is written in (no fallback). */
  readonly required: readonly string[];
  get(code: string): LanguageDefinition;
  has(code: unknown): boolean;
  /** The language of a site path, by its prefix (`/fr/pricing` → `fr`; the unprefixed one elsewhere). */
  languageOfPath(path: string): string;
}

export function defineLanguages(definitions: readonly LanguageDefinition[]): LanguageRegistry {
  const byCode = new Map(definitions.map((definition) => [definition.code, definition]));
  const problems: string[] = [];
  if (byCode.size !== definitions.length) problems.push('a language code is listed twice');
  if (definitions.filter((d) => d.sitePrefix === '').length !== 1) problems.push('exactly one language is served at the site root');
  for (const d of definitions) {
    if (!/^[a-z]{2,3}$/.test(d.code)) problems.push(`${d.code}: a code is a BCP 47 primary language subtag`);
    if (d.sitePrefix !== '' && d.sitePrefix !== `/${d.code}`) problems.push(`${d.code}: its site prefix is /${d.code}`);
    if (d.fallback !== null && byCode.get(d.fallback)?.fallback !== null)
      problems.push(`${d.code}: falls back to ${d.fallback}, which must be a language every reference text has`);
    if (d.csv.delimiter === d.csv.decimal) problems.push(`${d.code}: its CSV separator is its decimal mark`);
  }
  if (problems.length > 0) throw new Error(`Invalid language registry: ${problems.join('; ')}`);
  const root = definitions.find((d) => d.sitePrefix === '')!;
  return {
    definitions,
    codes: definitions.map((d) => d.code),
    required: definitions.filter((d) => d.fallback === null).map((d) => d.code),
    get(code) {
      const found = byCode.get(code);
      if (!found) throw new Error(`Unknown language ${code}`);
      return found;
    },
    has: (code) => typeof code === 'string' && byCode.has(code),
    languageOfPath(path) {
      const prefixed = definitions.find((d) => d.sitePrefix !== '' && (path === d.sitePrefix || path.startsWith(`${d.sitePrefix}/`)));
      return (prefixed ?? root).code;
    },
  };
}

export const LANGUAGE_REGISTRY: LanguageRegistry = defineLanguages(LANGUAGE_DEFINITIONS);

/** Every language code, in the registry's order: for `@IsIn`, `@ApiProperty({ enum })` and JSON Schemas. */
export const LANGUAGES = LANGUAGE_DEFINITIONS.map((d) => d.code) as readonly Language[];

/** The definition of one of the service's languages. */
export const languageDefinition = (language: Language): LanguageDefinition => LANGUAGE_REGISTRY.get(language);

/** A record of one value per language, built from the registry (never a hand-written `{ fr, en }`). */
export function perLanguage<T>(value: (language: Language) => T): Record<Language, T> {
  return Object.fromEntries(LANGUAGES.map((language) => [language, value(language)])) as Record<Language, T>;
}
