/**
 * The languages the service speaks to people in, and the locale each one formats with.
 * A third language is one more code here and one more file in messages/.
 */
export const LANGUAGES = ['fr', 'en'] as const;
export type Language = (typeof LANGUAGES)[number];

/** French: the service's users are French producers; the dashboard defaults to it. */
export const DEFAULT_LANGUAGE: Language = 'fr';

/** The `Intl` locale of each language (`en` is British English: day before month, `€290.00`). */
export const LOCALES: Record<Language, string> = { fr: 'fr-FR', en: 'en-GB' };

export const isLanguage = (value: unknown): value is Language => (LANGUAGES as readonly unknown[]).includes(value);

/**
 * An address of the service that opens in `language` (`?lang=`, which the dashboard remembers): every
 * link in an e-mail is written so, for a reader whose browser may prefer another language.
 */
export function inLanguage(url: string, language: Language): string {
  const at = new URL(url);
  at.searchParams.set('lang', language);
  return at.toString();
}
