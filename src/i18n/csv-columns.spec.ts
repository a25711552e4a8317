import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { IMPORT_COLUMNS, IMPORT_CSV_COLUMNS } from '../accounts/clients-import.js';
import { REPO_ROOT } from '../common/repo-root.js';
import { CSV_DIALECTS } from '../common/csv/csv-dialect.js';
import type { CsvColumns } from '../common/csv/read-csv.js';
import { CSV_COLUMNS as DECLARATION_CSV_COLUMNS, writeDeclarationCsv, writeDeclarationTemplate } from '../common/csv/declaration-file.js';
import { DECLARATION_COLUMNS } from '../declarations/csv/declaration-csv.js';
import { ANNUAL_COLUMN_CODES, ANNUAL_CSV_COLUMNS, ANNUAL_CSV_DETAIL_COLUMNS } from '../exports/annual-export.service.js';
import { PRODUCT_COLUMN_CODES, PRODUCT_CSV_COLUMNS as PRODUCT_DETAIL_HEADERS } from '../exports/export-products.js';
import { CSV_COLUMNS as PERIOD_CSV_COLUMNS, CSV_DETAIL_HEADERS, CSV_HEADERS as PERIOD_HEADERS } from '../exports/period-export.service.js';
import { PRODUCT_COLUMNS, PRODUCT_CSV_COLUMNS, SALE_COLUMNS, SALE_CSV_COLUMNS } from '../products/csv/product-csv.js';
import { LANGUAGES } from './language.js';
import { type CsvFileName, csvHeader } from './csv-columns.js';
import { MESSAGES } from './messages/index.js';

const words = (file: CsvFileName, language: 'en' | 'fr') => MESSAGES[language].files.columns[file] as Record<string, string>;
/** The header row a file's writer starts with, as text without its byte order mark. */
const headerRow = (bytes: Buffer) =>
  bytes
    .toString('utf8')
    .replace(/^\ufeff/, '')
    .split('\r\n')[0];

/** Each file the catalogues name, and the columns its code writes or reads, in order. */
const FILES: Record<CsvFileName, readonly string[]> = {
  declaration: DECLARATION_CSV_COLUMNS,
  products: PRODUCT_CSV_COLUMNS,
  sales: SALE_CSV_COLUMNS,
  clients: IMPORT_CSV_COLUMNS,
  periodExport: PERIOD_CSV_COLUMNS,
  annualExport: [...ANNUAL_COLUMN_CODES, 'period'],
  productDetail: PRODUCT_COLUMN_CODES,
};

