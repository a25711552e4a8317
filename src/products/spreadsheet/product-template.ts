import { strFromU8, strToU8, unzipSync, zipSync } from 'fflate';
import { CSV_DIALECTS } from '../../common/csv/csv-dialect.js';
import { csvDecimal, writeCsv } from '../../common/csv/write-csv.js';
import { sheetJs, type SpreadsheetFormat } from './read-spreadsheet.js';

/** The words of a template in one language: its header, its sheets' names, its example rows, the materials' published names. */
export interface TemplateWords {
  language: 'fr' | 'en';
  header: readonly string[];
  sheetProducts: string;
  sheetMaterials: string;
  materialsNote: string;
  /** Example rows: product, units sold, element, material, grams, number per unit (numbers as decimal text). */
  examples: readonly (readonly [string, string, string, string, string, string])[];
  materials: readonly string[];
}

/** Rows of the products sheet that the material drop-down covers. */
const LIST_ROWS = 5001;

export const TEMPLATE_MEDIA_TYPES: Readonly<Record<SpreadsheetFormat, string>> = {
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  ods: 'application/vnd.oasis.opendocument.spreadsheet',
  csv: 'text/csv; charset=utf-8',
};

/**
 * The per-product template: the header in the page's language and the biscuit maker's example
 * rows; .xlsx and .ods add a sheet listing the published materials and a drop-down on the material
 * column (a list validation that still lets another text be typed: a code is accepted too).
 * CSV in the language's dialect (`;` and decimal comma in French).
 */
export async function writeProductTemplate(format: SpreadsheetFormat, words: TemplateWords): Promise<Buffer> {
  if (format === 'csv') {
    const dialect = CSV_DIALECTS[words.language];
    return writeCsv(
      words.header,
      words.examples.map(([product, units, element, material, grams, perUnit]) => [
        product,
        units,
        element,
        material,
        csvDecimal(grams, dialect),
        perUnit,
      ]),
      dialect,
    );
  }
  const XLSX = await sheetJs();
  const number = (text: string) => (text === '' ? '' : Number(text));
  const products = XLSX.utils.aoa_to_sheet([
    [...words.header],
    ...words.examples.map(([product, units, element, material, grams, perUnit]) => [
      product,
      number(units),
      element,
      material,
      number(grams),
      number(perUnit),
    ]),
  ]);
  products['!cols'] = [{ wch: 40 }, { wch: 16 }, { wch: 18 }, { wch: 36 }, { wch: 10 }, { wch: 14 }];
  const materials = XLSX.utils.aoa_to_sheet([[words.sheetMaterials], ...words.materials.map((name) => [name]), [], [words.materialsNote]]);
  materials['!cols'] = [{ wch: 50 }];
  const book = XLSX.utils.book_new();
  XLSX.utils.book_append_sheet(book, products, words.sheetProducts);
  XLSX.utils.book_append_sheet(book, materials, words.sheetMaterials);
  const bytes = XLSX.write(book, { type: 'buffer', bookType: format, compression: true }) as Buffer;
  return format === 'xlsx' ? withMaterialList(bytes, words) : withOdsMaterialList(bytes, words);
}

/** Adds the list validation to the first sheet's material column (SheetJS's community build writes none). */
function withMaterialList(bytes: Buffer, words: TemplateWords): Buffer {
  const files = unzipSync(bytes);
  const path = 'xl/worksheets/sheet1.xml';
  const sheet = files[path];
  if (!sheet) return bytes;
  const column = String.fromCharCode(65 + 3);
  const source = `'${words.sheetMaterials.replace(/'/g, "''")}'!$A$2:$A$${words.materials.length + 1}`;
  const validation =
    `<dataValidations count="1"><dataValidation type="list" allowBlank="1" showInputMessage="0" showErrorMessage="0" sqref="${column}2:${column}${LIST_ROWS}">` +
    `<formula1>${escapeXml(source)}</formula1></dataValidation></dataValidations>`;
  const xml = strFromU8(sheet).replace('</sheetData>', `</sheetData>${validation}`);
  files[path] = strToU8(xml);
  return Buffer.from(zipSync(files, { level: 6 }));
}

/** The material column of the products sheet (0-based). */
const MATERIAL_COLUMN = 3;

/**
 * The same drop-down in an .ods (SheetJS writes no validation either): an ODF content validation
 * (`of:cell-content-is-in-list` over the materials sheet, its error message off, so that any text
 * is still taken) named on the material cell of each example row and of the empty rows below, up
 * to LIST_ROWS (written once, repeated).
 */
function withOdsMaterialList(bytes: Buffer, words: TemplateWords): Buffer {
  const files = unzipSync(bytes);
  const content = files['content.xml'];
  if (!content) return bytes;
  const quoted = (name: string) => `'${name.replace(/'/g, "''")}'`;
  const attribute = (text: string) => escapeXml(text).replace(/"/g, '&quot;');
  const range = `[$${quoted(words.sheetMaterials)}.$A$2:.$A$${words.materials.length + 1}]`;
  const validations =
    `<table:content-validations><table:content-validation table:name="materials" table:condition="${attribute(`of:cell-content-is-in-list(${range})`)}"` +
    ` table:allow-empty-cell="true" table:display-list="unsorted" table:base-cell-address="${attribute(`$${quoted(words.sheetProducts)}.$D$2`)}">` +
    `<table:error-message table:display="false"/></table:content-validation></table:content-validations>`;
  const xml = strFromU8(content);
  const start = xml.indexOf('<table:table ');
  const end = xml.indexOf('</table:table>', start);
  if (start < 0 || end < 0 || !xml.includes('<office:spreadsheet>')) return bytes;
  let rows = 0;
  const table = xml.slice(start, end).replace(/<table:table-row>([\s\S]*?)<\/table:table-row>/g, (row: string, cells: string) => {
    if (rows++ === 0) return row;
    let at = 0;
    return `<table:table-row>${cells.replace(/<table:table-cell\b/g, (cell) =>
      at++ === MATERIAL_COLUMN ? `${cell} table:content-validation-name="materials"` : cell,
    )}</table:table-row>`;
  });
  const empty =
    rows < LIST_ROWS
      ? `<table:table-row table:number-rows-repeated="${LIST_ROWS - rows}"><table:table-cell table:number-columns-repeated="${MATERIAL_COLUMN}"/>` +
        `<table:table-cell table:content-validation-name="materials"/></table:table-row>`
      : '';
  files['content.xml'] = strToU8(
    `${xml.slice(0, start)}${table}${empty}${xml.slice(end)}`.replace('<office:spreadsheet>', () => `<office:spreadsheet>${validations}`),
  );
  // The mimetype first and stored, as ODF wants it.
  const { mimetype, ...rest } = files;
  return Buffer.from(zipSync({ ...(mimetype ? { mimetype: [mimetype, { level: 0 }] } : {}), ...rest }, { level: 6 }));
}

const escapeXml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
