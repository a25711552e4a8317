/**
 * The languages the service speaks, one entry each: the data of the language registry
 * (src/i18n/languages.ts), which every language list, type, validator, template, CSV writer and DTO
 * enum reads. A third language is one entry here and its catalogues in messages/ (the compiler then
 * asks for them, in messages/index.ts); nothing else names a language.
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
