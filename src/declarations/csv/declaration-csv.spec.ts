import fc from 'fast-check';
import { ExactNumber } from '../../common/http/json-body.js';
import { CsvBody } from '../../common/http/request-body.js';
import { ValidationProblem } from '../../common/problem/problem.js';
import { writeDeclarationCsv } from '../../common/csv/declaration-file.js';
import { type DeclarationSheet, pointAtCells, readDeclarationCsv } from './declaration-csv.js';

const read = (text: string | Buffer, charset?: 'utf-8' | 'windows-1252') =>
  readDeclarationCsv(new CsvBody(typeof text === 'string' ? Buffer.from(text) : text, charset), '2025-S1', 1000);

describe('readDeclarationCsv', () => {
  it('reads a decimal comma in a semicolon-separated file, as written (exactly)', () => {
    const sheet = read('flux;matériau;unité;quantité\r\n\r\nEMB;Verre;kg;1200,50\r\nEMB;Bois;kg;0.0009999999999999999999\r\n');
    expect(sheet.errors).toEqual([]);
    expect(sheet.rows).toEqual([3, 4]);
    expect(sheet.body.lines).toEqual([
      { stream: 'EMB', material: 'Verre', unit: 'kg', quantity: new ExactNumber('1200.50') },
      { stream: 'EMB', material: 'Bois', unit: 'kg', quantity: new ExactNumber('0.0009999999999999999999') },
    ]);
  });

  it('takes Windows-1252 when the bytes are not UTF-8', () => {
    const sheet = read(Buffer.from([...Buffer.from('stream;material;unit;quantity\nEMB;'), 0x80, 0xe9, 0x9c, ...Buffer.from(';kg;1\n')]));
    expect(sheet.body.lines[0]!.material).toBe('€éœ');
  });

  it('numbers rows as a spreadsheet does when blank rows come before the header', () => {
    const sheet = read('\r\n;;;\r\nstream;material;unit;quantity\r\nEMB;Verre;kg;1\r\n');
    expect(sheet.rows).toEqual([4]);
    expect(() => read('\n\nstream;material;quantity\n')).toThrow(
      expect.objectContaining({ errors: [expect.objectContaining({ pointer: '/rows/3', code: 'missing_column' })] }),
    );
  });

  it('refuses a header that splits both ways', () => {
    expect(() => read('stream,material;unit,quantity;stream\nEMB,Verre;kg,1\n')).toThrow(ValidationProblem);
  });

  it('reads back what writeDeclarationCsv writes, whatever the material (formula cells included)', () => {
    const material = fc.string({
      unit: fc.constantFrom('=', '+', '-', '@', "'", '"', ',', ';', ' ', 'a', 'é', '😀'),
      minLength: 1,
      maxLength: 12,
    });
    fc.assert(
      fc.property(material, (text) => {
        const stored = text.trim();
        fc.pre(stored !== '');
        const file = writeDeclarationCsv([{ stream: 'EMB', material: stored, unit: 'kg', quantity: '1.5' }]);
        const sheet = read(file);
        expect(sheet.errors).toEqual([]);
        expect(sheet.body.lines).toEqual([{ stream: 'EMB', material: stored, unit: 'kg', quantity: new ExactNumber('1.5') }]);
      }),
    );
  });
});

