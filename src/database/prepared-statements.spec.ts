import fc from 'fast-check';
import pg from 'pg';
import { arrayLiteral, escapeLiteral } from './prepared-statements.js';

describe('escapeLiteral', () => {
  it.each(['plain', "l'eau", 'a\\b', "\\'", '', '"{a,b}"', 'NULL'])('writes %p as pg.escapeLiteral does', (text) => {
    expect(escapeLiteral(text)).toBe(pg.escapeLiteral(text));
  });

  it('writes any text as pg.escapeLiteral does', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('a', "'", '\\', '"', ',', '{', 'é', ' ') }), (text) => {
        expect(escapeLiteral(text)).toBe(pg.escapeLiteral(text));
      }),
      { numRuns: 2000 },
    );
  });
});

describe('arrayLiteral', () => {
  it.each([
    [[], '{}'],
    [['a'], '{"a"}'],
    [['', 'b c', "l'eau"], `{"","b c","l'eau"}`],
    [['a"b', 'c\\d'], '{"a\\"b","c\\\\d"}'],
    [['a', null, 'b'], '{"a",NULL,"b"}'],
    [[1.5, 'x'], '{"1.5","x"}'],
  ])('writes %p as %s', (values, literal) => {
    expect(arrayLiteral(values)).toBe(literal);
  });
});
