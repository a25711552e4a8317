import { csvTooBig, MAX_CSV_SEPARATORS_PER_ROW, maxCsvRows } from './csv-bounds.js';

describe('csvTooBig', () => {
  it('a header, 1,000 lines and 1,000 blank rows at most', () => {
    expect(maxCsvRows(1000)).toBe(2001);
    expect(maxCsvRows(1)).toBe(3);
  });

  it('counts rows ended by LF, CRLF or CR, as a spreadsheet numbers them; a last line break starts no row', () => {
    expect(csvTooBig('a\nb\nc', 3)).toBeUndefined();
    expect(csvTooBig('a\nb\nc\n', 3)).toBeUndefined();
    expect(csvTooBig('a\r\nb\r\nc\r\n', 3)).toBeUndefined();
    expect(csvTooBig('a\rb\rc\r', 3)).toBeUndefined();
    expect(csvTooBig('a\nb\nc\nd', 3)).toEqual({
      pointer: '/rows/4',
      code: 'too_many_rows',
      row: 4,
      params: { row: 4, max: 3 },
      detail: 'row 4: the file has at most 3 rows (a header, at most 1 lines, and blank rows); delete the blank rows at its end',
    });
    expect(csvTooBig('a\r\nb\r\nc\r\n\r\n', 3)).toMatchObject({ code: 'too_many_rows', row: 4 });
    expect(csvTooBig('a\rb\rc\r\r', 3)).toMatchObject({ code: 'too_many_rows', row: 4 });
    expect(csvTooBig('\n\n\n', 3)).toBeUndefined();
    expect(csvTooBig('\n\n\n\n', 3)).toMatchObject({ code: 'too_many_rows', row: 4 });
    expect(csvTooBig('', 1)).toBeUndefined();
    expect(csvTooBig('\n', 1)).toBeUndefined();
  });

  it('a header then a million blank rows is refused at the first row past the bound', () => {
    expect(csvTooBig(`stream,material,unit,quantity\n${'\n'.repeat(1_000_000)}`, 2001)).toMatchObject({
      pointer: '/rows/2002',
      code: 'too_many_rows',
      row: 2002,
    });
    expect(csvTooBig(`stream,material,unit,quantity\r\n${'\r\n'.repeat(2000)}`, 2001)).toBeUndefined();
    expect(csvTooBig(`stream,material,unit,quantity\r\n${'\r\n'.repeat(2001)}x`, 2001)).toMatchObject({ row: 2002 });
  });

  it('line breaks inside quotes are inside a cell, not rows (a doubled quote is a quote in the cell)', () => {
    expect(csvTooBig('a,"x\n\n\ny",b\nc', 2)).toBeUndefined();
    expect(csvTooBig('a,"x""\n""y",b\nc', 2)).toBeUndefined();
    expect(csvTooBig('a,"x"\n"y"\nc', 2)).toMatchObject({ row: 3 });
  });

  it(`at most ${MAX_CSV_SEPARATORS_PER_ROW} separators (commas and semicolons outside quotes) a row`, () => {
    expect(MAX_CSV_SEPARATORS_PER_ROW).toBe(100);
    expect(csvTooBig(',;'.repeat(50), 10)).toBeUndefined();
    expect(csvTooBig(`${',;'.repeat(50)},`, 10)).toEqual({
      pointer: '/rows/1',
      code: 'too_many_cells',
      row: 1,
      params: { row: 1, cells: 101 },
      detail: 'row 1: more than 101 cells; the rows of these files have a few columns',
    });
    expect(csvTooBig(`a\nb\n${';'.repeat(4)}`, 10, 3)).toMatchObject({
      pointer: '/rows/3',
      code: 'too_many_cells',
      row: 3,
      detail: 'row 3: more than 4 cells; the rows of these files have a few columns',
    });
    // Counted per row.
    expect(csvTooBig(`${',,,\n'.repeat(5)}`, 10, 3)).toBeUndefined();
    expect(csvTooBig(`${',,,\r\n'.repeat(5)}`, 10, 3)).toBeUndefined();
    expect(csvTooBig(`${',,,\r'.repeat(5)}`, 10, 3)).toBeUndefined();
    // Quoted separators are text.
    expect(csvTooBig(`"${',;'.repeat(500)}",x`, 10, 3)).toBeUndefined();
    expect(csvTooBig('a\tb\tc\td\te', 10, 3)).toBeUndefined();
  });
});
