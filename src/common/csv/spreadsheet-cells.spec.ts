import fc from 'fast-check';
import { neutraliseCell, restoreCell } from './spreadsheet-cells.js';

/** Every part a spreadsheet could make a cell of: the text split on each separator any spreadsheet may use, quotes and spaces before it dropped. */
const parts = (text: string) => text.split(/[,;\t\r\n]/).map((part) => part.replace(/^[\p{Zs}\p{Cf}"]*/u, ''));

describe('neutraliseCell', () => {
  it.each([
    ['=1+2', "'=1+2"],
    ['+33 bouteilles', "'+33 bouteilles"],
    ['-Verre', "'-Verre"],
    ['@SUM(A1)', "'@SUM(A1)"],
    ["'=déjà cité", "''=déjà cité"],
    ['\t=1', "'\t'=1"],
    ['\r=1', "'\r'=1"],
    // After a separator: a material such as `;=1+2;`, and the same after spaces, quotes, a tab or a line break.
    [';=1+2;', ";'=1+2;"],
    ['a,=1', "a,'=1"],
    ['a; "=1"', 'a; "\'=1"'],
    ['a;\u00a0@x', "a;\u00a0'@x"],
    // After invisible format characters, which a reader may drop: a zero-width space, a word joiner, a BOM.
    ['\u200b=HYPERLINK("http://x")', '\u200b\'=HYPERLINK("http://x")'],
    ['a;\u2060\ufeff+1', "a;\u2060\ufeff'+1"],
    ['a\t+1', "a\t'+1"],
    ['a\n-1', "a\n'-1"],
    ["a;'=1", "a;''=1"],
    [';;;', ';;;'],
    ['Verre', 'Verre'],
    ['Fûts; "acier"', 'Fûts; "acier"'],
    ['a=1;b+2', 'a=1;b+2'],
    ['2026-11-23T10:00:00Z', '2026-11-23T10:00:00Z'],
    ['', ''],
  ])('%j → %j, and back', (value, written) => {
    expect(neutraliseCell(value)).toBe(written);
    expect(restoreCell(written)).toBe(value);
  });

  it('restoreCell leaves a cell it would not have written as it is', () => {
    for (const value of ['Verre', "l'=1", "'Verre", "a;'b", "'", "''"]) expect(restoreCell(value)).toBe(value);
  });

  const text = fc.string({
    unit: fc.constantFrom('=', '+', '-', '@', "'", '"', ',', ';', '\t', '\r', '\n', ' ', '\u00a0', '\u200b', 'a', 'é'),
    maxLength: 16,
  });

  it('no part of a written cell starts a formula, whichever separator a spreadsheet splits it on', () => {
    fc.assert(
      fc.property(text, (value) => {
        const written = neutraliseCell(value);
        for (const part of parts(written)) expect(part).not.toMatch(/^[=+\-@]/);
        expect(written).not.toMatch(/^[\p{Zs}"]*[=+\-@\t\r]/u);
      }),
      { numRuns: 2000 },
    );
  });

  it('restoreCell undoes neutraliseCell for any text, and neutraliseCell never removes or moves a character', () => {
    fc.assert(
      fc.property(text, (value) => {
        const written = neutraliseCell(value);
        expect(restoreCell(written)).toBe(value);
        expect(written.replace(/'/g, '')).toBe(value.replace(/'/g, ''));
      }),
      { numRuns: 2000 },
    );
  });
});
