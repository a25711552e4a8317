import fc from 'fast-check';
import { formatNumber } from './format.js';
import { type NumberContext, numberContext, numberConvention, readNumber } from './read-number.js';

const value = (text: string, context?: NumberContext) => {
  const read = readNumber(text, context);
  return read.ok ? read.value : read.code;
};

describe('readNumber', () => {
  it.each([
    ['1200,5', '1200.5'],
    ['1200.5', '1200.5'],
    ['1 200,5', '1200.5'],
    ['1\u00a0200,5', '1200.5'],
    ['1\u202f200,5', '1200.5'],
    ['1\u202f234\u00a0567 890,25', '1234567890.25'],
    ['1 200.500', '1200.500'],
    ['4 800', '4800'],
    ['1.200,5', '1200.5'],
    ['1,200.5', '1200.5'],
    ['1.234.567,891', '1234567.891'],
    ['1,234,567.891', '1234567.891'],
    ['1.200.000', '1200000'],
    ['1,200,000', '1200000'],
    ['12,25', '12.25'],
    ['1,5', '1.5'],
    ['0,500', '0.500'],
    ['0.250', '0.250'],
    ['00.125', '0.125'],
    ['1200.500', '1200.500'],
    ['1200,500', '1200.500'],
    ['1234', '1234'],
    ['007', '7'],
    ['0', '0'],
    [',5', '0.5'],
    [',500', '0.500'],
    ['.75', '0.75'],
    ['12,0000', '12.0000'],
    ['  12,5\u00a0', '12.5'],
    ['\t12\n', '12'],
  ])('%j is %s', (text, expected) => expect(value(text)).toBe(expected));

  it('keeps a sign: minus, the minus sign U+2212, or plus; zero has none', () => {
    expect(value('-1 200,5')).toBe('-1200.5');
    expect(value('\u221212,5')).toBe('-12.5');
    expect(value('+12,5')).toBe('12.5');
    expect(value('-0')).toBe('0');
    expect(value('-0,000')).toBe('0.000');
    expect(value('-5,5')).toBe('-5.5');
    expect(value('-10')).toBe('-10');
    expect(value('-1.200', { decimal: ',' })).toBe('-1200');
    expect(value('-1.200', { decimal: '.', threePlaces: true })).toBe('-1.200');
  });

  it.each([
    ['12 kg', 'number_has_unit'],
    ['12kg', 'number_has_unit'],
    ['290 €', 'number_has_unit'],
    ['12%', 'number_has_unit'],
    ['1,2 t', 'number_has_unit'],
    ['environ 12', 'number_has_unit'],
    ['1,2E+12', 'number_scientific'],
    ['1.5e3', 'number_scientific'],
    ['-1E5', 'number_scientific'],
    ['12E-3', 'number_scientific'],
    ['1 20', 'number_grouping'],
    ['12 3456', 'number_grouping'],
    ['1  200', 'number_grouping'],
    ['1234 567', 'number_grouping'],
    [' 1 200 000 0', 'number_grouping'],
    ['1.20.000', 'number_grouping'],
    ['1,20,000', 'number_grouping'],
    ['12,34.5', 'number_grouping'],
    ['1.200,5,5', 'number_grouping'],
    ['1,200.5.5', 'number_grouping'],
    ['1 200.000,5', 'number_grouping'],
    ['12 34,5', 'number_grouping'],
    ['1,5 00', 'number_grouping'],
    ['1.200,5 5', 'number_grouping'],
    ['1,200.5 5', 'number_grouping'],
    ['1.200,', 'number_invalid'],
    ['5.', 'number_invalid'],
    ['5,', 'number_invalid'],
    ['.', 'number_invalid'],
    ['-', 'number_invalid'],
    ['--5', 'number_invalid'],
    ['+-5', 'number_invalid'],
    ['(12)', 'number_invalid'],
    ['1/2', 'number_invalid'],
    ['12\t5', 'number_invalid'],
    ['١٢', 'number_invalid'],
    ['', 'number_empty'],
    [' \u00a0\u202f', 'number_empty'],
  ])('%j is refused: %s', (text, code) => expect(value(text)).toBe(code));

  it('says what was written, cut to 40 characters', () => {
    expect(readNumber(' 12 kg ')).toEqual({ ok: false, code: 'number_has_unit', params: { value: '12 kg' } });
    const long = readNumber(`${'9'.repeat(50)} kg`);
    expect(!long.ok && long.params.value).toBe(`${'9'.repeat(39)}…`);
    const forty = `${'9'.repeat(37)} kg`;
    expect(readNumber(forty)).toMatchObject({ params: { value: forty } });
    expect(readNumber('')).toEqual({ ok: false, code: 'number_empty', params: { value: '' } });
  });

  describe('one separator, once, before three digits', () => {
    it('is refused with both readings when nothing tells', () => {
      expect(readNumber('1.200')).toEqual({
        ok: false,
        code: 'number_ambiguous',
        params: { value: '1.200', separator: '.', asDecimal: '1.2', asThousands: '1200', reason: 'unknown' },
      });
      expect(readNumber('-12,500')).toEqual({
        ok: false,
        code: 'number_ambiguous',
        params: { value: '-12,500', separator: ',', asDecimal: '-12.5', asThousands: '-12500', reason: 'unknown' },
      });
      expect(readNumber('1.000')).toMatchObject({ params: { asDecimal: '1', asThousands: '1000' } });
      expect(readNumber('999,999')).toMatchObject({ params: { asDecimal: '999.999', asThousands: '999999' } });
      expect(readNumber('1.020')).toMatchObject({ params: { asDecimal: '1.02', asThousands: '1020' } });
      expect(readNumber('10.500')).toMatchObject({ code: 'number_ambiguous', params: { asDecimal: '10.5', asThousands: '10500' } });
    });

    it('separates thousands when the text around uses the other separator for decimals', () => {
      expect(value('1.200', { decimal: ',' })).toBe('1200');
      expect(value('1,200', { decimal: '.' })).toBe('1200');
      expect(value('1,200', { decimal: '.', threePlaces: true })).toBe('1200');
    });

    it('is a decimal separator when the text around uses it with three places everywhere', () => {
      expect(value('1.200', { decimal: '.', threePlaces: true })).toBe('1.200');
      expect(value('12,500', { decimal: ',', threePlaces: true })).toBe('12.500');
    });

    it('is refused when the text around uses it for decimals with other places, or both separators', () => {
      expect(readNumber('1.200', { decimal: '.' })).toMatchObject({ code: 'number_ambiguous', params: { reason: 'other_places' } });
      expect(readNumber('1.200', { decimal: '.', threePlaces: false })).toMatchObject({
        code: 'number_ambiguous',
        params: { reason: 'other_places' },
      });
      expect(readNumber('1.200', { mixed: true })).toMatchObject({ code: 'number_ambiguous', params: { reason: 'mixed' } });
      expect(readNumber('1.200', { mixed: true, decimal: ',' })).toMatchObject({ code: 'number_ambiguous', params: { reason: 'mixed' } });
      expect(readNumber('1.200', { mixed: true, decimal: '.', threePlaces: true })).toMatchObject({
        code: 'number_ambiguous',
        params: { reason: 'mixed' },
      });
      expect(readNumber('1.200', { threePlaces: true })).toMatchObject({ code: 'number_ambiguous', params: { reason: 'unknown' } });
    });

    it('reads an English form as English writes numbers: the comma separates thousands, the point is decimal', () => {
      const english = { convention: numberConvention('en') };
      expect(value('20,000', english)).toBe('20000');
      expect(value('4,800', english)).toBe('4800');
      expect(value('-12,500', english)).toBe('-12500');
      expect(value('1.250', english)).toBe('1.250');
      expect(value('1,200.5', english)).toBe('1200.5');
      // Evidence that agrees with the convention changes nothing; evidence against it is heard (rule 4).
      expect(value('20,000', { ...english, ...numberContext(['20,000', '12.5']) })).toBe('20000');
      expect(value('1.200', { ...english, ...numberContext(['1.200', '12.5']) })).toBe('1.200');
      expect(value('1.200', { ...english, ...numberContext(['1.200', '12,5']) })).toBe('1200');
      expect(readNumber('1,200', { ...english, ...numberContext(['1,200', '12,5']) })).toMatchObject({ code: 'number_ambiguous' });
      expect(readNumber('1,200', { ...english, mixed: true })).toMatchObject({ code: 'number_ambiguous', params: { reason: 'mixed' } });
    });

    it('keeps French forms to the evidence: "1,200" and "1.200" are both written by French readers and by programs', () => {
      expect(numberConvention('fr')).toBeUndefined();
      expect(readNumber('20,000', { convention: numberConvention('fr') })).toMatchObject({ code: 'number_ambiguous' });
    });

    it('needs no context when the text tells', () => {
      for (const context of [{}, { decimal: ',' }, { decimal: '.' }, { mixed: true }] as NumberContext[]) {
        expect(value('1 200,5', context)).toBe('1200.5');
        expect(value('0.125', context)).toBe('0.125');
        expect(value('12.5', context)).toBe('12.5');
        expect(value('1,200.5', context)).toBe('1200.5');
      }
    });
  });

  // Any decimal as `Intl` writes it in French or English.
  const decimals = fc
    .tuple(fc.bigInt({ min: 0n, max: 10n ** 12n }), fc.stringMatching(/^\d{0,6}$/), fc.boolean())
    .map(([int, frac, negative]) => ({ text: `${negative ? '-' : ''}${int}${frac ? `.${frac}` : ''}`, negative, int, frac }));
  const canonical = ({ negative, int, frac }: { negative: boolean; int: bigint; frac: string }) =>
    `${negative && (int > 0n || /[1-9]/.test(frac)) ? '-' : ''}${int}${frac ? `.${frac}` : ''}`;

  it('reads what Intl writes in either language exactly, or refuses it as ambiguous: never another number (property)', () => {
    fc.assert(
      fc.property(decimals, fc.constantFrom('fr' as const, 'en' as const), (number, language) => {
        const read = readNumber(formatNumber(language, number.text));
        if (read.ok) expect(read.value).toBe(canonical({ ...number, frac: number.frac.replace(/0+$/, '') }));
        else expect(read.code).toBe('number_ambiguous');
      }),
    );
  });

  it('reads a file of numbers written in one language with the file as context: never another number (property)', () => {
    fc.assert(
      fc.property(
        fc.array(decimals, { minLength: 1, maxLength: 8 }),
        fc.constantFrom('fr' as const, 'en' as const),
        fc.boolean(),
        (numbers, language, fixed) => {
          // `fixed`: every number written with three decimals, as an export in the format 0.000 writes them.
          const cells = numbers.map((n) =>
            fixed ? formatNumber(language, n.text.replace(/(\.\d{0,3})\d*$/, '$1'), { decimals: 3 }) : formatNumber(language, n.text),
          );
          const context = numberContext(cells);
          cells.forEach((cell, i) => {
            const read = readNumber(cell, context);
            if (!read.ok) return expect(read.code).toBe('number_ambiguous');
            const expected = fixed ? Number(numbers[i]!.text.replace(/(\.\d{0,3})\d*$/, '$1')) : Number(numbers[i]!.text);
            expect(Number(read.value)).toBe(Object.is(expected, -0) ? 0 : expected);
          });
        },
      ),
    );
  });

  it('reads a space, a no-break space and a narrow no-break space alike (property)', () => {
    fc.assert(
      fc.property(decimals, fc.constantFrom(' ', '\u00a0', '\u202f'), (number, space) => {
        const french = formatNumber('fr', number.text);
        expect(readNumber(french.replace(/\u202f/g, space))).toEqual(readNumber(french));
      }),
    );
  });

  it('refuses a number in scientific notation, with or without a decimal comma (property)', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true, min: 1e21, max: 1e300 }), (n) => {
        expect(value(String(n))).toBe('number_scientific');
        expect(value(String(n).replace('.', ','))).toBe('number_scientific');
      }),
    );
  });
});

