import * as XLSX from '@e965/xlsx';
import { strFromU8, strToU8, unzipSync, zipSync } from 'fflate';
import { readSpreadsheet, SpreadsheetRefused } from './read-spreadsheet.js';

const LIMITS = { maxRows: 101, maxInflatedBytes: 1024 * 1024, maxEntries: 20 };
const ROWS = [
  ['produit', 'poids (g)'],
  ['Sablés', 45.5],
];
const book = (type: 'xlsx' | 'ods', rows: unknown[][] = ROWS) => {
  const workbook = XLSX.utils.book_new();
  XLSX.utils.book_append_sheet(workbook, XLSX.utils.aoa_to_sheet(rows), 'S');
  return XLSX.write(workbook, { type: 'buffer', bookType: type }) as Buffer;
};
const refused = async (bytes: Buffer) => {
  try {
    await readSpreadsheet(bytes, LIMITS);
  } catch (error) {
    if (error instanceof SpreadsheetRefused) return error.code;
    throw error;
  }
  return 'read';
};

describe('readSpreadsheet', () => {
  it.each(['xlsx', 'ods'] as const)('reads the first sheet of an .%s as text cells', async (type) => {
    expect(await readSpreadsheet(book(type), LIMITS)).toEqual({
      format: type,
      rows: [
        ['produit', 'poids (g)'],
        ['Sablés', '45.5'],
      ],
    });
  });

  it('reads CSV in either dialect', async () => {
    expect((await readSpreadsheet(Buffer.from('produit;poids (g)\r\nSablés;"45,5"\r\n;\r\n'), LIMITS)).rows).toEqual([
      ['produit', 'poids (g)'],
      ['Sablés', '45,5'],
    ]);
    expect((await readSpreadsheet(Buffer.from('product,weight (g)\nShortbread,45.5\n'), LIMITS)).rows[1]).toEqual(['Shortbread', '45.5']);
  });

  it('reads a formula’s cached value, never evaluating it', async () => {
    const sheet = XLSX.utils.aoa_to_sheet(ROWS);
    sheet.B2 = { t: 'n', v: 7, f: 'WEBSERVICE("http://example.org")' };
    const workbook = XLSX.utils.book_new();
    XLSX.utils.book_append_sheet(workbook, sheet, 'S');
    expect((await readSpreadsheet(XLSX.write(workbook, { type: 'buffer', bookType: 'xlsx' }) as Buffer, LIMITS)).rows[1]).toEqual([
      'Sablés',
      '7',
    ]);
  });

  it('refuses what is no spreadsheet, a zip bomb, a zip whose directory lies, and too many rows', async () => {
    expect(await refused(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0]))).toBe('not_a_spreadsheet');
    expect(await refused(Buffer.alloc(0))).toBe('empty_file');
    expect(await refused(Buffer.from(zipSync({ 'a.txt': strToU8('hello') })))).toBe('not_a_spreadsheet');
    const bomb = zipSync({ '[Content_Types].xml': strToU8('<Types/>'), 'xl/worksheets/sheet1.xml': new Uint8Array(8 * 1024 * 1024) });
    expect(await refused(Buffer.from(bomb))).toBe('spreadsheet_too_big');
    const many = zipSync(Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`p${i}.xml`, strToU8('x')])));
    expect(await refused(Buffer.from(many))).toBe('spreadsheet_too_big');
    expect(await refused(Buffer.from(`a,b\n${'1,2\n'.repeat(200)}`))).toBe('too_many_rows');
    expect(await refused(book('xlsx', [['a'], ...Array.from({ length: 200 }, (_, i) => [i])]))).toBe('too_many_rows');
  });

  it('cuts an .ods’s repeat counts instead of making a million cells', async () => {
    const files = unzipSync(book('ods'));
    files['content.xml'] = strToU8(
      strFromU8(files['content.xml']!).replace(/<table:table-cell /, '<table:table-cell table:number-columns-repeated="16000" '),
    );
    const { rows } = await readSpreadsheet(Buffer.from(zipSync(files)), LIMITS);
    expect(rows[0]!.length).toBeLessThanOrEqual(32);
  });
});
