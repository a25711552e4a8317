import { parse } from 'csv-parse/sync';
import { unquotedCells } from './unquoted-cells.js';

describe('unquotedCells', () => {
  it('reads a text without quotes as csv-parse does, whatever its line breaks and empty rows, with the options of either reader', () => {
    const pieces = ['a', 'b', 'é ', ' 1,5', '', ';', ',', '\r\n', '\n', '\r', '\t'];
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    for (let n = 0; n < 600; n++) {
      const text = Array.from({ length: next() % 12 }, () => pieces[next() % pieces.length]).join('');
      for (const delimiter of [';', ',']) {
        // The per-product file's reader (src/products/spreadsheet/read-spreadsheet.ts), then the declaration file's (read-csv.ts).
        for (const options of [
          { delimiter, relax_column_count: true, relax_quotes: true, skip_empty_lines: false, bom: true },
          { delimiter, relax_column_count: true, skip_empty_lines: false },
        ])
          expect([text, unquotedCells(text, delimiter)]).toEqual([text, parse(text, options)]);
      }
    }
  });

  it('leaves a text with a quote or a byte order mark to csv-parse', () => {
    expect(unquotedCells('a;"b"', ';')).toBeUndefined();
    expect(unquotedCells('\uFEFFa;b', ';')).toBeUndefined();
  });
});
