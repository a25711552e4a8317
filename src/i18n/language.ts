import { LANGUAGE_REGISTRY, languageDefinition, perLanguage, type Language } from './languages.js';

export { LANGUAGES, type Language } from './languages.js';

/** French: the service's users are French producers; the dashboard defaults to it. */
export const DEFAULT_LANGUAGE: Language = 'fr';

/** The `Intl` locale of each language, from the registry (`en` is British English: day before month, `€290.00`). */
export const LOCALES: Record<Language, string> = perLanguage((language) => languageDefinition(language).locale);

export const isLanguage = (value: unknown): value is Language => LANGUAGE_REGISTRY.has(value);

/**
 * An address of the service that opens in `language` (`?lang=`, which the dashboard remembers): every
 * link in an e-mail is written so, for a reader whose browser may prefer another language.
 */
export function inLanguage(url: string, language: Language): string {
  const at = new URL(url);
  at.searchParams.set('lang', language);
  return at.toString();
}
