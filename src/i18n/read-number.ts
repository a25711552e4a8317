/**
 * Reading a number as a person writes it ("1 200,5", "1.200,5", "1,200.5") into exact decimal text
 * (`1200.5`), never a float; what cannot be read for sure is refused with a code and its parameters.
 * Around it, white space and a sign; a unit is `number_has_unit`, "1,2E+12" `number_scientific`.
 * Thousands: one kind of separator (space, U+00A0, U+202F, `.` or `,`), groups of three (else
 * `number_grouping`). A decimal `,` or `.` is read as the text says where it tells; "1.200" is left to
 * the context's evidence (`numberContext`), else `number_ambiguous`. The whole rule, with examples:
 * docs/api.md, "Numbers in files and forms". In a form of a language whose writing leaves no doubt
 * (`convention`: English), "20,000" is 20000 and "1.250" is 1.25 unless the text around it writes
 * decimals otherwise; French keeps the evidence rule.
 */

export type DecimalSeparator = ',' | '.';

/** What the text around a number tells about its decimal separator (see `numberContext`). */
export interface NumberContext {
  /** The decimal separator the surrounding text is shown to use. */
  decimal?: DecimalSeparator;
  /** The surrounding text writes every decimal number with exactly three places (with `decimal`). */
  threePlaces?: boolean;
  /** The surrounding text uses both `,` and `.` as decimal separators: nothing ambiguous can be read. */
  mixed?: boolean;
  /** The decimal separator of the reader's language when it is unambiguous there (English: `.`); used only without other evidence. */
  convention?: DecimalSeparator;
}

/** The decimal separator a form in `language` reads by convention (rule 5), if that language has one without doubt. */
export function numberConvention(language: string): DecimalSeparator | undefined {
  return language === 'en' ? '.' : undefined;
}

export type NumberProblemCode =
  'number_empty' | 'number_has_unit' | 'number_scientific' | 'number_grouping' | 'number_ambiguous' | 'number_invalid';

export interface NumberProblemParams {
  /** The text as written (trimmed; cut to 40 characters). */
  value: string;
  /** number_ambiguous: the separator in question. */
  separator?: DecimalSeparator;
  /** number_ambiguous: the value if the separator is a decimal separator (`1.2`). */
  asDecimal?: string;
  /** number_ambiguous: the value if it separates thousands (`1200`). */
  asThousands?: string;
  /** number_ambiguous: why the context could not decide. */
  reason?: 'unknown' | 'mixed' | 'other_places';
}

export type ReadNumber = { ok: true; value: string } | { ok: false; code: NumberProblemCode; params: NumberProblemParams };

const MAX_SHOWN = 40;
const SPACES = /[ \u00a0\u202f]/g;
const SCIENTIFIC = /^\d+(?:[.,]\d+)?[eE][-+]?\d+$/;
const LETTER_OR_SYMBOL = /[\p{L}\p{Sc}%‰°]/u;
const ALLOWED = /^[\d.,\u0020\u00a0\u202f]+$/;
const DIGITS = /^\d+$/;
const SIMPLE_DECIMAL = /^(\d+)([.,])(\d+)$/;

/** How a number is written, before any context: its digits, or why they cannot be read yet. */
type Shape =
  | { kind: 'number'; int: string; frac: string; decimal?: DecimalSeparator; thousands?: DecimalSeparator }
  | { kind: 'ambiguous'; int: string; frac: string; separator: DecimalSeparator }
  | { kind: 'problem'; code: Exclude<NumberProblemCode, 'number_ambiguous' | 'number_empty'> };

const other = (separator: DecimalSeparator): DecimalSeparator => (separator === ',' ? '.' : ',');
const grouped = (text: string, separator: string) => new RegExp(`^\\d{1,3}(?:\\${separator}\\d{3})+$`).test(text);
function count(text: string, character: string): number {
  let found = 0;
  for (let at = text.indexOf(character); at !== -1; at = text.indexOf(character, at + 1)) found++;
  return found;
}

