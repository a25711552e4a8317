/**
 * Numbers, amounts, quantities, dates and lists as a person reads them in their language, from `Intl`
 * only: French "1 200,5" (narrow no-break space), "290,00 €", "28 février 2027"; English "1,200.5",
 * "€290.00", "28 February 2027". For the site, the dashboard, the e-mails and the CSV writers; what is
 * stored never depends on a language. Not for identifiers: years, periods, receipts, IDUs and article
 * numbers are written as they are (`String(2027)`, never `formatNumber(2027)`).
 */
import { LOCALES, type Language } from './language.js';
import { UNIT_WRITINGS } from './units.js';

/** The decimal text a quantity is stored as: `-?digits(.digits)?`, any length, never a float. */
const DECIMAL_TEXT = /^-?\d+(?:\.\d+)?$/;

/** The zone every date and time of the service is told in. */
export const TIME_ZONE = 'Europe/Paris';

const numberFormats = new Map<string, Intl.NumberFormat>();
const dateFormats = new Map<string, Intl.DateTimeFormat>();

function numberFormat(language: Language, options: Intl.NumberFormatOptions): Intl.NumberFormat {
  const key = `${language}${JSON.stringify(options)}`;
  let format = numberFormats.get(key);
  if (!format) numberFormats.set(key, (format = new Intl.NumberFormat(LOCALES[language], options)));
  return format;
}
/** The formats of options made once, found by identity without making a key: a page formats thousands of figures. */
const constantFormats = new WeakMap<Intl.NumberFormatOptions, Partial<Record<Language, Intl.NumberFormat>>>();
function constantFormat(language: Language, options: Intl.NumberFormatOptions): Intl.NumberFormat {
  let formats = constantFormats.get(options);
  if (!formats) constantFormats.set(options, (formats = {}));
  return (formats[language] ??= numberFormat(language, options));
}

function dateFormat(language: Language, options: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  const key = `${language}${JSON.stringify(options)}`;
  let format = dateFormats.get(key);
  if (!format) dateFormats.set(key, (format = new Intl.DateTimeFormat(LOCALES[language], options)));
  return format;
}

/** A number or exact decimal text, checked: `Intl` would read other text as NaN without a word. */
function numeric(value: number | string): number | Intl.StringNumericLiteral {
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new RangeError(`not a finite number: ${value}`);
    return value;
  }
  if (!DECIMAL_TEXT.test(value)) throw new TypeError(`not a decimal text: ${JSON.stringify(value)}`);
  return value as Intl.StringNumericLiteral;
}

export interface NumberOptions {
  /** Exactly this many decimals (rounded half-expand). Default: every decimal of the value, none added. */
  decimals?: number;
}

const digits = (options: NumberOptions): Intl.NumberFormatOptions =>
  options.decimals === undefined
    ? { maximumFractionDigits: 100 }
    : { minimumFractionDigits: options.decimals, maximumFractionDigits: options.decimals };

/**
 * A quantity or count: `formatNumber('fr', '1200.5')` → "1 200,5" (U+202F), `'en'` → "1,200.5".
 * A decimal text is formatted exactly, however many digits it has (a stored quantity never goes
 * through a float); trailing zeros of its decimals are not shown.
 */
export function formatNumber(language: Language, value: number | string, options: NumberOptions = {}): string {
  if (options.decimals === undefined) {
    // A whole number (a count) is written as its digits are.
    const text = typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 && !Object.is(value, -0) ? String(value) : value;
    const plain = typeof text === 'string' ? PLAIN_DECIMAL.exec(text) : null;
    const marks = plain ? separators(language) : undefined;
    // A decimal text without sign, leading or trailing zeros: its digits grouped by three, as Intl writes them (checked once per language).
    if (plain && marks) {
      const int = plain[1]!.replace(/\B(?=(\d{3})+$)/g, marks.group);
      return plain[2] === undefined ? int : `${int}${marks.decimal}${plain[2]}`;
    }
    return constantFormat(language, EVERY_DECIMAL).format(numeric(value));
  }
  return numberFormat(language, digits(options)).format(numeric(value));
}
const PLAIN_DECIMAL = /^(0|[1-9]\d{0,14})(?:\.(\d*[1-9]))?$/;
/** The separators `Intl` writes in `language`, when it writes digits grouped by three and nothing else (else undefined). */
function separators(language: Language): { decimal: string; group: string } | undefined {
  if (!separatorsOf.has(language)) {
    const format = constantFormat(language, EVERY_DECIMAL);
    const parts = format.formatToParts(1234.5);
    const decimal = parts.find((part) => part.type === 'decimal')?.value;
    const group = parts.find((part) => part.type === 'group')?.value;
    const samples: [string, string][] = [
      ['987.0654', `987${decimal}0654`],
      ['1234.5', `1${group}234${decimal}5`],
      ['123456789012345', `123${group}456${group}789${group}012${group}345`],
    ];
    const same =
      decimal !== undefined &&
      group !== undefined &&
      samples.every(([text, written]) => format.format(text as Intl.StringNumericLiteral) === written);
    separatorsOf.set(language, same ? { decimal, group } : undefined);
  }
  return separatorsOf.get(language);
}
const separatorsOf = new Map<Language, { decimal: string; group: string } | undefined>();
const EVERY_DECIMAL = digits({});
const unitOptions = new Map<string, Intl.NumberFormatOptions>();

/** An amount of money: "290,00 €" (U+00A0 before €), "€290.00"; always two decimals. */
export function formatMoney(language: Language, amount: number | string, currency = 'EUR'): string {
  return numberFormat(language, { style: 'currency', currency }).format(numeric(amount));
}

