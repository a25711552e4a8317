import type { FieldError } from '../problem/problem.js';

/**
 * The most separators (`,` or `;` outside quotes) a row of a file the service reads may hold: its
 * files have a handful of columns (a declaration four, in a semicolon file a decimal comma or two
 * more), a spreadsheet adds a few empty cells at most.
 */
export const MAX_CSV_SEPARATORS_PER_ROW = 100;

/** The most rows a file of at most `maxLines` records may have: its header, its records, and as many blank rows. */
export const maxCsvRows = (maxLines: number) => 2 * maxLines + 1;

const QUOTE = 0x22;
const COMMA = 0x2c;
const SEMICOLON = 0x3b;
const LF = 0x0a;
const CR = 0x0d;

/**
 * The first reason a CSV text is too big to parse, found in one pass over its characters before
 * any parsing: more than `maxRows` rows (a header then a million blank rows), or a row holding more
 * than `maxSeparators` separators (a header of a million commas). Rows end at CR, LF or CRLF
 * outside quotes, and are numbered as a spreadsheet numbers them (the parser numbers them the same
 * way up to its first error, which a quote that the two read differently always is). Undefined
 * when the text is within both bounds.
 */
export function csvTooBig(text: string, maxRows: number, maxSeparators = MAX_CSV_SEPARATORS_PER_ROW): FieldError | undefined {
  let row = 1;
  let separators = 0;
  let quoted = false;
  for (let at = 0; at < text.length; at++) {
    const char = text.charCodeAt(at);
    if (char === QUOTE) {
      quoted = !quoted;
    } else if (quoted) {
      continue;
    } else if (char === COMMA || char === SEMICOLON) {
      if (++separators > maxSeparators) {
        return {
          pointer: `/rows/${row}`,
          code: 'too_many_cells',
          row,
          params: { row, cells: maxSeparators + 1 },
          detail: `row ${row}: more than ${maxSeparators + 1} cells; the rows of these files have a few columns`,
        };
      }
    } else if (char === LF || char === CR) {
      if (char === CR && text.charCodeAt(at + 1) === LF) at++;
      // A line break that ends the text starts no row.
      if (at + 1 === text.length) break;
      row++;
      separators = 0;
      if (row > maxRows) {
        const lines = (maxRows - 1) / 2;
        return {
          pointer: `/rows/${row}`,
          code: 'too_many_rows',
          row,
          params: { row, max: maxRows },
          detail: `row ${row}: the file has at most ${maxRows.toLocaleString('en')} rows (a header, at most ${lines.toLocaleString('en')} lines, and blank rows); delete the blank rows at its end`,
        };
      }
    }
  }
  return undefined;
}
