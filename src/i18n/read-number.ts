/**
 * Reading a number as a person writes it, in a form field or a spreadsheet cell: "1 200,5",
 * "1200.5", "1.200,5", "1,200.5", "4 800". The result is the exact decimal text (`1200.5`), never
 * a float; what cannot be read for sure is refused with a code and the parameters a message needs
 * to say why and what to write.
 *
 * The rule
 * 1. Around the number: white space is ignored; a sign `-` (or the minus sign U+2212) or `+` may
 *    come first. Nothing else is taken: a unit or symbol ("12 kg", "290 €") is `number_has_unit`,
 *    a spreadsheet's scientific notation ("1,2E+12", written when a column is too narrow, and
 *    rounded) is `number_scientific`, anything else `number_invalid`.
 * 2. Thousands may be separated by a space, a no-break space U+00A0 or a narrow no-break space
 *    U+202F, by `.` or by `,`: groups of exactly three digits after a first group of one to three.
 *    A number uses one thousands separator; a group of another length is `number_grouping`.
 * 3. The decimal separator is `,` or `.`, once, with digits after it ("5." is refused; ",5" is 0.5).
 *    Where the text itself tells, it is read as it says:
 *    - both `.` and `,`: the last one is the decimal separator ("1.200,5", "1,200.5");
 *    - the same one twice or more: thousands ("1.200.000");
 *    - one of them once after space-separated thousands: decimal ("1 200,5", "1 200.500");
 *    - once, with other than three digits after it, or after 0 or more than three digits: decimal
 *      ("1,5", "12.25", "0,500", "1200.500").
 * 4. What is left is ambiguous: one to three digits (not starting with 0), the separator once,
 *    three digits: "1.200" is 1200 to a French reader and 1.2 to a program. The context decides,
 *    from evidence only:
 *    - when the text around it uses the other character as its decimal separator (a file with
 *      "12,5" elsewhere), the separator is a thousands separator: "1.200" is 1200;
 *    - when the text around it uses this very separator for decimals and writes every decimal
 *      number with exactly three places (an export in the format 0.000: "12.500", "0.250"), it is a
 *      decimal separator: "1.200" is 1.2;
 *    - otherwise it is refused (`number_ambiguous`, with both readings): nothing around it tells
 *      (a form field alone, a file of whole numbers), the text uses both separators for decimals,
 *      or it uses this separator for decimals with other than three places ("1.200" in a file
 *      that also writes "12.5" may be a person's 1200).
 *    A file's separator of cells is no evidence: a ";" file is usually French, but a program may
 *    write ";" with decimal points, and a wrong guess here is a declaration off by a factor of 1000.
 *    `numberContext` gathers the evidence from a file's cells (or a form's fields) at once.
 * 5. A person typing in a form of a language whose writing of numbers leaves no doubt reads it that
 *    way unless the text around it writes decimals otherwise (`convention`): in English the comma separates
 *    thousands and the point is the decimal separator ("20,000" is 20000, "1.250" is 1.25), as
 *    the English form's hint says. French has no such rule here: a French reader writes "1,200" for
 *    1.2 and sometimes "1.200" for 1200, and both reach French forms from English programs, so
 *    French pages keep rule 4.
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

/** How a number is written, before any context: its digits, or why they cannot be read yet. */
type Shape =
  | { kind: 'number'; int: string; frac: string; decimal?: DecimalSeparator; thousands?: DecimalSeparator }
  | { kind: 'ambiguous'; int: string; frac: string; separator: DecimalSeparator }
  | { kind: 'problem'; code: Exclude<NumberProblemCode, 'number_ambiguous' | 'number_empty'> };

const other = (separator: DecimalSeparator): DecimalSeparator => (separator === ',' ? '.' : ',');
const grouped = (text: string, separator: string) => new RegExp(`^\\d{1,3}(?:\\${separator}\\d{3})+$`).test(text);
const count = (text: string, character: string) => text.split(character).length - 1;

/** The shape of an unsigned, trimmed number text. */
function shapeOf(text: string): Shape {
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
  const trimmed = text.trim();
  const value = trimmed.length > MAX_SHOWN ? `${trimmed.slice(0, MAX_SHOWN - 1)}…` : trimmed;
  if (trimmed === '') return { ok: false, code: 'number_empty', params: { value } };
  const sign = /^[-+\u2212]/.exec(trimmed)?.[0];
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
