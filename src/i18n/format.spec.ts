import fc from 'fast-check';
import {
  csvDecimal,
  formatCountry,
  formatDate,
  formatDateTime,
  formatList,
  formatMoney,
  formatNumber,
  formatPercent,
  formatQuantity,
  plural,
  unitSymbol,
} from './format.js';
import { LOCALES } from './language.js';

// The exact output of this runtime's ICU (Node 24, ICU 78): a change of ICU that moves a space shows here.
const NNBSP = '\u202f'; // narrow no-break space: French thousands, and before kg
const NBSP = '\u00a0'; // no-break space: before € and % in French

describe('formatNumber', () => {
  it('groups thousands with a narrow no-break space and writes a decimal comma in French', () => {
    expect(formatNumber('fr', '1200.5')).toBe(`1${NNBSP}200,5`);
    expect(formatNumber('fr', 1234567.891)).toBe(`1${NNBSP}234${NNBSP}567,891`);
    expect(formatNumber('fr', 1234)).toBe(`1${NNBSP}234`);
    expect(formatNumber('fr', 999)).toBe('999');
    expect(formatNumber('fr', '-1200.5')).toBe(`-1${NNBSP}200,5`);
  });

  it('groups with a comma and writes a decimal point in English', () => {
    expect(formatNumber('en', '1200.5')).toBe('1,200.5');
    expect(formatNumber('en', 1234567.891)).toBe('1,234,567.891');
  });

  it('formats a decimal text exactly, whatever its length, without trailing zeros', () => {
    expect(formatNumber('fr', '1000000000000.123456789012345678901234567891')).toBe(
      `1${NNBSP}000${NNBSP}000${NNBSP}000${NNBSP}000,123456789012345678901234567891`,
    );
    expect(formatNumber('en', '0.000000000000000000000000000001')).toBe('0.000000000000000000000000000001');
    expect(formatNumber('fr', '1523.0950')).toBe(`1${NNBSP}523,095`);
    expect(formatNumber('fr', '0')).toBe('0');
    expect(formatNumber('fr', '007')).toBe('7');
  });

  it('gives every digit of every decimal text back (property)', () => {
    const decimal = fc
      .tuple(fc.bigInt({ min: 0n, max: 10n ** 13n }), fc.stringMatching(/^\d{0,30}$/))
      .map(([int, frac]) => (frac ? `${int}.${frac}` : `${int}`));
    fc.assert(
      fc.property(decimal, (text) => {
        const digitsOf = (s: string) => s.replace(/[^\d]/g, '').replace(/^0+/, '');
        const expected = digitsOf(text.includes('.') ? text.replace(/0+$/, '') : text);
        expect(digitsOf(formatNumber('fr', text))).toBe(expected);
        expect(digitsOf(formatNumber('en', text))).toBe(expected);
      }),
    );
  });

  it('writes a whole number as Intl does (property)', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.integer({ min: 0, max: 10_000 }), fc.maxSafeNat()),
        fc.constantFrom('fr' as const, 'en' as const),
        (n, language) => {
          expect(formatNumber(language, n)).toBe(new Intl.NumberFormat(LOCALES[language], { maximumFractionDigits: 100 }).format(n));
        },
      ),
    );
    expect(formatNumber('fr', -0)).toBe('-0');
  });

  it('rounds to fixed decimals when asked', () => {
    expect(formatNumber('fr', 2.005, { decimals: 2 })).toBe('2,01');
    expect(formatNumber('en', '3', { decimals: 2 })).toBe('3.00');
  });

  it('refuses what is not a number rather than write NaN', () => {
    for (const text of ['', '1,5', '1e3', ' 1', '1.', '.5', 'abc', '+1'])
      expect(() => formatNumber('fr', text)).toThrow(new TypeError(`not a decimal text: ${JSON.stringify(text)}`));
    for (const value of [Number.NaN, Infinity, -Infinity])
      expect(() => formatNumber('en', value)).toThrow(new RangeError(`not a finite number: ${value}`));
  });
});

describe('formatMoney', () => {
  it('writes euros as each language does', () => {
    expect(formatMoney('fr', 290)).toBe(`290,00${NBSP}€`);
    expect(formatMoney('fr', '1290.5')).toBe(`1${NNBSP}290,50${NBSP}€`);
    expect(formatMoney('en', 290)).toBe('€290.00');
    expect(formatMoney('en', '1290.5')).toBe('€1,290.50');
    expect(formatMoney('fr', -1290.5)).toBe(`-1${NNBSP}290,50${NBSP}€`);
  });
});

describe('formatPercent', () => {
  it('writes a ratio as a percentage', () => {
    expect(formatPercent('fr', 0.125)).toBe(`12,5${NBSP}%`);
    expect(formatPercent('en', 0.125)).toBe('12.5%');
    expect(formatPercent('en', 0.12345, 2)).toBe('12.35%');
    expect(formatPercent('fr', 1)).toBe(`100${NBSP}%`);
  });
});

describe('formatQuantity', () => {
  it('writes kilograms through Intl and sales units with their symbol', () => {
    expect(formatQuantity('fr', '1523.095', 'kg')).toBe(`1${NNBSP}523,095${NNBSP}kg`);
    expect(formatQuantity('en', '1523.095', 'kg')).toBe('1,523.095 kg');
    expect(formatQuantity('fr', '4800', 'uvc')).toBe(`4${NNBSP}800${NBSP}UVC`);
    expect(formatQuantity('en', 4800, 'uvc')).toBe(`4,800${NBSP}UVC`);
    expect(formatQuantity('fr', '12', 't')).toBe(`12${NBSP}t`);
  });

  it('names the units', () => {
    expect([unitSymbol('fr', 'uvc'), unitSymbol('en', 'uvc'), unitSymbol('fr', 'kg'), unitSymbol('en', 'toString')]).toEqual([
      'UVC',
      'UVC',
      'kg',
      'toString',
    ]);
  });
});