describe('numberContext', () => {
  it('finds the decimal separator the unambiguous numbers use', () => {
    expect(numberContext(['12,5', '4 800', '1.200'])).toEqual({ decimal: ',', threePlaces: false });
    expect(numberContext(['12.5', '1,200'])).toEqual({ decimal: '.', threePlaces: false });
    expect(numberContext(['1 200,5'])).toEqual({ decimal: ',', threePlaces: false });
  });

  it('takes thousands separated by one separator as a sign that the other is the decimal separator', () => {
    expect(numberContext(['1.200.000', '1,200'])).toEqual({ decimal: ',', threePlaces: false });
    expect(numberContext(['1,200,000'])).toEqual({ decimal: '.', threePlaces: false });
    expect(numberContext(['1.200,5'])).toEqual({ decimal: ',', threePlaces: false });
  });

  it('says when every decimal number has three places', () => {
    expect(numberContext(['0.250', '12.500', '1200.000', '7'])).toEqual({ decimal: '.', threePlaces: true });
    expect(numberContext(['0,250', '1 200,500', '1.200.000'])).toEqual({ decimal: ',', threePlaces: true });
    expect(numberContext(['0.250', '12.5'])).toEqual({ decimal: '.', threePlaces: false });
    expect(numberContext(['1.200.000', '12.500'])).toEqual({ decimal: ',', threePlaces: false });
  });

  it('tells nothing from whole numbers, ambiguous numbers or what is not a number', () => {
    expect(numberContext([])).toEqual({});
    expect(numberContext(['12', '4 800', '1.200', '12 kg', '', '1,2E+3', '1,20,0', '5.', '-'])).toEqual({});
  });

  it('says when the numbers use both separators for decimals', () => {
    expect(numberContext(['12,5', '12.5'])).toEqual({ mixed: true });
    expect(numberContext(['1.200.000', '1.5'])).toEqual({ mixed: true });
    expect(numberContext(['1,200.5', '1.200,5'])).toEqual({ mixed: true });
  });

  it('reads numbers trimmed, and a sign only in front', () => {
    expect(numberContext([' 12,5\u00a0'])).toEqual({ decimal: ',', threePlaces: false });
    expect(numberContext(['1-2,5', '12,5-'])).toEqual({});
  });

  it('reads signed numbers', () => {
    expect(numberContext(['-12,5', '\u22120,250'])).toEqual({ decimal: ',', threePlaces: false });
    expect(numberContext(['+0.250'])).toEqual({ decimal: '.', threePlaces: true });
  });

  it('gives a file written in format 0.000 back exactly', () => {
    const cells = ['12.500', '0.250', '1.200', '3.000'];
    const context = numberContext(cells);
    expect(cells.map((cell) => value(cell, context))).toEqual(['12.500', '0.250', '1.200', '3.000']);
    // The same file with one number written otherwise: the three-place ones may be a person's thousands.
    const mixed = [...cells, '7.5'];
    expect(mixed.map((cell) => value(cell, numberContext(mixed)))).toEqual([
      'number_ambiguous',
      '0.250',
      'number_ambiguous',
      'number_ambiguous',
      '7.5',
    ]);
  });
});

describe('plain digits and plain decimals, read at once', () => {
  it('read as the general case reads them (a space before a number takes it)', () => {
    const contexts: NumberContext[] = [{}, { decimal: ',' }, { decimal: '.', threePlaces: true }, { mixed: true }, { convention: '.' }];
    fc.assert(
      fc.property(fc.stringMatching(/^\d{1,5}([.,]\d{1,5})?$/), fc.constantFrom(...contexts), (text, context) => {
        expect(readNumber(text, context)).toEqual(readNumber(` ${text}`, context));
        expect(numberContext([text, '12'])).toEqual(numberContext([` ${text}`, ' 12']));
      }),
    );
  });
});