/** A ratio as a percentage: `0.125` → "12,5 %" (U+00A0 before %, as ICU writes it), "12.5%"; at most `decimals` decimals. */
export function formatPercent(language: Language, ratio: number, decimals = 1): string {
  return numberFormat(language, { style: 'percent', maximumFractionDigits: decimals }).format(numeric(ratio));
}

/**
 * The symbol of a unit code ("UVC", "kg"), as the streams data writes it (`symbol`; units.ts): `uvc`
 * (unité de vente consommateur) is "UVC" in every language, English pages explaining it once as
 * "consumer sales units (UVC)"; an unknown code is written as it is.
 */
export function unitSymbol(_language: Language, unit: string): string {
  return UNIT_WRITINGS.get(unit)?.symbol ?? unit;
}

/**
 * A quantity with its unit: "1 200,5 kg" (a unit with an `intl_unit` through `Intl`'s unit style:
 * U+202F before kg in French), "4 800 UVC" / "4,800 UVC" (a no-break space U+00A0 before any other unit).
 */
export function formatQuantity(language: Language, value: number | string, unit: string): string {
  const intlUnit = UNIT_WRITINGS.get(unit)?.intlUnit;
  if (intlUnit) {
    let options = unitOptions.get(intlUnit);
    if (!options) unitOptions.set(intlUnit, (options = { ...EVERY_DECIMAL, style: 'unit', unit: intlUnit }));
    return constantFormat(language, options).format(numeric(value));
  }
  return `${formatNumber(language, value)}\u00a0${unitSymbol(language, unit)}`;
}

/**
 * `2027-02-28` → "28 février 2027", "28 February 2027"; French writes the first of the month "1er".
 * An instant is told by its date in Paris; a calendar date (`YYYY-MM-DD`) reads as midnight UTC,
 * which is the same day in Paris (UTC+1 or UTC+2).
 */
export function formatDate(language: Language, date: string | Date): string {
  return firstOfMonth(
    language,
    dateFormat(language, { day: 'numeric', month: 'long', year: 'numeric', timeZone: TIME_ZONE }).formatToParts(instant(date)),
  );
}

/** The zone of every time the service tells, named as a person says it. */
const ZONE_NAME: Record<Language, string> = { fr: 'heure de Paris', en: 'Paris time' };

/**
 * An instant in Paris time, the zone named plainly: "28 janvier 2027 à 11:05, heure de Paris",
 * "28 July 2027 at 12:05, Paris time" (not ICU's "UTC+1" or "CET").
 */
export function formatDateTime(language: Language, at: string | Date): string {
  const parts = dateFormat(language, {
    day: 'numeric',
    month: 'long',
    year: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    timeZone: TIME_ZONE,
  }).formatToParts(instant(at));
  return `${firstOfMonth(language, parts)}, ${ZONE_NAME[language]}`;
}

function instant(value: string | Date): Date {
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) throw new RangeError(`not a date: ${String(value)}`);
  return date;
}

/** "1 mars" → "1er mars": the French way of writing the first day of a month. */
function firstOfMonth(language: Language, parts: Intl.DateTimeFormatPart[]): string {
  return parts.map((part) => (language === 'fr' && part.type === 'day' && part.value === '1' ? '1er' : part.value)).join('');
}

/** Made once per language and type, as the number and date formats (building one costs more than using it: it showed in a profile of the dashboard's overview), and the country names below. */
const listFormats = new Map<string, Intl.ListFormat>();
const pluralRules = new Map<Language, Intl.PluralRules>();

/** "kg, UVC et t" / "kg, UVC and t"; `or`: "kg ou UVC" / "kg or UVC". */
export function formatList(language: Language, items: readonly string[], type: 'and' | 'or' = 'and'): string {
  const key = `${language} ${type}`;
  let format = listFormats.get(key);
  if (!format)
    listFormats.set(key, (format = new Intl.ListFormat(LOCALES[language], { type: type === 'and' ? 'conjunction' : 'disjunction' })));
  return format.format(items);
}

const regionNames = new Map<Language, Intl.DisplayNames>();
/** The names read so far, per language: two-letter codes only, so at most 676 a language (`of` costs microseconds a call). */
const countryNames = new Map<string, string>();

/** A country's name from its ISO 3166 code ("DE": "Allemagne" / "Germany"); a code `Intl` cannot read, as it is. */
export function formatCountry(language: Language, code: string): string {
  const upper = code.toUpperCase();
  const key = `${language}${upper}`;
  const known = countryNames.get(key);
  if (known !== undefined) return known;
  let names = regionNames.get(language);
  if (!names) regionNames.set(language, (names = new Intl.DisplayNames(LOCALES[language], { type: 'region', fallback: 'code' })));
  let name: string;
  try {
    name = names.of(upper) ?? code;
  } catch {
    return code;
  }
  if (/^[A-Z]{2}$/.test(upper)) countryNames.set(key, name);
  return name;
}

/** The forms of a word by count: French `one` covers 0 and 1 (and `many` a round million, "1 million de"). */
export interface PluralForms {
  one: string;
  other: string;
  many?: string;
}

/** The form of a word for a count, by the language's plural rules (`Intl.PluralRules`). */
export function plural(language: Language, count: number, forms: PluralForms): string {
  let rules = pluralRules.get(language);
  if (!rules) pluralRules.set(language, (rules = new Intl.PluralRules(LOCALES[language])));
  const category = rules.select(count);
  return category === 'one' ? forms.one : category === 'many' ? (forms.many ?? forms.other) : forms.other;
}

/**
 * A stored decimal text as a CSV cell of a dialect: the decimal separator changed, nothing else
 * (no thousands separator, no rounding), so that the file reads back as the same number.
 */
export function csvDecimal(value: string, decimalSeparator: ',' | '.'): string {
  numeric(value);
  return decimalSeparator === ',' ? value.replace('.', ',') : value;
}