describe('the CSV headers of the catalogues (files.columns)', () => {
  it('name every column of every file, and no other, in every language', () => {
    expect(Object.keys(MESSAGES.en.files.columns).sort()).toEqual(Object.keys(FILES).sort());
    for (const language of LANGUAGES)
      for (const [file, columns] of Object.entries(FILES) as [CsvFileName, readonly string[]][])
        expect([file, Object.keys(words(file, language)).sort()]).toEqual([file, [...columns].sort()]);
  });

  it('are the column codes in English', () => {
    for (const file of Object.keys(FILES) as CsvFileName[])
      for (const [code, header] of Object.entries(words(file, 'en'))) expect(header).toBe(code);
  });

  it('are the header rows every writer writes, in each dialect', () => {
    for (const language of LANGUAGES) {
      const dialect = CSV_DIALECTS[language];
      const row = (file: CsvFileName, columns: readonly string[]) => columns.map((c) => words(file, language)[c]);
      const declaration = row('declaration', DECLARATION_CSV_COLUMNS);
      expect(headerRow(writeDeclarationCsv([], dialect))).toBe(declaration.join(dialect.delimiter));
      expect(headerRow(writeDeclarationTemplate([], 'note', dialect))).toBe(declaration.join(dialect.delimiter));
      expect(PERIOD_HEADERS[language]).toEqual(row('periodExport', PERIOD_CSV_COLUMNS));
      expect(PRODUCT_DETAIL_HEADERS[language]).toEqual(row('productDetail', PRODUCT_COLUMN_CODES));
      expect(CSV_DETAIL_HEADERS[language]).toEqual([
        ...row('periodExport', PERIOD_CSV_COLUMNS),
        ...row('productDetail', PRODUCT_COLUMN_CODES),
      ]);
      expect(ANNUAL_CSV_COLUMNS[language]).toEqual(row('annualExport', ANNUAL_COLUMN_CODES));
      expect(ANNUAL_CSV_DETAIL_COLUMNS[language]).toEqual([
        ...row('annualExport', ANNUAL_COLUMN_CODES),
        ...row('annualExport', ['period']),
        ...row('productDetail', PRODUCT_COLUMN_CODES),
      ]);
    }
  });

  it('are the English then the French header every reader accepts first', () => {
    const readers: [CsvFileName, CsvColumns<string>][] = [
      ['declaration', DECLARATION_COLUMNS],
      ['products', PRODUCT_COLUMNS],
      ['sales', SALE_COLUMNS],
      ['clients', IMPORT_COLUMNS],
    ];
    for (const [file, spec] of readers) {
      expect(spec.columns).toEqual(FILES[file]);
      for (const column of spec.columns)
        expect([file, column, spec.names[column].slice(0, 2)]).toEqual([
          file,
          column,
          [words(file, 'en')[column], words(file, 'fr')[column]],
        ]);
    }
  });

  it('keep the French words the files clients exchange already carry', () => {
    const fr = (file: CsvFileName, columns: readonly string[]) => csvHeader(file, columns as never, 'fr').join(';');
    expect(fr('declaration', DECLARATION_CSV_COLUMNS)).toBe('filière;matériau;unité;quantité');
    expect(fr('periodExport', PERIOD_CSV_COLUMNS)).toBe(
      'période;identifiant client;société;pays;IDU;identifiant de déclaration;révision;reçu;date de dépôt;filière;matériau;catégorie de matériau;unité;quantité;éco-organisme',
    );
    expect(fr('annualExport', FILES.annualExport)).toBe(
      'type;année;éco-organisme;identifiant client;société;pays;IDU;filière;matériau;catégorie de matériau;unité;quantité;reçu S1;reçu S2;semestres manquants;semestre',
    );
    expect(fr('productDetail', PRODUCT_COLUMN_CODES)).toBe(
      'référence produit;désignation du produit;GTIN;emballage applicable depuis;UVC vendues;grammes par élément;éléments par UVC;catégorie d’emballage;statut de réemploi',
    );
    expect(fr('products', PRODUCT_CSV_COLUMNS)).toBe(
      'référence;désignation;filière;gtin;à partir de;matériau;poids (g);nombre par UVC;catégorie d’emballage;statut de réemploi',
    );
    expect(fr('sales', SALE_CSV_COLUMNS)).toBe('référence;unités vendues');
    expect(fr('clients', IMPORT_CSV_COLUMNS)).toBe('identifiant client;raison sociale;e-mail;pays;offre;filières;IDU;langue');
  });

  it('still read « flux », the word French files used for a stream before the glossary chose « filière »', () => {
    expect(DECLARATION_COLUMNS.names.stream).toContain('flux');
    expect(PRODUCT_COLUMNS.names.stream).toContain('flux');
    expect(IMPORT_COLUMNS.names.streams).toContain('flux');
  });

  it('are written nowhere else in the code: no French header as a string of its own outside the catalogues', () => {
    // A reader's other spellings are its own; a word that is also another file's header may stay among them. Headers of one
    // plain word (type, pays, flux…) are too common a string to look for; accented ones, or of several words, are looked for.
    const readers: CsvColumns<string>[] = [DECLARATION_COLUMNS, PRODUCT_COLUMNS, SALE_COLUMNS, IMPORT_COLUMNS];
    const aliases = new Set(readers.flatMap((spec) => spec.columns.flatMap((column) => spec.names[column]!.slice(2))));
    const french = new Set(
      (Object.keys(FILES) as CsvFileName[]).flatMap((file) => Object.values(words(file, 'fr'))).filter((w) => !/^[a-z]+$/.test(w)),
    );
    const src = join(REPO_ROOT, 'src');
    const found = readdirSync(src, { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.ts') && !file.endsWith('.spec.ts') && !file.startsWith(join('i18n', 'messages')))
      .flatMap((file) =>
        [...readFileSync(join(src, file), 'utf8').matchAll(/(['"])([^'"\n]{1,60})\1/g)]
          .map((match) => match[2]!)
          .filter((text) => french.has(text) && !aliases.has(text))
          .map((text) => `src/${file}: ${text}`),
      );
    expect(found).toEqual([]);
  });
});
