/**
 * The declaration rules and the CSV reader give each problem the params its message needs: what
 * a person reads in French and in English is said from them (src/i18n), the API's English detail
 * is left as it was.
 */
import { CsvBody } from '../common/http/request-body.js';
import { type FieldError, ValidationProblem } from '../common/problem/problem.js';
import { fieldMessage, fieldPosition } from '../i18n/field-messages.js';
import { catalogueOf, householdPackaging } from '../reference/test-support.js';
import { pointAtCells, readDeclarationCsv } from './csv/declaration-csv.js';
import { type DeclarantContext, DeclarationValidator } from './declaration-validator.js';

const material = (code: string, fr: string, en: string) => ({ code, name: { fr, en }, verification: 'secondary_source' });

// A small catalogue of its own (the published data moves): EMB asks a count (uvc) with each mass
// (kg) and retired a category; CHR ended on 30 June 2026, replaced by EPRO.
const catalogue = catalogueOf(
  [
    householdPackaging({
      materials: [material('glass', 'Verre', 'Glass'), material('pet_tray', 'Barquettes en PET', 'PET trays')],
      retired_materials: [
        {
          code: 'plastic_pet',
          name: { fr: 'Plastique PET', en: 'PET plastic' },
          retired_in_catalogue_version: 2,
          replaced_by: ['pet_tray'],
        },
        // A replacement the catalogue does not name (the reference build refuses it): said by its code.
        { code: 'plastic_pe', name: { fr: 'Plastique PE', en: 'PE plastic' }, retired_in_catalogue_version: 2, replaced_by: ['pe_gone'] },
      ],
    }),
    {
      code: 'CHR',
      name: { fr: 'Emballages de la restauration', en: 'Food-service (restaurant) packaging' },
      declarable_from: '2023-01-01',
      declarable_until: '2026-06-30',
      replaced_by: 'EPRO',
      units: ['kg'],
      unit_requirements: [],
      materials: [material('glass', 'Verre', 'Glass')],
      retired_materials: [],
    },
  ],
  2,
);

const validator = new DeclarationValidator(catalogue);
const context: DeclarantContext = { confirmedStreams: ['EMB'], today: '2026-09-15' };
const problems = (body: unknown, at: DeclarantContext = context) => {
  const result = validator.validate(body, at);
  return result.ok ? [] : result.errors;
};
const said = (errors: FieldError[], language: 'fr' | 'en') =>
  errors.map((error) => [fieldPosition(language, error), fieldMessage(language, error)]);