describe('readDeclarationCsv: bounds before parsing', () => {
  const header = 'stream,material,unit,quantity\n';
  const lines = (n: number) => Array.from({ length: n }, (_, i) => `EMB,material ${i},uvc,1\n`).join('');

  // 100,000 rows rather than the million a hostile file may hold: as refused, and a mutant that parses them all stays a second or so, not a minute.
  it('a header then 100,000 blank rows: 422 at the first row past 2,001, without parsing them', () => {
    const refused = (() => {
      try {
        read(`${header}${'\n'.repeat(100_000)}`);
      } catch (error) {
        return error;
      }
      return undefined;
    })();
    expect(refused).toBeInstanceOf(ValidationProblem);
    expect((refused as ValidationProblem).errors).toEqual([
      expect.objectContaining({ pointer: '/rows/2002', code: 'too_many_rows', row: 2002 }),
    ]);
    expect(() => read(`${header}${'\r\n'.repeat(50_000)}`)).toThrow(
      expect.objectContaining({ errors: [expect.objectContaining({ code: 'too_many_rows' })] }),
    );
  });

  it('1,000 lines and 1,000 blank rows are read; the 1,001st line is the precise too_many_lines, not too_many_rows', () => {
    const sheet = read(`${header}${lines(1000)}${'\n'.repeat(1000)}`);
    expect(sheet.body.lines).toHaveLength(1000);
    expect(sheet.errors).toEqual([]);
    expect(read(`${header}${lines(1001)}`).errors).toEqual([expect.objectContaining({ pointer: '/rows/1002', code: 'too_many_lines' })]);
    expect(read(`${header}${lines(2000)}`).errors).toEqual([expect.objectContaining({ pointer: '/rows/1002', code: 'too_many_lines' })]);
    expect(() => read(`${header}${lines(2001)}`)).toThrow(
      expect.objectContaining({ errors: [expect.objectContaining({ pointer: '/rows/2002', code: 'too_many_rows' })] }),
    );
  });

  it('a header of 100,000 commas: 422 too_many_cells at row 1, without parsing it', () => {
    expect(() => read(`stream,material,unit,quantity${','.repeat(100_000)}\n`)).toThrow(
      expect.objectContaining({ errors: [expect.objectContaining({ pointer: '/rows/1', code: 'too_many_cells', row: 1 })] }),
    );
    expect(() => read(`${header}EMB,Verre,kg,1\nEMB,Verre,uvc,1${';'.repeat(200)}\n`)).toThrow(
      expect.objectContaining({ errors: [expect.objectContaining({ pointer: '/rows/3', code: 'too_many_cells', row: 3 })] }),
    );
  });

  it('finds the header after blank rows however many line breaks a quoted cell holds', () => {
    const sheet = read(`\n;;\nstream;material;unit;quantity\nEMB;"Verre\n\nvert";kg;1\nEMB;Bois;kg;2\n`);
    expect(sheet.rows).toEqual([4, 5]);
    expect(sheet.body.lines.map((line) => line.material)).toEqual(['Verre\n\nvert', 'Bois']);
  });
});

describe('pointAtCells', () => {
  // Lines 0, 1, 2 are rows 2, 3 and 5 (row 4 blank); the units sold are stated on row 6.
  const sheet: DeclarationSheet = { body: { period: '2025-S1', lines: [] }, rows: [2, 3, 5], unitsSoldRows: [6], errors: [], comments: 0 };

  it("points a line's error at its row and cell, its other lines as rows, without its line", () => {
    const [error] = pointAtCells(sheet, [
      { pointer: '/lines/2/material', code: 'duplicate_line', detail: 'same material', params: { line: 3, lines: [1, 2], more: 0 } },
    ]);
    expect(error).toEqual({
      pointer: '/rows/5/material',
      code: 'duplicate_line',
      detail: 'row 5: same material',
      row: 5,
      params: { more: 0, rows: [2, 3] },
    });
  });

  it('points a line itself (no field) and a units sold entry at their rows', () => {
    const errors = pointAtCells(sheet, [
      { pointer: '/lines/1', code: 'invalid_type', detail: 'not an object', params: { line: 2 } },
      { pointer: '/units_sold/0/quantity', code: 'units_sold_below_material_count', detail: 'fewer', params: { count: '9' } },
    ]);
    expect(errors.map((e) => [e.pointer, e.row, e.params])).toEqual([
      ['/rows/3', 3, {}],
      ['/rows/6/quantity', 6, { count: '9' }],
    ]);
  });

  it('leaves a pointer that names no line index as it is, and the period goes to the address', () => {
    const odd = [
      { pointer: '/lines/1x/unit', code: 'c', detail: 'd' },
      { pointer: '/lines//unit', code: 'c', detail: 'd' },
      { pointer: '/lines/1/unit\nx', code: 'c', detail: 'd' },
    ];
    expect(pointAtCells(sheet, odd)).toEqual(odd);
    expect(pointAtCells(sheet, [{ pointer: '/period', code: 'required', detail: 'period is required' }])).toEqual([
      { pointer: '/query/period', code: 'required', detail: 'period is required (in the address: ?period=2025-S1)' },
    ]);
  });

  it("keeps the reader's error only, for a cell both report", () => {
    const read = { pointer: '/rows/5/quantity', code: 'number_invalid', detail: 'row 5: not a number', row: 5 };
    const errors = pointAtCells({ ...sheet, errors: [read] }, [
      { pointer: '/lines/2/quantity', code: 'invalid_type', detail: 'not a string' },
    ]);
    expect(errors).toEqual([read]);
  });
});