/**
 * Where the one separator of a number written `digits,digits` or `digits.digits` is, when the text
 * says alone that it is the decimal one (not three digits after it, or a leading zero, or more than
 * three before it); -1 otherwise. No allocation: most weights of a file are written so.
 */
function plainDecimalAt(text: string): number {
  if (!SIMPLE_DECIMAL.test(text)) return -1;
  const at = text.indexOf(',') === -1 ? text.indexOf('.') : text.indexOf(',');
  return text.length - at - 1 !== 3 || text.charCodeAt(0) === 0x30 || at > 3 ? at : -1;
}

/** The shape of an unsigned, trimmed number text. */
function shapeOf(text: string): Shape {
  if (DIGITS.test(text)) return { kind: 'number', int: text, frac: '' };
  if (text === '') return { kind: 'problem', code: 'number_invalid' };
  // One separator between digits: read as the general case below reads it.
  const simple = SIMPLE_DECIMAL.exec(text);
  if (simple) {
    const [, int, separator, frac] = simple as unknown as [string, string, DecimalSeparator, string];
    if (frac.length !== 3 || int.startsWith('0') || int.length > 3) return { kind: 'number', int, frac, decimal: separator };
    return { kind: 'ambiguous', int, frac, separator };
  }
  if (SCIENTIFIC.test(text)) return { kind: 'problem', code: 'number_scientific' };
  if (!ALLOWED.test(text)) return { kind: 'problem', code: LETTER_OR_SYMBOL.test(text) ? 'number_has_unit' : 'number_invalid' };
  const spaced = text.replace(SPACES, ' ');
  const last = Math.max(spaced.lastIndexOf(','), spaced.lastIndexOf('.'));
  if (last === -1) {
    if (!/^\d+$/.test(spaced) && !grouped(spaced, ' ')) return { kind: 'problem', code: 'number_grouping' };
    return { kind: 'number', int: spaced.replace(/ /g, ''), frac: '' };
  }
  const separator = spaced[last] as DecimalSeparator;
  const commas = count(spaced, ',');
  const points = count(spaced, '.');
  if (commas > 0 && points > 0) {
    // Both: the last is the decimal separator, once; the other separates the thousands before it.
    const int = spaced.slice(0, last);
    const frac = spaced.slice(last + 1);
    if (!grouped(int, other(separator))) return { kind: 'problem', code: 'number_grouping' };
    if (!/^\d+$/.test(frac)) return { kind: 'problem', code: frac.includes(' ') ? 'number_grouping' : 'number_invalid' };
    return { kind: 'number', int: int.replaceAll(other(separator), ''), frac, decimal: separator, thousands: other(separator) };
  }
  if (count(spaced, separator) > 1) {
    // The same one twice: thousands.
    if (!grouped(spaced, separator)) return { kind: 'problem', code: 'number_grouping' };
    return { kind: 'number', int: spaced.replaceAll(separator, ''), frac: '', thousands: separator };
  }
  const int = spaced.slice(0, last);
  const frac = spaced.slice(last + 1);
  if (!/^\d+$/.test(frac)) return { kind: 'problem', code: frac.includes(' ') ? 'number_grouping' : 'number_invalid' };
  if (int.includes(' ')) {
    // Space-separated thousands, then the decimal separator.
    if (!grouped(int, ' ')) return { kind: 'problem', code: 'number_grouping' };
    return { kind: 'number', int: int.replace(/ /g, ''), frac, decimal: separator };
  }
  if (frac.length !== 3 || int === '' || int.startsWith('0') || int.length > 3) return { kind: 'number', int, frac, decimal: separator };
  return { kind: 'ambiguous', int, frac, separator };
}

/** Canonical decimal text: no leading zeros but one, the fraction as written, no sign on zero. */
function decimalText(negative: boolean, int: string, frac: string): string {
  const whole = int.replace(/^0+(?=\d)/, '') || '0';
  const zero = /^0*$/.test(whole + frac);
  return `${negative && !zero ? '-' : ''}${whole}${frac ? `.${frac}` : ''}`;
}