describe('the params of a declaration’s problems', () => {
  it('name the line and field of each, and what the message needs', () => {
    const errors = problems({
      period: '2027-S1',
      lines: [
        { stream: 'EMB', material: 'Verre', unit: 'kg', quantity: 1.2345 },
        { stream: 'CHR', material: 'Verre', unit: 'kg', quantity: 3 },
        { stream: 'EMB', material: 'plastic_pet', unit: 'uvc', quantity: 1.5 },
        { stream: 'EMB', material: ' Verre ', unit: 'tonnes', quantity: '12' },
        { stream: 'EMBX', material: '', unit: 'kg', quantity: -1, colour: 'red' },
      ],
    });
    expect(errors.map(({ pointer, code, params }) => ({ pointer, code, params }))).toEqual([
      {
        pointer: '/period',
        code: 'period_not_started',
        params: { field: 'period', period: '2027-S1', start: '2027-01-01', current: '2026-S2' },
      },
      { pointer: '/lines/0/quantity', code: 'quantity_too_precise', params: { line: 1, field: 'quantity', unit: 'kg', decimals: 3 } },
      {
        pointer: '/lines/1/stream',
        code: 'stream_not_registered',
        params: {
          line: 2,
          field: 'stream',
          stream: 'CHR',
          streamName: { fr: 'Emballages de la restauration', en: 'Food-service (restaurant) packaging' },
          registered: ['EMB'],
        },
      },
      {
        pointer: '/lines/1/stream',
        code: 'stream_ended',
        params: {
          line: 2,
          field: 'stream',
          stream: 'CHR',
          streamName: { fr: 'Emballages de la restauration', en: 'Food-service (restaurant) packaging' },
          period: '2027-S1',
          until: '2026-06-30',
          replacedBy: 'EPRO',
        },
      },
      {
        pointer: '/lines/2/material',
        code: 'material_retired',
        params: {
          line: 3,
          field: 'material',
          stream: 'EMB',
          streamName: { fr: 'Emballages ménagers', en: 'Household packaging' },
          material: { fr: 'Plastique PET', en: 'PET plastic' },
          version: 2,
          replacedBy: [{ fr: 'Barquettes en PET', en: 'PET trays' }],
        },
      },
      { pointer: '/lines/2/quantity', code: 'quantity_too_precise', params: { line: 3, field: 'quantity', unit: 'uvc', decimals: 0 } },
      {
        pointer: '/lines/3/unit',
        code: 'unit_not_allowed',
        params: { line: 4, field: 'unit', value: 'tonnes', allowed: ['kg', 'uvc'], stream: 'EMB' },
      },
      { pointer: '/lines/3/quantity', code: 'quantity_not_a_number', params: { line: 4, field: 'quantity', actual: 'string' } },
      { pointer: '/lines/4/colour', code: 'unknown_field', params: { line: 5, field: 'colour' } },
      { pointer: '/lines/4/stream', code: 'unknown_stream', params: { line: 5, field: 'stream', value: 'EMBX', streams: ['EMB', 'CHR'] } },
      { pointer: '/lines/4/material', code: 'invalid_material', params: { line: 5, field: 'material', reason: 'empty' } },
      { pointer: '/lines/4/quantity', code: 'quantity_negative', params: { line: 5, field: 'quantity' } },
      {
        pointer: '/lines/0/unit',
        code: 'companion_line_missing',
        params: {
          line: 1,
          field: 'unit',
          stream: 'EMB',
          streamName: { fr: 'Emballages ménagers', en: 'Household packaging' },
          unit: 'kg',
          requires: 'uvc',
          material: 'Verre',
        },
      },
    ]);
    expect(said(errors, 'fr').slice(0, 2)).toEqual([
      [
        'Semestre',
        'Le semestre 2027-S1 n’a pas encore commencé\u00a0: il s’ouvre le 1er janvier 2027. Déclarez-le une fois commencé, ou choisissez un semestre déjà ouvert, par exemple 2026-S2.',
      ],
      ['Ligne 1, quantité', 'Une quantité en kg a au plus 3 décimales (au gramme près), par exemple 1\u202f200,125.'],
    ]);
    expect(said(errors, 'en')[4]).toEqual([
      'Line 3, material',
      'The category “PET plastic” is no longer used for Household packaging (EMB) since version 2 of the reference data. Declare it under “PET trays”.',
    ]);
    for (const language of ['fr', 'en'] as const) expect(said(errors, language).flat().join('\n')).not.toMatch(/undefined|NaN|\/lines|"/);
  });

  it('of the whole body, its period and its lines', () => {
    expect(problems([], { confirmedStreams: null, today: '2026-03-01' }).map(({ code, params }) => ({ code, params }))).toStrictEqual([
      { code: 'account_not_confirmed', params: {} },
      { code: 'invalid_type', params: { expected: 'object', actual: 'array' } },
    ]);
    const errors = problems({ period: '2021-S2', lines: [7], note: 1 });
    expect(errors.map(({ code, params }) => ({ code, params }))).toStrictEqual([
      { code: 'unknown_field', params: { field: 'note' } },
      { code: 'period_too_early', params: { field: 'period', earliest: '2022-S1' } },
      { code: 'invalid_type', params: { line: 1, expected: 'object', actual: 'number' } },
    ]);
    expect(said(errors, 'fr')[2]![0]).toBe('Ligne 1');
    expect(problems({ period: 2025, lines: 'x' }).map(({ params }) => params)).toEqual([
      { field: 'period', expected: 'string', actual: 'number' },
      { field: 'lines', expected: 'array', actual: 'string' },
    ]);
    expect(problems({ period: '2025-1', lines: [] }).map(({ params }) => params)).toEqual([
      { field: 'period', value: '2025-1' },
      { field: 'lines', min: 1 },
    ]);
    expect(problems({ period: 'x'.repeat(50), lines: [] })[0]!.params).toEqual({ field: 'period', value: `${'x'.repeat(39)}…` });
    expect(problems({ period: 'x'.repeat(40), lines: [] })[0]!.params).toEqual({ field: 'period', value: 'x'.repeat(40) });
    expect(
      problems({
        period: '2025-S1',
        lines: Array.from({ length: 1001 }, (_, i) => ({ stream: 'EMB', material: `m${i}`, unit: 'uvc', quantity: 1 })),
      })[0]!.params,
    ).toEqual({
      field: 'lines',
      max: 1000,
      count: 1001,
    });
    expect(problems({ period: '2026-S2', lines: [] }, { confirmedStreams: ['EMB'], today: '2026-03-01' })[0]!.params).toMatchObject({
      current: '2026-S1',
    });
    expect(problems({ period: '2026-S2', lines: [] }, { confirmedStreams: ['EMB'], today: '2026-06-30' })[0]!.params).toMatchObject({
      current: '2026-S1',
    });
    expect(problems({ period: '2027-S1', lines: [] }, { confirmedStreams: ['EMB'], today: '2026-07-01' })[0]!.params).toMatchObject({
      current: '2026-S2',
    });
  });

  it('of a line’s fields of the wrong kind, too long or with control characters', () => {
    const errors = problems({
      period: '2025-S1',
      lines: [
        { stream: 1, material: ['x'], unit: null, quantity: 1e13 },
        { stream: 'EMB', material: 'x'.repeat(121), unit: 'uvc', quantity: 1 },
        { stream: 'EMB', material: 'a\u200bb', unit: 'uvc', quantity: 1 },
      ],
    });
    expect(errors.map(({ code, params }) => ({ code, params }))).toEqual([
      { code: 'invalid_type', params: { line: 1, field: 'stream', expected: 'string', actual: 'number' } },
      { code: 'invalid_type', params: { line: 1, field: 'material', expected: 'string', actual: 'array' } },
      { code: 'invalid_type', params: { line: 1, field: 'unit', expected: 'string', actual: 'null' } },
      { code: 'quantity_too_large', params: { line: 1, field: 'quantity', max: 1e12 } },
      { code: 'invalid_material', params: { line: 2, field: 'material', reason: 'too_long', max: 120, length: 121 } },
      { code: 'invalid_material', params: { line: 3, field: 'material', reason: 'characters' } },
    ]);
  });

  it('count lines from 1, past the tenth too', () => {
    const lines = Array.from({ length: 12 }, (_, i) => ({ stream: 'EMB', material: `m${i}`, unit: 'uvc', quantity: i === 11 ? -1 : 1 }));
    expect(problems({ period: '2025-S1', lines }).map(({ params }) => params)).toStrictEqual([{ line: 12, field: 'quantity' }]);
  });

  it('of a retired category whose replacement the catalogue does not name', () => {
    expect(
      problems({ period: '2025-S1', lines: [{ stream: 'EMB', material: 'plastic_pe', unit: 'uvc', quantity: 1 }] })[0]!.params,
    ).toMatchObject({
      material: { fr: 'Plastique PE', en: 'PE plastic' },
      replacedBy: [{ fr: 'pe_gone', en: 'pe_gone' }],
    });
  });

  it('of a stream not yet declarable', () => {
    expect(
      problems(
        { period: '2022-S2', lines: [{ stream: 'CHR', material: 'Verre', unit: 'kg', quantity: 1 }] },
        { confirmedStreams: ['CHR'], today: '2026-01-01' },
      )[0]!.params,
    ).toEqual({
      line: 1,
      field: 'stream',
      stream: 'CHR',
      streamName: { fr: 'Emballages de la restauration', en: 'Food-service (restaurant) packaging' },
      period: '2022-S2',
      from: '2023-01-01',
    });
  });

  it('of duplicate lines: the others by their number, five at most, and how many more', () => {
    const line = { stream: 'EMB', material: 'Verre', unit: 'uvc', quantity: 1 };
    expect(
      problems({ period: '2025-S1', lines: [line, { ...line, material: 'glass' }, { ...line, material: 'VERRE' }] })[0]!.params,
    ).toEqual({ line: 1, lines: [3], more: 0 });
    const many = problems({ period: '2025-S1', lines: Array.from({ length: 8 }, () => line) })[0]!;
    expect(many.params).toEqual({ line: 1, lines: [2, 3, 4, 5, 6], more: 2 });
    expect(fieldMessage('fr', many)).toMatch(
      /^Cette ligne reprend la filière, le matériau et l’unité des lignes 2, 3, 4, 5, 6 et 2 autres\./,
    );
  });
});

describe('the params of a CSV file’s problems', () => {
  const read = (text: string) => readDeclarationCsv(new CsvBody(Buffer.from(text), undefined), '2025-S1', 3);
  const refused = (text: string): FieldError[] => {
    try {
      read(text);
    } catch (error) {
      if (error instanceof ValidationProblem) return error.errors;
      throw error;
    }
    throw new Error('the file was read');
  };

  it('name the column or row of the file', () => {
    expect(refused('flux;poids;unité;unité\n').map(({ code, row, params }) => ({ code, row, params }))).toEqual([
      { code: 'unknown_column', row: 1, params: { name: 'poids', column: 2 } },
      { code: 'missing_column', row: 1, params: { column: 'material' } },
      { code: 'duplicate_column', row: 1, params: { column: 'unit', count: 2 } },
      { code: 'missing_column', row: 1, params: { column: 'quantity' } },
    ]);
    expect(refused('a\tb\n')[0]!.params).toEqual({ reason: 'no_columns', tabs: true });
    expect(refused('stream;material,unit;quantity,stream\n')[0]!.params).toEqual({ reason: 'both_separators', tabs: false });
    expect(refused('stream;material;unit;quantity\nEMB;"Verre;kg;1\n')[0]!.params).toEqual({ reason: 'quote_not_closed' });
    expect(refused('stream;material;unit;quantity\nEMB;Ver"re;kg;1\n')[0]!.params).toEqual({ reason: 'quotes' });
    expect(fieldPosition('fr', refused('flux;poids;unité;quantité\n')[0]!)).toBe('Ligne 1 du fichier');
  });

  it('of the cells, and of the rules pointed at the cells', () => {
    const sheet = read(
      'flux;matériau;unité;quantité\nEMB;Verre;uvc;1 200 uvc\nEMB;Verre;uvc;2;x\nEMB;Verre;uvc;3\nEMB;Bois;uvc;4\nEMB;Fer;uvc;5\n',
    );
    expect(sheet.errors.map(({ code, row, params }) => ({ code, row, params }))).toEqual([
      { code: 'number_has_unit', row: 2, params: { field: 'quantity', value: '1 200 uvc' } },
      { code: 'too_many_cells', row: 3, params: { cells: 5, columns: 4, delimiter: ';' } },
      { code: 'too_many_lines', row: 5, params: { max: 3 } },
    ]);
    const errors = pointAtCells(sheet, problems(sheet.body));
    const duplicate = errors.find((error) => error.code === 'duplicate_line')!;
    expect(duplicate).toMatchObject({ pointer: '/rows/2', row: 2, params: { rows: [3, 4], more: 0 } });
    expect(duplicate.params).not.toHaveProperty('line');
    expect([fieldPosition('fr', duplicate), fieldMessage('fr', duplicate)]).toEqual([
      'Ligne 2 du fichier',
      'Cette ligne reprend la filière, le matériau et l’unité des lignes 3 et 4 du fichier. Additionnez leurs quantités sur une seule ligne, par exemple 1\u202f200,5 plutôt que 1\u202f000 et 200,5.',
    ]);
    const period = pointAtCells(sheet, problems({ ...sheet.body, period: '2025' })).find((error) => error.pointer === '/query/period')!;
    expect(period.params).toEqual({ field: 'period', value: '2025' });
    expect(
      fieldPosition(
        'en',
        errors.find((error) => error.code === 'number_has_unit')!,
      ),
    ).toBe('Row 2 of the file, quantity column');
  });

  it('cut a long cell to 40 characters', () => {
    expect(read(`stream,material,unit,quantity\nEMB,Verre,uvc,${'9'.repeat(45)}x\n`).errors[0]!.params).toEqual({
      field: 'quantity',
      value: `${'9'.repeat(39)}…`,
    });
  });
});
