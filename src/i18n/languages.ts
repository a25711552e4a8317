/**
 * The language registry: the entries of language-definitions.ts, checked, and what the code asks of
 * them (the codes, the `Language` type, a path's language, a reference text with its fallback).
 */
import { LANGUAGE_DEFINITIONS, type LanguageDefinition } from './language-definitions.js';

export { LANGUAGE_DEFINITIONS, type LanguageDefinition, type Typography } from './language-definitions.js';

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

/** The languages every reference text is written in: those without a fallback. */
export type RequiredLanguage = Extract<(typeof LANGUAGE_DEFINITIONS)[number], { fallback: null }>['code'];

/** A text for people as the reference data writes it: every required language, others where written. */
export type Localized<T = string> = Record<RequiredLanguage, T> & Partial<Record<Language, T>>;

/**
 * A reference text in `language`, else in the language it declares as its fallback: the text and the
 * language it is in, so that a page says so (`lang="en"`) rather than passing one language for another.
 */
export function textIn<T = string>(
  value: Readonly<Partial<Record<Language, T>>>,
  language: string,
  registry: LanguageRegistry = LANGUAGE_REGISTRY,
): { text: T; language: string } {
  const texts = value as Readonly<Record<string, T | undefined>>;
  const own = texts[language];
  if (own !== undefined) return { text: own, language };
  const fallback = registry.get(language).fallback;
  const other = fallback === null ? undefined : texts[fallback];
  if (fallback === null || other === undefined) throw new Error(`A reference text has no ${language} text and no fallback`);
  return { text: other, language: fallback };
}

/**
 * The JSON Schema (OpenAPI 3.0 subset) of a text for people: every language of the registry, the
 * ones without a fallback required. Reference-data schemas write `{fr, en}` blocks; the loader
 * completes each from this, so a language added to the registry is accepted everywhere at once.
 */
export function localizedTextSchema(description: string, registry: LanguageRegistry = LANGUAGE_REGISTRY, minLength = 1) {
  return {
    type: 'object' as const,
    description,
    additionalProperties: false as const,
    required: [...registry.required],
    properties: Object.fromEntries(
      registry.definitions.map((d) => [d.code, { type: 'string' as const, minLength, description: `${d.englishName}.` }]),
    ),
  };
}