/** Reads one number (see the rule above). `context`: what the surrounding text tells, from `numberContext`. */
export function readNumber(text: string, context: NumberContext = {}): ReadNumber {
  // Most cells: plain digits, or digits with a decimal separator.
  if (DIGITS.test(text)) return { ok: true, value: text.length > 1 && text.startsWith('0') ? decimalText(false, text, '') : text };
  const at = plainDecimalAt(text);
  if (at !== -1)
    return {
      ok: true,
      value: text.startsWith('0')
        ? decimalText(false, text.slice(0, at), text.slice(at + 1))
        : text[at] === '.'
          ? text
          : `${text.slice(0, at)}.${text.slice(at + 1)}`,
    };
  const trimmed = text.trim();
  const value = trimmed.length > MAX_SHOWN ? `${trimmed.slice(0, MAX_SHOWN - 1)}…` : trimmed;
  if (trimmed === '') return { ok: false, code: 'number_empty', params: { value } };
  const sign = trimmed[0] === '-' || trimmed[0] === '+' || trimmed[0] === '\u2212' ? trimmed[0] : undefined;
  const negative = sign === '-' || sign === '\u2212';
  const shape = shapeOf(sign ? trimmed.slice(1) : trimmed);
  switch (shape.kind) {
    case 'problem':
      return { ok: false, code: shape.code, params: { value } };
    case 'number':
      return { ok: true, value: decimalText(negative, shape.int, shape.frac) };
    case 'ambiguous': {
      const { int, frac, separator } = shape;
      // The language's convention, unless the text around it writes decimals otherwise (rule 5).
      if (!context.mixed && context.convention !== undefined && (context.decimal ?? context.convention) === context.convention) {
        return context.convention === separator
          ? { ok: true, value: decimalText(negative, int, frac) }
          : { ok: true, value: decimalText(negative, int + frac, '') };
      }
      if (!context.mixed && context.decimal === other(separator)) return { ok: true, value: decimalText(negative, int + frac, '') };
      if (!context.mixed && context.decimal === separator && context.threePlaces)
        return { ok: true, value: decimalText(negative, int, frac) };
      const reason = context.mixed ? 'mixed' : context.decimal === separator ? 'other_places' : 'unknown';
      return {
        ok: false,
        code: 'number_ambiguous',
        params: {
          value,
          separator,
          asDecimal: decimalText(negative, int, frac.replace(/0+$/, '')),
          asThousands: decimalText(negative, int + frac, ''),
          reason,
        },
      };
    }
  }
}

/**
 * The evidence a set of numbers (a file's quantity cells, a form's quantity fields) gives about
 * their decimal separator: the separator the unambiguous ones use for decimals (or imply, by
 * separating thousands with the other), whether every one of those has three decimal places,
 * and whether they contradict each other. Cells that are not numbers tell nothing.
 */
export function numberContext(texts: Iterable<string>): NumberContext {
  const decimals = new Set<DecimalSeparator>();
  let decimalCells = 0;
  let threePlaceCells = 0;
  for (const text of texts) {
    // Plain digits (most cells) tell nothing; a plain decimal, its separator.
    if (DIGITS.test(text)) continue;
    const at = plainDecimalAt(text);
    if (at !== -1) {
      decimals.add(text[at] as DecimalSeparator);
      decimalCells++;
      if (text.length - at - 1 === 3) threePlaceCells++;
      continue;
    }
    const shape = shapeOf(text.trim().replace(/^[-+\u2212]/, ''));
    if (shape.kind !== 'number') continue;
    if (shape.decimal) {
      decimals.add(shape.decimal);
      decimalCells++;
      if (shape.frac.length === 3) threePlaceCells++;
    } else if (shape.thousands) {
      decimals.add(other(shape.thousands));
    }
  }
  if (decimals.size > 1) return { mixed: true };
  const [decimal] = decimals;
  if (!decimal) return {};
  return { decimal, threePlaces: decimalCells > 0 && threePlaceCells === decimalCells };
}