describe('formatDate', () => {
  it('writes a calendar date in words, the same day whatever the zone', () => {
    expect(formatDate('fr', '2027-02-28')).toBe('28 février 2027');
    expect(formatDate('en', '2027-02-28')).toBe('28 February 2027');
    expect(formatDate('fr', '2026-12-31')).toBe('31 décembre 2026');
  });

  it('writes the first of the month "1er" in French only', () => {
    expect(formatDate('fr', '2027-03-01')).toBe('1er mars 2027');
    expect(formatDate('en', '2027-03-01')).toBe('1 March 2027');
    expect(formatDate('fr', '2027-03-11')).toBe('11 mars 2027');
    expect(formatDate('fr', '2027-03-21')).toBe('21 mars 2027');
  });

  it('tells an instant by its date in Paris', () => {
    // 23:30 UTC on 31 December is already 1 January in Paris.
    expect(formatDate('fr', new Date('2026-12-31T23:30:00Z'))).toBe('1er janvier 2027');
    expect(formatDate('en', '2026-12-31T23:30:00Z')).toBe('1 January 2027');
  });

  it('never groups the year', () => {
    expect(formatDate('fr', '2027-06-30')).toMatch(/ 2027$/);
  });

  it('refuses what is not a date', () => {
    expect(() => formatDate('fr', 'soon')).toThrow(new RangeError('not a date: soon'));
    expect(() => formatDateTime('en', new Date(Number.NaN))).toThrow(new RangeError('not a date: Invalid Date'));
  });
});

describe('formatDateTime', () => {
  it('tells the time in Paris, the zone named plainly', () => {
    expect(formatDateTime('fr', '2027-01-28T10:05:00Z')).toBe('28 janvier 2027 à 11:05, heure de Paris');
    expect(formatDateTime('fr', '2027-07-28T10:05:00Z')).toBe('28 juillet 2027 à 12:05, heure de Paris');
    expect(formatDateTime('en', '2027-01-28T10:05:00Z')).toBe('28 January 2027 at 11:05, Paris time');
    expect(formatDateTime('en', new Date('2027-07-28T10:05:00Z'))).toBe('28 July 2027 at 12:05, Paris time');
    expect(formatDateTime('fr', '2027-02-28T23:05:00Z')).toBe('1er mars 2027 à 00:05, heure de Paris');
  });
});

describe('formatList', () => {
  it('joins with the words of the language', () => {
    expect(formatList('fr', ['kg', 'UVC', 't'])).toBe('kg, UVC et t');
    expect(formatList('fr', ['kg', 'UVC'], 'or')).toBe('kg ou UVC');
    expect(formatList('en', ['kg', 'UVC', 't'])).toBe('kg, UVC and t');
    expect(formatList('en', ['kg', 'UVC'], 'or')).toBe('kg or UVC');
    expect(formatList('en', ['EMB'])).toBe('EMB');
  });
});

describe('formatCountry', () => {
  it("names a country from its code in the page's language, whatever the code's case", () => {
    expect(formatCountry('fr', 'DE')).toBe('Allemagne');
    expect(formatCountry('en', 'DE')).toBe('Germany');
    expect(formatCountry('fr', 'cn')).toBe('Chine');
    expect(formatCountry('en', 'gb')).toBe('United Kingdom');
    // Read once, then from what was read: the same name, whatever the case.
    expect(formatCountry('fr', 'de')).toBe('Allemagne');
    expect(formatCountry('en', 'GB')).toBe('United Kingdom');
  });

  it('gives a code Intl cannot read as it is', () => {
    expect(formatCountry('fr', 'QQ')).toBe('QQ');
    expect(formatCountry('en', 'not a code')).toBe('not a code');
  });
});

describe('plural', () => {
  const lines = { one: 'ligne', other: 'lignes' };
  it('follows each language’s plural rules', () => {
    expect([0, 1, 1.5, 2, 1000].map((n) => plural('fr', n, lines))).toEqual(['ligne', 'ligne', 'ligne', 'lignes', 'lignes']);
    expect([0, 1, 1.5, 2].map((n) => plural('en', n, { one: 'line', other: 'lines' }))).toEqual(['lines', 'line', 'lines', 'lines']);
  });

  it('takes the many form of a round million in French, or else the other form', () => {
    expect(plural('fr', 1_000_000, { ...lines, many: 'de lignes' })).toBe('de lignes');
    expect(plural('fr', 1_000_000, lines)).toBe('lignes');
    expect(plural('fr', 2, { ...lines, many: 'de lignes' })).toBe('lignes');
  });
});

describe('csvDecimal', () => {
  it('changes the decimal separator only', () => {
    expect(csvDecimal('1200.50', ',')).toBe('1200,50');
    expect(csvDecimal('1200.50', '.')).toBe('1200.50');
    expect(csvDecimal('12', ',')).toBe('12');
    expect(() => csvDecimal('1,5', ',')).toThrow(new TypeError('not a decimal text: "1,5"'));
  });
});
