import fc from 'fast-check';
import { isSafeNumber, parse as parseLossless } from 'lossless-json';
import { ExactNumber, parseJsonBody } from './json-body.js';
import { Problem } from '../problem/problem.js';

/** What the body parser gave before it took JSON.parse's reading where that is the same: the lossless parser alone. */
function losslessOnly(text: string): unknown {
  try {
    try {
      return parseLossless(text, null, (number) => (isSafeNumber(number) ? Number(number) : new ExactNumber(number)));
    } catch (error) {
      if (error instanceof RangeError) return JSON.parse(text) as unknown;
      throw error;
    }
  } catch (error) {
    if (error instanceof SyntaxError) return { malformed: error.message };
    throw error;
  }
}

function parsed(text: string): unknown {
  try {
    return parseJsonBody(Buffer.from(text, 'utf8'));
  } catch (error) {
    if (error instanceof Problem && error.code === 'malformed_json') return { malformed: error.detail.replace(/^.*?: (.*)\.$/, '$1') };
    throw error;
  }
}

const same = (text: string) => expect(parsed(text)).toStrictEqual(losslessOnly(text));

describe('parseJsonBody', () => {
  it('reads a declaration as the lossless parser does', () => {
    same('{"period":"2025-S1","lines":[{"stream":"EMB","material":"Verre \\"clair\\"","unit":"kg","quantity":1200.5}]}');
  });

  it.each([
    ['a number a double cannot hold', '{"q":0.0009999999999999999999}'],
    ['16 digits or more', '{"q":1234567890123456,"r":12345678901234567,"s":0.12345678901234567}'],
    ['an exponent', '{"q":1e3,"r":1.5E-7,"s":1e400}'],
    ['15 digits and a point', '[123456789.012345,0.00000000000001,-0,100.50]'],
    ['a key twice with two values', '{"a":1,"b":2,"a":3}'],
    ['a key twice with one value', '{"a":[1,{"b":2}],"a":[1,{"b":2}]}'],
    ['a key twice, deeper', '[{"x":{"k":"v","k":"w"}}]'],
    ['keys with escapes, quotes and colons', '{"a\\\\":"\\":\\\\","b\\"":":","\\u0063":{"d" : 1}}'],
    ['__proto__', '{"__proto__":{"x":1},"constructor":2}'],
    ['not JSON', '{"a":1,}'],
    ['an unterminated string', '{"a":"b'],
    ['white space', ' \t\r\n{ "a" : [ 1 , 2 ] } \n'],
  ])('gives what the lossless parser gives: %s', (_, text) => same(text));

  it('keeps the lossless reading of any JSON text, numbers, keys twice and mistakes included', () => {
    const number = fc.oneof(
      fc.double({ noNaN: true, noDefaultInfinity: true }).map(String),
      fc.bigInt({ min: -(10n ** 20n), max: 10n ** 20n }).map(String),
      fc
        .tuple(fc.stringMatching(/^-?(0|[1-9]\d{0,17})$/), fc.stringMatching(/^\d{1,18}$/), fc.constantFrom('', 'e5', 'E-3', 'e+400'))
        .map(([int, fraction, exponent]) => `${int}.${fraction}${exponent}`),
    );
    const key = fc.constantFrom('a', 'b', 'a\\"', '\\u0061', 'x:y');
    const value: fc.Memo<string> = fc.memo((n) =>
      n <= 1
        ? fc.oneof(number, fc.constantFrom('"s"', '"\\\\"', '"\\":"', 'true', 'null'))
        : fc.oneof(
            fc.array(value(n - 1), { maxLength: 4 }).map((items) => `[${items.join(',')}]`),
            fc
              .array(fc.tuple(key, value(n - 1)), { maxLength: 4 })
              .map((entries) => `{${entries.map(([k, v]) => `"${k}": ${v}`).join(',')}}`),
          ),
    );
    const mistake = fc.constantFrom('', '', '', ',', '}', '"', 'x');
    fc.assert(
      fc.property(value(4), mistake, fc.nat(), (text, extra, at) => {
        const body = `[${text}]`;
        const cut = 1 + (at % body.length); // after the `[`: the parser reads objects and arrays only
        same(`${body.slice(0, cut)}${extra}${body.slice(cut)}`);
      }),
      { numRuns: 3000 },
    );
  });

  it('takes a double for every number of at most 15 digits without exponent, as the lossless parser does', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^-?(0|[1-9]\d{0,14})$/), fc.nat({ max: 14 }), (digits, point) => {
        const negative = digits.startsWith('-');
        const unsigned = negative ? digits.slice(1) : digits;
        const at = Math.min(point, unsigned.length - 1);
        const text = at === 0 ? digits : `${negative ? '-' : ''}${unsigned.slice(0, at)}.${unsigned.slice(at)}`;
        if (text.replace(/\D/g, '').length > 15 || /^-?0\d/.test(text)) return;
        expect(isSafeNumber(text)).toBe(true);
      }),
      { numRuns: 5000 },
    );
  });
});
