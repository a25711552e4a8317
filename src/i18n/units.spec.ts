import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { REPO_ROOT } from '../common/repo-root.js';
import { readUnitWritings, UNIT_WRITINGS } from './units.js';

describe('readUnitWritings', () => {
  it('reads every unit of the reference data that has a symbol, as a parse of the whole file gives it', () => {
    const { units } = parse(readFileSync(join(REPO_ROOT, 'reference-data', 'streams.yaml'), 'utf8')) as {
      units: { code: string; symbol?: string; intl_unit?: string | null }[];
    };
    const withSymbol = units.filter((u) => typeof u.symbol === 'string');
    expect(withSymbol.length).toBeGreaterThan(0);
    expect([...UNIT_WRITINGS]).toEqual(withSymbol.map((u) => [u.code, { symbol: u.symbol, intlUnit: u.intl_unit ?? null }]));
  });

  it('reads the units block between other keys, whatever its indentation, comments and blank lines', () => {
    const text = [
      'version: "1"',
      'units:',
      '- code: kg',
      '  symbol: kg',
      '',
      '  # the count',
      '- code: uvc',
      '  symbol: UVC',
      '  intl_unit: null',
      'streams:',
      '  - code: EMB',
      '    units: [{ code: other, symbol: X }]',
      '',
    ].join('\n');
    expect([...readUnitWritings(text)]).toEqual([
      ['kg', { symbol: 'kg', intlUnit: null }],
      ['uvc', { symbol: 'UVC', intlUnit: null }],
    ]);
    expect(readUnitWritings('streams: []\n').size).toBe(0);
  });
});
