import fc from 'fast-check';
import { ExactNumber } from '../../common/http/json-body.js';
import { CsvBody } from '../../common/http/request-body.js';
import { ValidationProblem } from '../../common/problem/problem.js';
import { writeDeclarationCsv } from './declaration-csv-writer.js';
import { readDeclarationCsv } from './declaration-csv.js';

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
    expect(() => read('\n\nstream;material;quantity\n')).toThrow(expect.objectContaining({ errors: [expect.objectContaining({ pointer: '/rows/3', code: 'missing_column' })] }));
  });

  it('refuses a header that splits both ways', () => {
    expect(() => read('stream,material;unit,quantity;stream\nEMB,Verre;kg,1\n')).toThrow(ValidationProblem);
  });

  it('reads back what writeDeclarationCsv writes, whatever the material (formula cells included)', () => {
    const material = fc.string({ unit: fc.constantFrom('=', '+', '-', '@', "'", '"', ',', ';', ' ', 'a', 'é', '😀'), minLength: 1, maxLength: 12 });
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
