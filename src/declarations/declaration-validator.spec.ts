import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../common/repo-root.js';
import type { PricingDocument, ReferenceDocuments, Stream, StreamsDocument } from '../reference/reference-documents.js';
import { ExactNumber } from '../common/http/json-body.js';
import { ReferenceCatalogue } from '../reference/reference-catalogue.js';
import {
  contentHash,
  type DeclarantContext,
  DeclarationValidator,
  exactDecimal,
  MAX_UNITS_SOLD,
  type ValidationResult,
} from './declaration-validator.js';

function stream(code: string, declarableFrom: string, units: Stream['units'], materials: [string, string, string][]): Stream {
  return {
    code,
    declarable_from: declarableFrom,
    declarable_until: null,
    replaced_by: null,
    units,
    unit_requirements: [],
    materials: materials.map(([c, fr, en]) => ({ code: c, name: { fr, en }, verification: 'secondary_source' })),
    retired_materials: [],
  } as unknown as Stream;
}

// A small catalogue of its own, so that these rules do not move when the published data does.
const catalogue = new ReferenceCatalogue({
  pricing: { plans: [] },
  streams: {
    catalogue_version: 1,
    units: [
      { code: 'kg', kind: 'mass', name: { fr: 'kilogramme', en: 'kilogram' }, decimals: 3 },
      { code: 'unit', kind: 'count', name: { fr: 'unité', en: 'unit' }, decimals: 0 },
    ],
    streams: [
      stream(
        'EMB',
        '2022-01-01',
        ['kg'],
        [
          ['glass', 'Verre', 'Glass'],
          ['paper_cardboard', 'Papier-carton', 'Paper and cardboard'],
        ],
      ),
      stream('EPRO', '2026-01-01', ['kg'], [['wood', 'Bois', 'Wood']]),
      stream('CNT', '2023-03-15', ['unit'], []),
    ],
  },
} as unknown as Pick<ReferenceDocuments, 'pricing' | 'streams'>);

const validator = new DeclarationValidator(catalogue);
const context: DeclarantContext = { confirmedStreams: ['EMB', 'EPRO', 'CNT'], today: '2026-07-01' };
const line = (overrides: Record<string, unknown> = {}) => ({ stream: 'EMB', material: 'Verre', unit: 'kg', quantity: 1200, ...overrides });
const body = (overrides: Record<string, unknown> = {}) => ({ period: '2025-S1', lines: [line()], ...overrides });

function errorsOf(result: ValidationResult) {
  if (result.ok) throw new Error('expected a validation failure');
  return result.errors.map(({ pointer, code }) => ({ pointer, code }));
}

describe('DeclarationValidator', () => {
  it('accepts a valid declaration and normalises it', () => {
    const result = validator.validate(
      body({
        lines: [
          line({ material: '  glass ' }),
          line({ material: 'Custom foil', quantity: 0.125 }),
          line({ stream: 'CNT', material: 'Crates', unit: 'unit', quantity: 3 }),
        ],
      }),
      context,
    );
    expect(result).toEqual({
      ok: true,
      declaration: {
        period: '2025-S1',
        catalogueVersion: 1,
        contentHash: expect.stringMatching(/^[0-9a-f]{64}$/),
        identityHash: expect.stringMatching(/^[0-9a-f]{64}$/),
        lines: [
          { stream: 'EMB', material: 'glass', materialCode: 'glass', unit: 'kg', quantity: '1200' },
          { stream: 'EMB', material: 'Custom foil', materialCode: null, unit: 'kg', quantity: '0.125' },
          { stream: 'CNT', material: 'Crates', materialCode: null, unit: 'unit', quantity: '3' },
        ],
        unitsSold: [],
      },
    });
  });

  describe('units sold', () => {
    const counted = [
      line({ stream: 'CNT', material: 'Verre', unit: 'unit', quantity: 95000 }),
      line({ stream: 'CNT', material: 'Carton', unit: 'unit', quantity: 85000 }),
    ];

    it('states the units sold once per stream that counts units, stored in stream order', () => {
      const result = validator.validate(body({ lines: counted, units_sold: [{ stream: 'CNT', quantity: 100000 }] }), context);
      expect(result.ok && result.declaration.unitsSold).toEqual([{ stream: 'CNT', quantity: '100000' }]);
    });

    it('stores them in stream order, whatever order they are sent in', () => {
      const twoCounted = new DeclarationValidator(
        new ReferenceCatalogue({
          pricing: { plans: [] },
          streams: {
            catalogue_version: 1,
            units: [{ code: 'unit', kind: 'count', name: { fr: 'unité', en: 'unit' }, decimals: 0 }],
            streams: [stream('CNT', '2023-03-15', ['unit'], []), stream('ABC', '2023-03-15', ['unit'], [])],
          },
        } as unknown as Pick<ReferenceDocuments, 'pricing' | 'streams'>),
      );
      const lines = ['CNT', 'ABC'].map((code) => line({ stream: code, material: 'Verre', unit: 'unit', quantity: 10 }));
      const sold = [
        { stream: 'CNT', quantity: 30 },
        { stream: 'ABC', quantity: 20 },
      ];
      for (const units_sold of [sold, [...sold].reverse()]) {
        const result = twoCounted.validate(body({ lines, units_sold }), { confirmedStreams: ['CNT', 'ABC'], today: '2026-07-01' });
        expect(result.ok && result.declaration.unitsSold).toEqual([
          { stream: 'ABC', quantity: '20' },
          { stream: 'CNT', quantity: '30' },
        ]);
      }
    });

    it('are at least the largest count of a material, compared as numbers of any length', () => {
      const codes = (quantity: number) => {
        const result = validator.validate(body({ lines: counted, units_sold: [{ stream: 'CNT', quantity }] }), context);
        return result.ok ? [] : result.errors.map((error) => error.code);
      };
      // The counts are 95,000 (Verre) and 85,000 (Carton).
      expect(codes(95000)).toEqual([]);
      expect(codes(1000000)).toEqual([]);
      expect(codes(94999)).toEqual(['units_sold_below_material_count']);
      expect(codes(90000)).toEqual(['units_sold_below_material_count']);
      expect(codes(9999)).toEqual(['units_sold_below_material_count']);
      const reversed = validator.validate(
        body({ lines: [...counted].reverse(), units_sold: [{ stream: 'CNT', quantity: 90000 }] }),
        context,
      );
      expect(reversed.ok ? [] : reversed.errors.map((error) => error.params)).toEqual([
        expect.objectContaining({ count: '95000', material: 'Verre', line: 2 }),
      ]);
    });

    it("is part of the content: with units sold the hash differs, without them it is the lines' alone", () => {
      const without = validator.validate(body({ lines: counted }), context);
      const empty = validator.validate(body({ lines: counted, units_sold: [] }), context);
      const with_ = validator.validate(body({ lines: counted, units_sold: [{ stream: 'CNT', quantity: 100000 }] }), context);
      const other = validator.validate(body({ lines: counted, units_sold: [{ stream: 'CNT', quantity: 100001 }] }), context);
      if (!without.ok || !empty.ok || !with_.ok || !other.ok) throw new Error('expected valid declarations');
      expect(without.declaration.contentHash).toBe(contentHash(without.declaration.lines));
      expect(empty.declaration.contentHash).toBe(without.declaration.contentHash);
      expect(with_.declaration.contentHash).not.toBe(without.declaration.contentHash);
      expect(other.declaration.contentHash).not.toBe(with_.declaration.contentHash);
    });

    it('refuses units sold below a material count, twice, for a stream without counts or lines, and what is no entry', () => {
      const result = validator.validate(
        body({
          lines: [...counted, line()],
          units_sold: [
            { stream: 'CNT', quantity: 90000 },
            { stream: 'CNT', quantity: 100000 },
            { stream: 'EMB', quantity: 5 },
            { stream: 'CNT', quantity: 1.5, extra: 1 },
            'x',
          ],
        }),
        context,
      );
      expect(errorsOf(result)).toEqual([
        { pointer: '/units_sold/0/quantity', code: 'units_sold_below_material_count' },
        { pointer: '/units_sold/1/stream', code: 'duplicate_units_sold' },
        { pointer: '/units_sold/2/stream', code: 'units_sold_not_counted' },
        { pointer: '/units_sold/3/extra', code: 'unknown_field' },
        { pointer: '/units_sold/3/quantity', code: 'quantity_too_precise' },
        { pointer: '/units_sold/4', code: 'invalid_type' },
      ]);
      expect(errorsOf(validator.validate(body({ units_sold: [{ stream: 'CNT', quantity: 1 }] }), context))).toEqual([
        { pointer: '/units_sold/0/stream', code: 'units_sold_without_lines' },
      ]);
      expect(errorsOf(validator.validate(body({ units_sold: {} }), context))).toEqual([{ pointer: '/units_sold', code: 'invalid_type' }]);
    });
  });

  it('recognises a material category by code, French or English name, case-insensitively', () => {
    const result = validator.validate(
      body({
        lines: ['PAPER_CARDBOARD', 'papier-carton', 'Paper and Cardboard'].map((material, i) =>
          line({ material, unit: 'kg', quantity: i }),
        ),
      }),
      context,
    );
    // The material is kept as given; the category is recorded beside it.
    expect(result.ok && result.declaration.lines.map((l) => [l.material, l.materialCode])).toEqual([
      ['PAPER_CARDBOARD', 'paper_cardboard'],
      ['papier-carton', 'paper_cardboard'],
      ['Paper and Cardboard', 'paper_cardboard'],
    ]);
  });

  describe('body', () => {
    it.each([
      ['an array', []],
      ['a string', 'x'],
      ['null', null],
    ])('refuses %s', (_name, value) => {
      expect(errorsOf(validator.validate(value, context))).toEqual([{ pointer: '', code: 'invalid_type' }]);
    });

    it('names unknown fields at the top and in lines', () => {
      expect(errorsOf(validator.validate({ ...body({ lines: [{ ...line(), colour: 'red', 'a/b': 1 }] }), note: 'x' }, context))).toEqual([
        { pointer: '/note', code: 'unknown_field' },
        { pointer: '/lines/0/colour', code: 'unknown_field' },
        { pointer: '/lines/0/a~1b', code: 'unknown_field' },
      ]);
    });

    it('requires every field and reports all at once', () => {
      expect(errorsOf(validator.validate({ lines: [{}] }, context))).toEqual([
        { pointer: '/period', code: 'required' },
        { pointer: '/lines/0/stream', code: 'required' },
        { pointer: '/lines/0/material', code: 'required' },
        { pointer: '/lines/0/unit', code: 'required' },
        { pointer: '/lines/0/quantity', code: 'required' },
      ]);
      expect(errorsOf(validator.validate({}, context))).toEqual([
        { pointer: '/period', code: 'required' },
        { pointer: '/lines', code: 'required' },
      ]);
    });

    it('refuses wrong types', () => {
      expect(
        errorsOf(validator.validate({ period: 2025, lines: [7, { stream: 1, material: [], unit: null, quantity: true }] }, context)),
      ).toEqual([
        { pointer: '/period', code: 'invalid_type' },
        { pointer: '/lines/0', code: 'invalid_type' },
        { pointer: '/lines/1/stream', code: 'invalid_type' },
        { pointer: '/lines/1/material', code: 'invalid_type' },
        { pointer: '/lines/1/unit', code: 'invalid_type' },
        { pointer: '/lines/1/quantity', code: 'quantity_not_a_number' },
      ]);
      expect(errorsOf(validator.validate(body({ lines: {} }), context))).toEqual([{ pointer: '/lines', code: 'invalid_type' }]);
    });
  });

  describe('period', () => {
    it.each(['2025-s1', '2025-S3', '2025S1', ' 2025-S1', '25-S1', '2025-S1x', '2025-H1', ''])('refuses the format %j', (period) => {
      expect(errorsOf(validator.validate(body({ period }), context))).toEqual([{ pointer: '/period', code: 'invalid_period_format' }]);
    });

    it('refuses years before the earliest declarable_from of the streams data', () => {
      expect(validator.earliestYear).toBe(2022);
      expect(errorsOf(validator.validate(body({ period: '2021-S2' }), context))).toEqual([
        { pointer: '/period', code: 'period_too_early' },
        // The stream rule still reports, independently.
        { pointer: '/lines/0/stream', code: 'stream_not_declarable_for_period' },
      ]);
      expect(validator.validate(body({ period: '2022-S1' }), context).ok).toBe(true);
    });

    it('refuses a half-year that has not started in France, saying when it opens', () => {
      const result = validator.validate(body({ period: '2026-S2' }), { ...context, today: '2026-06-30' });
      expect(errorsOf(result)).toEqual([{ pointer: '/period', code: 'period_not_started' }]);
      expect(result.ok || result.errors[0]!.detail).toContain('2026-07-01');
      expect(validator.validate(body({ period: '2026-S2' }), { ...context, today: '2026-07-01' }).ok).toBe(true);
      expect(validator.validate(body({ period: '2027-S1' }), { ...context, today: '2026-12-31' }).ok).toBe(false);
      expect(validator.validate(body({ period: '2027-S1' }), { ...context, today: '2027-01-01' }).ok).toBe(true);
    });
  });

  describe('lines', () => {
    it('needs at least one line', () => {
      expect(errorsOf(validator.validate(body({ lines: [] }), context))).toEqual([{ pointer: '/lines', code: 'too_few_lines' }]);
    });

    it('accepts 1000 lines and refuses 1001', () => {
      const lines = (n: number) => Array.from({ length: n }, (_, i) => line({ material: `m${i}` }));
      expect(validator.validate(body({ lines: lines(1000) }), context).ok).toBe(true);
      expect(errorsOf(validator.validate(body({ lines: lines(1001) }), context))).toEqual([{ pointer: '/lines', code: 'too_many_lines' }]);
    });

    it('caps the number of problems listed', () => {
      const result = validator.validate(body({ lines: Array.from({ length: 1000 }, () => ({ a: 1, b: 2 })) }), context);
      expect(result.ok).toBe(false);
      if (!result.ok) {
        expect(result.errors).toHaveLength(1000);
        expect(result.total).toBe(6000);
      }
    });
  });

  describe('stream', () => {
    it('distinguishes an unknown stream from one the account is not registered for', () => {
      const result = validator.validate(
        body({ lines: [line({ stream: 'XYZ' }), line({ stream: 'emb' }), line({ stream: 'CNT', unit: 'unit' })] }),
        {
          ...context,
          confirmedStreams: ['EMB'],
        },
      );
      expect(errorsOf(result)).toEqual([
        { pointer: '/lines/0/stream', code: 'unknown_stream' },
        { pointer: '/lines/1/stream', code: 'unknown_stream' },
        { pointer: '/lines/2/stream', code: 'stream_not_registered' },
      ]);
    });

    it('refuses a stream for a period that ends before its declarable_from', () => {
      expect(errorsOf(validator.validate(body({ lines: [line({ stream: 'EPRO' })] }), context))).toEqual([
        { pointer: '/lines/0/stream', code: 'stream_not_declarable_for_period' },
      ]);
      expect(validator.validate(body({ period: '2026-S1', lines: [line({ stream: 'EPRO' })] }), context).ok).toBe(true);
      // Opening mid-period: the period counts as soon as it ends on or after the date.
      expect(validator.validate(body({ period: '2023-S1', lines: [line({ stream: 'CNT', unit: 'unit' })] }), context).ok).toBe(true);
      expect(validator.validate(body({ period: '2022-S2', lines: [line({ stream: 'CNT', unit: 'unit' })] }), context).ok).toBe(false);
    });

    it('refuses everything for an account that was never confirmed, without per-stream noise', () => {
      expect(errorsOf(validator.validate(body(), { ...context, confirmedStreams: null }))).toEqual([
        { pointer: '', code: 'account_not_confirmed' },
      ]);
    });
  });

  describe('material', () => {
    it.each([
      ['empty', ''],
      ['blank', '   '],
      ['121 characters', 'x'.repeat(121)],
      ['a control character', 'Ver\u0000re'],
      ['a line break', 'Ver\nre'],
      ['a tab', 'Ver\tre'],
      ['a lone surrogate', 'Ver\ud800re'],
      ['a zero-width space (U+200B)', 'Ve\u200brre'],
      ['a right-to-left override (U+202E)', '\u202eerreV'],
      ['a lone zero-width joiner (U+200D)', 'Verre\u200d'],
      ['a byte-order mark inside (U+FEFF)', 'Ver\ufeffre'],
      ['a line separator (U+2028)', 'Ver\u2028re'],
      ['a paragraph separator (U+2029)', 'Ver\u2029re'],
    ])('refuses %s', (_name, material) => {
      expect(errorsOf(validator.validate(body({ lines: [line({ material })] }), context))).toEqual([
        { pointer: '/lines/0/material', code: 'invalid_material' },
      ]);
    });

    it('counts characters, not UTF-16 units, and trims before counting', () => {
      expect(validator.validate(body({ lines: [line({ material: ` ${'é'.repeat(60)}${'😀'.repeat(60)} ` })] }), context).ok).toBe(true);
    });
  });

  describe('unit', () => {
    it('allows only the units the streams data gives for the stream', () => {
      expect(
        errorsOf(
          validator.validate(
            body({
              lines: [line({ unit: 'unit' }), line({ unit: 'KG', material: 'b' }), line({ stream: 'XYZ', unit: 'tons', material: 'c' })],
            }),
            context,
          ),
        ),
      ).toEqual([
        { pointer: '/lines/0/unit', code: 'unit_not_allowed' },
        { pointer: '/lines/1/unit', code: 'unit_not_allowed' },
        { pointer: '/lines/2/stream', code: 'unknown_stream' },
        { pointer: '/lines/2/unit', code: 'unit_not_allowed' },
      ]);
    });
  });

  describe('quantity', () => {
    it.each([
      ['1.50e3', '1500'],
      ['0.0010', '0.001'],
      ['-0', '0'],
      ['1000000000000.000', '1000000000000'],
      ['12.500000000000000000001e-1', undefined],
    ])('stores %s exactly as %s', (written, stored) => {
      const result = validator.validate(body({ lines: [line({ quantity: new ExactNumber(written) })] }), context);
      expect(result.ok ? result.declaration.lines[0]!.quantity : undefined).toBe(stored);
    });

    it.each([
      ['a numeric string', '1200', 'quantity_not_a_number'],
      ['null', null, 'quantity_not_a_number'],
      ['negative', -0.001, 'quantity_negative'],
      ['-Infinity (JSON -1e400)', -Infinity, 'quantity_negative'],
      ['over 10^12', 1e12 + 0.001, 'quantity_too_large'],
      ['Infinity (JSON 1e400)', Infinity, 'quantity_too_large'],
      ['4 decimals in kg', 0.0001, 'quantity_too_precise'],
      ['tiny in kg', 1e-7, 'quantity_too_precise'],
      ['1.0005 kg', 1.0005, 'quantity_too_precise'],
      // As written in the JSON text, not as a double rounds them (0.001 and 1e12).
      ['0.0009999999999999999999 kg', new ExactNumber('0.0009999999999999999999'), 'quantity_too_precise'],
      ['999999999999.99999 kg', new ExactNumber('999999999999.99999'), 'quantity_too_precise'],
      ['1000000000000.0000000000000001', new ExactNumber('1000000000000.0000000000000001'), 'quantity_too_large'],
      ['1e400', new ExactNumber('1e400'), 'quantity_too_large'],
      ['-1e-400', new ExactNumber('-1e-400'), 'quantity_negative'],
    ])('refuses %s', (_name, quantity, code) => {
      expect(errorsOf(validator.validate(body({ lines: [line({ quantity })] }), context))).toEqual([
        { pointer: '/lines/0/quantity', code },
      ]);
    });

    it('needs whole numbers for count units', () => {
      expect(errorsOf(validator.validate(body({ lines: [line({ stream: 'CNT', unit: 'unit', quantity: 1.5 })] }), context))).toEqual([
        { pointer: '/lines/0/quantity', code: 'quantity_too_precise' },
      ]);
    });

    it.each([
      [0, '0'],
      [-0, '0'],
      [0.001, '0.001'],
      [0.1, '0.1'],
      [1e12, '1000000000000'],
      [999999999999.999, '999999999999.999'],
    ])('keeps %p exactly as %p', (quantity, text) => {
      const result = validator.validate(body({ lines: [line({ quantity })] }), context);
      expect(result.ok && result.declaration.lines[0]!.quantity).toBe(text);
    });
  });

  describe('duplicates', () => {
    it('reports a duplicate group once, at its first line, naming the others (material trimmed, case-insensitive)', () => {
      const result = validator.validate(
        body({
          lines: [
            line({ material: 'Verre' }),
            line({ material: 'Bois' }),
            line({ material: ' verre ' }),
            line({ material: 'VERRE', quantity: 1 }),
          ],
        }),
        context,
      );
      expect(errorsOf(result)).toEqual([{ pointer: '/lines/0', code: 'duplicate_line' }]);
      expect(result.ok || result.errors[0]!.detail).toContain('/lines/2, /lines/3');
    });

    it('a group of two: one problem, at the first line, naming the second', () => {
      const result = validator.validate(
        body({ lines: [line({ material: 'Verre' }), line({ material: 'Bois' }), line({ material: ' verre ' })] }),
        context,
      );
      expect(errorsOf(result)).toEqual([{ pointer: '/lines/0', code: 'duplicate_line' }]);
      expect(result.ok || result.errors[0]!.detail).toContain('/lines/2');
    });

    it('1000 identical lines: one problem of bounded size', () => {
      const result = validator.validate(body({ lines: Array.from({ length: 1000 }, () => line()) }), context);
      expect(errorsOf(result)).toEqual([{ pointer: '/lines/0', code: 'duplicate_line' }]);
      expect(result.ok || result.errors[0]!.detail).toMatch(/\/lines\/5 and 994 more lines$/);
      expect(result.ok || result.errors[0]!.detail.length).toBeLessThan(200);
    });

    it.each([
      ['full-width letters', 'Ｖｅｒｒｅ'],
      ['a ligature', 'ﬁlm', 'film'],
      ['a decomposed accent', 'Carton ondule\u0301', 'Carton ondulé'],
      ['sharp s against SS', 'Straße', 'STRASSE'],
    ])('compares materials after NFKC normalisation and case folding: %s', (_name, material, other = 'Verre') => {
      expect(errorsOf(validator.validate(body({ lines: [line({ material: other }), line({ material })] }), context))).toEqual([
        { pointer: '/lines/0', code: 'duplicate_line' },
      ]);
    });

    it('allows the same material in another stream', () => {
      expect(validator.validate(body({ period: '2026-S1', lines: [line(), line({ stream: 'EPRO' })] }), context).ok).toBe(true);
    });
  });

  describe('content hash', () => {
    it('does not depend on line order, and does depend on every value', () => {
      const a = { stream: 'EMB', material: 'Verre', materialCode: 'glass', unit: 'kg' as const, quantity: '1' };
      const b = { ...a, material: 'Bois', materialCode: null };
      expect(contentHash([a, b])).toBe(contentHash([b, a]));
      expect(contentHash([a, b])).not.toBe(contentHash([a, { ...b, quantity: '1.5' }]));
      expect(contentHash([a])).not.toBe(contentHash([{ ...a, material: 'verre' }]));
    });

    it('is the hash stored by earlier releases (identical resubmissions of stored revisions stay recognised)', () => {
      const line = (material: string, quantity: string) => ({ stream: 'EMB', material, materialCode: null, unit: 'kg' as const, quantity });
      const lines = [
        line('glass', '1200.5'),
        line('Papier-carton "kraft"', '0.125'),
        line('Bouteille à eau 💧', '0'),
        line('aluminium', '1000000000000'),
      ];
      // Computed with the first release's implementation (lines sorted by comparing their canonical JSON).
      expect(contentHash(lines)).toBe('394202073e9bea39eaa8c02780b8793e079c4a0636720c170e4401edf247f96b');
      expect(contentHash([...lines].reverse())).toBe(contentHash(lines));
    });
  });
});

describe('DeclarationValidator, in words: every problem says what is wrong and what to send', () => {
  const problems = (value: unknown, ctx: DeclarantContext = context) => {
    const result = validator.validate(value, ctx);
    if (result.ok) throw new Error('expected a validation failure');
    return result.errors.map(({ pointer, code, detail }) => [pointer, code, detail]);
  };

  it('duplicates are lines with a stream and a unit to compare: lines with wrong types are not duplicates', () => {
    expect(problems(body({ lines: [line({ stream: 5 }), line({ stream: 5 })] })).map(([pointer, code]) => [pointer, code])).toEqual([
      ['/lines/0/stream', 'invalid_type'],
      ['/lines/1/stream', 'invalid_type'],
    ]);
    expect(problems(body({ lines: [line({ unit: 5 }), line({ unit: 5 })] })).map(([pointer, code]) => [pointer, code])).toEqual([
      ['/lines/0/unit', 'invalid_type'],
      ['/lines/1/unit', 'invalid_type'],
    ]);
  });

  it('reads the earliest year and the published units from the streams data it is given', () => {
    const fresh = new DeclarationValidator(catalogue);
    expect(fresh.earliestYear).toBe(2022);
    expect(fresh.validate(body({ lines: [line({ stream: 'XYZ', unit: 'unit' })] }), context)).toEqual({
      ok: false,
      total: 1,
      errors: [expect.objectContaining({ pointer: '/lines/0/stream', code: 'unknown_stream' })],
    });
  });

  it('the body', () => {
    expect(problems([1])).toEqual([['', 'invalid_type', 'the body must be a JSON object with period and lines, not array']]);
    expect(problems(null)).toEqual([['', 'invalid_type', 'the body must be a JSON object with period and lines, not null']]);
    expect(problems(5)).toEqual([['', 'invalid_type', 'the body must be a JSON object with period and lines, not number']]);
    expect(problems(body(), { ...context, confirmedStreams: null })).toEqual([
      [
        '',
        'account_not_confirmed',
        'your account has not been confirmed yet: declarations are accepted once the operator has confirmed your profile (GET /api/v1/me/obligations answers account_status "pending" until then)',
      ],
    ]);
    expect(problems('x', { ...context, confirmedStreams: null }).map(([, code]) => code)).toEqual([
      'account_not_confirmed',
      'invalid_type',
    ]);
    expect(problems({ ...body({ lines: [{ ...line(), colour: 'red' }] }), note: 'x' })).toEqual([
      ['/note', 'unknown_field', 'unknown field "note"'],
      ['/lines/0/colour', 'unknown_field', 'unknown field "colour"'],
    ]);
  });

  it('required fields and types', () => {
    expect(problems({ lines: [{}] })).toEqual([
      ['/period', 'required', 'period is required, e.g. "2025-S1"'],
      ['/lines/0/stream', 'required', 'stream is required'],
      ['/lines/0/material', 'required', 'material is required'],
      ['/lines/0/unit', 'required', 'unit is required'],
      ['/lines/0/quantity', 'required', 'quantity is required'],
    ]);
    expect(problems({ period: '2025-S1' })).toEqual([['/lines', 'required', 'lines is required: 1 to 1000 lines']]);
    expect(problems({ period: 2025, lines: [7, { stream: 1, material: [], unit: null, quantity: true }] })).toEqual([
      ['/period', 'invalid_type', 'period must be a string, not number'],
      ['/lines/0', 'invalid_type', 'each line must be an object with stream, material, unit and quantity, not number'],
      ['/lines/1/stream', 'invalid_type', 'stream must be a string, not number'],
      ['/lines/1/material', 'invalid_type', 'material must be a string, not array'],
      ['/lines/1/unit', 'invalid_type', 'unit must be a string, not null'],
      ['/lines/1/quantity', 'quantity_not_a_number', 'quantity must be a JSON number, not boolean'],
    ]);
    expect(problems({ period: null, lines: [null, { stream: null, material: 5, unit: 5, quantity: '12' }] })).toEqual([
      ['/period', 'invalid_type', 'period must be a string, not null'],
      ['/lines/0', 'invalid_type', 'each line must be an object with stream, material, unit and quantity, not null'],
      ['/lines/1/stream', 'invalid_type', 'stream must be a string, not null'],
      ['/lines/1/material', 'invalid_type', 'material must be a string, not number'],
      ['/lines/1/unit', 'invalid_type', 'unit must be a string, not number'],
      ['/lines/1/quantity', 'quantity_not_a_number', 'quantity must be a JSON number, not a string (send the number without quotes)'],
    ]);
    expect(problems(body({ period: new ExactNumber('2025.1000000000000000001') }))).toEqual([
      ['/period', 'invalid_type', 'period must be a string, not number'],
    ]);
    expect(problems(body({ lines: {} }))).toEqual([['/lines', 'invalid_type', 'lines must be an array, not object']]);
    expect(problems(body({ lines: 'x' }))).toEqual([['/lines', 'invalid_type', 'lines must be an array, not string']]);
  });

  it('the period', () => {
    expect(problems(body({ period: '2025-S3' }))).toEqual([
      ['/period', 'invalid_period_format', 'period must be a half-year written YYYY-S1 (1 Jan–30 Jun) or YYYY-S2 (1 Jul–31 Dec)'],
    ]);
    expect(problems(body({ period: '2021-S2' }))).toEqual([
      ['/period', 'period_too_early', 'the service accepts periods from 2022-S1'],
      ['/lines/0/stream', 'stream_not_declarable_for_period', 'EMB can be declared for periods ending on or after 2022-01-01, not 2021-S2'],
    ]);
    expect(problems(body({ period: '2026-S2' }), { ...context, today: '2026-06-30' })).toEqual([
      ['/period', 'period_not_started', '2026-S2 has not started: it opens on 2026-07-01'],
    ]);
  });

  it('the number of lines', () => {
    expect(problems(body({ lines: [] }))).toEqual([['/lines', 'too_few_lines', 'a declaration has at least 1 line']]);
    const lines = Array.from({ length: 1001 }, (_, i) => line({ material: `m${i}` }));
    expect(problems(body({ lines }))).toEqual([
      ['/lines', 'too_many_lines', 'a declaration has at most 1000 lines, not 1001 (only the first 1000 were checked)'],
    ]);
    // The line past the first 1000 is not checked: its problems are not listed.
    expect(problems(body({ lines: [...lines.slice(0, 1000), { x: 1 }] })).map(([pointer]) => pointer)).toEqual(['/lines']);
  });

  it('the stream', () => {
    expect(
      problems(body({ lines: [line({ stream: 'XYZ' }), line({ stream: 'CNT', unit: 'unit' })] }), {
        ...context,
        confirmedStreams: ['EMB'],
      }),
    ).toEqual([
      ['/lines/0/stream', 'unknown_stream', '"XYZ" is not a published stream; streams: EMB, EPRO, CNT'],
      ['/lines/1/stream', 'stream_not_registered', 'the account is not registered for CNT (registered streams: EMB)'],
    ]);
    expect(problems(body(), { ...context, confirmedStreams: [] })).toEqual([
      ['/lines/0/stream', 'stream_not_registered', 'the account is not registered for EMB (registered streams: none)'],
    ]);
    expect(problems(body(), { ...context, confirmedStreams: ['CNT', 'EPRO'] })).toEqual([
      ['/lines/0/stream', 'stream_not_registered', 'the account is not registered for EMB (registered streams: CNT, EPRO)'],
    ]);
    expect(problems(body({ lines: [line({ stream: 'EPRO' })] }))).toEqual([
      [
        '/lines/0/stream',
        'stream_not_declarable_for_period',
        'EPRO can be declared for periods ending on or after 2026-01-01, not 2025-S1',
      ],
    ]);
  });

  it('the material', () => {
    expect(
      problems(
        body({
          lines: [
            line({ material: ' ' }),
            line({ material: 'x'.repeat(121) }),
            line({ material: 'a\u0000b' }),
            line({ material: 'a\udc00b' }),
          ],
        }),
      ),
    ).toEqual([
      ['/lines/0/material', 'invalid_material', 'material must not be empty'],
      ['/lines/1/material', 'invalid_material', 'material must be at most 120 characters, not 121'],
      ['/lines/2/material', 'invalid_material', 'material must be one line of text without control or invisible format characters'],
      ['/lines/3/material', 'invalid_material', 'material must be one line of text without control or invisible format characters'],
    ]);
  });

  it('the unit', () => {
    expect(problems(body({ lines: [line({ unit: 'unit' }), line({ stream: 'XYZ', unit: 'tons', material: 'c' })] }))).toEqual([
      ['/lines/0/unit', 'unit_not_allowed', 'unit must be "kg" for EMB, not "unit"'],
      ['/lines/1/stream', 'unknown_stream', '"XYZ" is not a published stream; streams: EMB, EPRO, CNT'],
      ['/lines/1/unit', 'unit_not_allowed', 'unit must be "kg" or "unit", not "tons"'],
    ]);
  });

  it('the quantity', () => {
    const quantities = [-1, 1e13, 0.0001, new ExactNumber('-1e400'), new ExactNumber('1e400')].map((quantity, i) =>
      line({ quantity, material: `m${i}` }),
    );
    expect(
      problems(body({ lines: [line({ quantity: null }), ...quantities, line({ stream: 'CNT', unit: 'unit', quantity: 1.5 })] })),
    ).toEqual([
      ['/lines/0/quantity', 'quantity_not_a_number', 'quantity must be a JSON number, not null'],
      ['/lines/1/quantity', 'quantity_negative', 'quantity must not be negative'],
      ['/lines/2/quantity', 'quantity_too_large', 'quantity must be at most 10^12 (1000000000000)'],
      ['/lines/3/quantity', 'quantity_too_precise', 'quantity in kg has at most 3 decimals'],
      ['/lines/4/quantity', 'quantity_negative', 'quantity must not be negative'],
      ['/lines/5/quantity', 'quantity_too_large', 'quantity must be at most 10^12 (1000000000000)'],
      ['/lines/6/quantity', 'quantity_too_precise', 'quantity in unit (unit) is a count: it must be a whole number'],
    ]);
  });

  it('the units sold', () => {
    const errors = (value: unknown) => {
      const result = validator.validate(value, context);
      if (result.ok) throw new Error('expected a validation failure');
      return result.errors.map(({ pointer, code, detail, params }) => ({ pointer, code, detail, params }));
    };
    const counted = [line({ stream: 'CNT', material: 'Verre', unit: 'unit', quantity: 95000 }), line()];
    expect(
      errors(
        body({
          lines: counted,
          units_sold: [
            { stream: 'CNT', quantity: 90000 },
            { stream: 'CNT', quantity: 100000 },
            { stream: 'EMB', quantity: 5 },
            { stream: 'CNT', quantity: 1, extra: 1 },
            'x',
            { quantity: 1 },
          ],
        }),
      ),
    ).toEqual([
      {
        pointer: '/units_sold/0/quantity',
        code: 'units_sold_below_material_count',
        detail:
          '90000 units sold is fewer than the 95000 units whose packaging contains "Verre" (line 1): a material\'s unit line counts part of the units sold, never more',
        params: { field: 'units_sold', stream: 'CNT', value: '90000', count: '95000', material: 'Verre', line: 1 },
      },
      {
        pointer: '/units_sold/1/stream',
        code: 'duplicate_units_sold',
        detail: 'the units sold of CNT are already stated at /units_sold/0: state them once per stream',
        params: { field: 'units_sold', stream: 'CNT', other: 1 },
      },
      {
        pointer: '/units_sold/2/stream',
        code: 'units_sold_not_counted',
        detail: 'EMB is declared in kg only: it has no count of sales units to state',
        // The streams of this spec's catalogue have no names.
        params: { field: 'units_sold', stream: 'EMB', streamName: undefined },
      },
      { pointer: '/units_sold/3/extra', code: 'unknown_field', detail: 'unknown field "extra"', params: { field: 'units_sold' } },
      expect.objectContaining({ pointer: '/units_sold/3/stream', code: 'duplicate_units_sold' }),
      {
        pointer: '/units_sold/4',
        code: 'invalid_type',
        detail: 'each units_sold entry must be an object with stream and quantity, not string',
        params: { field: 'units_sold', expected: 'object', actual: 'string' },
      },
      { pointer: '/units_sold/5/stream', code: 'required', detail: 'stream is required', params: { field: 'units_sold' } },
    ]);
    expect(errors(body({ units_sold: 'x' }))).toEqual([
      {
        pointer: '/units_sold',
        code: 'invalid_type',
        detail: 'units_sold must be an array, not string',
        params: { field: 'units_sold', expected: 'array', actual: 'string' },
      },
    ]);
    // Only the first MAX_UNITS_SOLD entries are checked: the 21st, no object, is not reported.
    const many = [...Array.from({ length: MAX_UNITS_SOLD }, () => ({ stream: 'CNT', quantity: 100000 })), 'x'];
    expect(errors(body({ lines: counted, units_sold: many })).slice(0, 2)).toEqual([
      {
        pointer: '/units_sold',
        code: 'too_many_units_sold',
        detail: `units_sold states each stream once: at most ${MAX_UNITS_SOLD} entries, not ${MAX_UNITS_SOLD + 1}`,
        params: { field: 'units_sold', max: MAX_UNITS_SOLD, count: MAX_UNITS_SOLD + 1 },
      },
      expect.objectContaining({ pointer: '/units_sold/1/stream', code: 'duplicate_units_sold' }),
    ]);
    expect(errors(body({ lines: counted, units_sold: many })).some((error) => error.pointer === `/units_sold/${MAX_UNITS_SOLD}`)).toBe(
      false,
    );
    expect(errors(body({ lines: counted, units_sold: many.slice(0, MAX_UNITS_SOLD) })).map((error) => error.code)).not.toContain(
      'too_many_units_sold',
    );
  });

  it('duplicates, naming five others at most', () => {
    expect(problems(body({ lines: [line(), line(), line({ material: 'b' })] }))).toEqual([
      ['/lines/0', 'duplicate_line', 'same stream, unit and material (compared normalised, ignoring case) as /lines/1'],
    ]);
    expect(problems(body({ lines: Array.from({ length: 6 }, () => line()) }))).toEqual([
      [
        '/lines/0',
        'duplicate_line',
        'same stream, unit and material (compared normalised, ignoring case) as /lines/1, /lines/2, /lines/3, /lines/4, /lines/5',
      ],
    ]);
    expect(problems(body({ lines: Array.from({ length: 8 }, () => line()) }))).toEqual([
      [
        '/lines/0',
        'duplicate_line',
        'same stream, unit and material (compared normalised, ignoring case) as /lines/1, /lines/2, /lines/3, /lines/4, /lines/5 and 2 more lines',
      ],
    ]);
  });
});

describe('DeclarationValidator, the rules the streams data holds, in words', () => {
  const data = (overrides: Partial<Stream>, code: string, units: Stream['units'] = ['kg']) =>
    ({ ...stream(code, '2022-01-01', units, [['glass', 'Verre', 'Glass']]), ...overrides }) as Stream;
  const dataCatalogue = new ReferenceCatalogue({
    pricing: { plans: [] },
    streams: {
      catalogue_version: 3,
      units: [
        { code: 'kg', kind: 'mass', name: { fr: 'kilogramme', en: 'kilogram' }, decimals: 3 },
        { code: 'uvc', kind: 'count', name: { fr: 'unité de vente', en: 'sales unit' }, decimals: 0 },
        { code: 't', kind: 'mass', name: { fr: 'tonne', en: 'tonne' }, decimals: 6 },
      ],
      streams: [
        data(
          {
            retired_materials: [
              {
                code: 'plastic_pet',
                name: { fr: 'PET', en: 'PET' },
                retired_in_catalogue_version: 2,
                replaced_by: ['pet_clear', 'pet_tray'],
              },
              { code: 'cork', name: { fr: 'Liège', en: 'Cork' }, retired_in_catalogue_version: 3, replaced_by: [] },
            ],
          } as unknown as Partial<Stream>,
          'EMB',
          ['kg', 'uvc'],
        ),
        data({ declarable_until: '2023-12-31', replaced_by: 'EMB' } as Partial<Stream>, 'OLD'),
        data({ declarable_until: '2023-12-31' } as Partial<Stream>, 'GONE'),
        data({ declarable_from: '2023-06-30', declarable_until: '2024-01-01' } as Partial<Stream>, 'EDGE'),
        data({ unit_requirements: [{ unit: 'kg', requires: 'uvc' }] } as unknown as Partial<Stream>, 'PAIR', ['kg', 'uvc', 't']),
      ],
    },
  } as unknown as Pick<ReferenceDocuments, 'pricing' | 'streams'>);
  const v = new DeclarationValidator(dataCatalogue);
  const ctx = { confirmedStreams: ['EMB', 'OLD', 'GONE', 'EDGE', 'PAIR'], today: '2026-07-01' };
  const problems = (period: string, lines: Record<string, unknown>[]) => {
    const result = v.validate(
      { period, lines: lines.map((l) => ({ stream: 'EMB', material: 'glass', unit: 'kg', quantity: 1, ...l })) },
      ctx,
    );
    return result.ok ? [] : result.errors.map(({ pointer, code, detail }) => [pointer, code, detail]);
  };

  it('a stream that ended: up to the period starting on its last day, then refused, naming its successor if any', () => {
    expect(problems('2023-S2', [{ stream: 'OLD' }, { stream: 'GONE' }])).toEqual([]);
    expect(problems('2024-S1', [{ stream: 'OLD' }, { stream: 'GONE' }])).toEqual([
      [
        '/lines/0/stream',
        'stream_ended',
        'OLD can be declared for periods starting on or before 2023-12-31, not 2024-S1: declare 2024-S1 under EMB',
      ],
      ['/lines/1/stream', 'stream_ended', 'GONE can be declared for periods starting on or before 2023-12-31, not 2024-S1'],
    ]);
  });

  it('a retired material code, by code only and whatever its case, naming what replaced it if anything', () => {
    expect(
      problems('2025-S1', [
        { material: 'Plastic_PET' },
        { material: 'cork' },
        { material: 'PET' },
        { stream: 'OLD', material: 'cork', quantity: 2 },
      ]),
    ).toEqual([
      [
        '/lines/0/material',
        'material_retired',
        '"plastic_pet" left the EMB materials in catalogue version 2; use pet_clear, pet_tray (see /api/v1/streams.json)',
      ],
      ['/lines/1/material', 'material_retired', '"cork" left the EMB materials in catalogue version 3 (see /api/v1/streams.json)'],
      [
        '/lines/3/stream',
        'stream_ended',
        'OLD can be declared for periods starting on or before 2023-12-31, not 2025-S1: declare 2025-S1 under EMB',
      ],
    ]);
  });

  it('a unit requirement: the companion line of the same material (its category or its text), saying what to add', () => {
    expect(
      problems('2025-S1', [
        { stream: 'PAIR', material: 'Verre' },
        { stream: 'PAIR', material: 'GLASS', unit: 'uvc' },
      ]),
    ).toEqual([]);
    expect(
      problems('2025-S1', [
        { stream: 'PAIR', material: 'Bois "brut"' },
        { stream: 'PAIR', material: 'bois "BRUT"', unit: 'uvc' },
      ]),
    ).toEqual([]);
    expect(
      problems('2025-S1', [
        { stream: 'PAIR', material: 'Bois "brut"' },
        { stream: 'PAIR', material: 'Bois', unit: 'uvc' },
        { stream: 'EMB', material: 'Bois "brut"', unit: 'uvc' },
      ]),
    ).toEqual([
      [
        '/lines/0/unit',
        'companion_line_missing',
        'PAIR needs, for each material declared in kg, a line in uvc (sales unit) for the same material: add {"stream": "PAIR", "material": "Bois \\"brut\\"", "unit": "uvc", "quantity": …}',
      ],
    ]);
    // Only the stream's own requirement: EMB has none.
    expect(problems('2025-S1', [{ material: 'Bois' }])).toEqual([]);
  });

  it('a stream opening on the last day of a period, or ending on the first day of one, takes that period', () => {
    expect(problems('2023-S1', [{ stream: 'EDGE' }])).toEqual([]);
    expect(problems('2024-S1', [{ stream: 'EDGE' }])).toEqual([]);
    expect(problems('2022-S2', [{ stream: 'EDGE' }]).map(([, code]) => code)).toEqual(['stream_not_declarable_for_period']);
    expect(problems('2024-S2', [{ stream: 'EDGE' }]).map(([, code]) => code)).toEqual(['stream_ended']);
  });

  it('without a usable period, the date rules of an ended stream are not applied', () => {
    expect(problems('2024-H1', [{ stream: 'OLD' }]).map(([pointer, code]) => [pointer, code])).toEqual([
      ['/period', 'invalid_period_format'],
    ]);
  });

  it('a unit requirement binds its own unit only', () => {
    expect(problems('2025-S1', [{ stream: 'PAIR', material: 'Bois', unit: 't' }])).toEqual([]);
  });

  it('a line of an unknown stream or an unusable unit is not asked for a companion', () => {
    expect(problems('2025-S1', [{ stream: 'XYZ', material: 'Bois' }]).map(([pointer, code]) => [pointer, code])).toEqual([
      ['/lines/0/stream', 'unknown_stream'],
    ]);
    expect(problems('2025-S1', [{ stream: 'PAIR', material: 'Bois', unit: 'tons' }]).map(([pointer, code]) => [pointer, code])).toEqual([
      ['/lines/0/unit', 'unit_not_allowed'],
    ]);
  });
});

describe('exactDecimal', () => {
  it.each(['abc', '', '1.5x', 'x1.5', '1.', '.5', '+1', '1e'])('refuses %j, which is not a JSON number', (text) => {
    expect(() => exactDecimal(text)).toThrow(new TypeError(`not a JSON number: ${text}`));
  });

  it('writes the plain decimal up to 30 digits either side of the point, and nothing past them', () => {
    expect(exactDecimal('1e29')).toEqual({ negative: false, overMaximum: true, decimals: 0, text: `1${'0'.repeat(29)}` });
    expect(exactDecimal('1e30').text).toBe('');
    expect(exactDecimal('1e-30')).toEqual({ negative: false, overMaximum: false, decimals: 30, text: `0.${'0'.repeat(29)}1` });
    expect(exactDecimal('1e-31')).toEqual({ negative: false, overMaximum: false, decimals: 31, text: '' });
    expect(exactDecimal('-0.5e1')).toEqual({ negative: true, overMaximum: false, decimals: 0, text: '5' });
  });
});

describe('DeclarationValidator with the published catalogue', () => {
  // The real streams.json: the rules below must follow the data, not a list of their own.
  const published = JSON.parse(readFileSync(join(REPO_ROOT, 'dist/reference/streams.json'), 'utf8')) as StreamsDocument;
  const real = new ReferenceCatalogue({ pricing: { plans: [] } as unknown as PricingDocument, streams: published });
  const v = new DeclarationValidator(real);
  const all = published.streams.map((s) => s.code);
  const at = (today: string) => ({ confirmedStreams: all, today });
  const emb = (material: string, unit: string, quantity: number) => ({ stream: 'EMB', material, unit, quantity });

  it('recognises a category written as the duplicate rule compares it (one fold for both): é as e + combining accent', () => {
    expect(real.materialFor('EMB', 'Autres mate\u0301riaux')?.code).toBe('other');
    expect(real.materialFor('EMB', ' ＧＬＡＳＳ ')?.code).toBe('glass');
  });

  it('accepts every published stream, unit and material, and recognises each material as its category', () => {
    for (const stream of published.streams) {
      const period = stream.declarable_until ? '2024-S2' : '2026-S2';
      const lines = stream.materials.flatMap((m) =>
        stream.units.map((unit) => ({ stream: stream.code, material: m.code, unit, quantity: 2 })),
      );
      const result = v.validate({ period, lines }, at('2026-11-23'));
      expect(result).toMatchObject({ ok: true });
      if (result.ok) expect(result.declaration.lines.map((l) => l.materialCode)).toEqual(lines.map((l) => l.material));
    }
  });

  it('refuses what is not published: a stream, a unit of another stream, a retired material code', () => {
    const result = v.validate(
      {
        period: '2025-S1',
        lines: [
          { stream: 'PAP', material: 'x', unit: 'kg', quantity: 1 },
          { stream: 'EPRO', material: 'wood', unit: 'uvc', quantity: 1 },
          emb('wood', 'uvc', 1),
        ],
      },
      at('2026-11-23'),
    );
    expect(errorsOf(result)).toEqual(
      expect.arrayContaining([
        { pointer: '/lines/0/stream', code: 'unknown_stream' },
        { pointer: '/lines/1/unit', code: 'unit_not_allowed' },
        { pointer: '/lines/2/material', code: 'material_retired' },
      ]),
    );
    // Every unit any stream accepts is one of the published units, and every published unit is used.
    expect(new Set(published.streams.flatMap((s) => s.units))).toEqual(new Set(published.units.map((u) => u.code)));
  });

  it('counts in uvc are whole numbers: a decimal is refused at its quantity', () => {
    const result = v.validate({ period: '2025-S1', lines: [emb('glass', 'kg', 10.5), emb('glass', 'uvc', 12.5)] }, at('2026-11-23'));
    expect(errorsOf(result)).toEqual([{ pointer: '/lines/1/quantity', code: 'quantity_too_precise' }]);
    expect(v.validate({ period: '2025-S1', lines: [emb('glass', 'kg', 10.5), emb('glass', 'uvc', 12)] }, at('2026-11-23'))).toMatchObject({
      ok: true,
    });
  });

  it('enforces a published unit requirement: a material in kg needs its uvc count; a count alone is accepted', () => {
    const paired = {
      ...published,
      streams: published.streams.map((s) =>
        s.code === 'EMB'
          ? {
              ...s,
              unit_requirements: [
                {
                  unit: 'kg',
                  requires: 'uvc',
                  basis: 'test',
                  verification: 'secondary_source',
                  checked: '2026-11-23',
                  sources: ['https://example.org'],
                },
              ],
            }
          : s,
      ),
    } as StreamsDocument;
    const pv = new DeclarationValidator(new ReferenceCatalogue({ pricing: { plans: [] } as unknown as PricingDocument, streams: paired }));
    const result = pv.validate(
      { period: '2025-S1', lines: [emb('glass', 'kg', 10), emb('Verre ', 'uvc', 3), emb('steel', 'kg', 1)] },
      at('2026-11-23'),
    );
    expect(errorsOf(result)).toEqual([{ pointer: '/lines/2/unit', code: 'companion_line_missing' }]);
    expect(pv.validate({ period: '2025-S1', lines: [emb('steel', 'uvc', 4)] }, at('2026-11-23'))).toMatchObject({ ok: true });
    // The published data requires the pair for household packaging.
    expect(errorsOf(v.validate({ period: '2025-S1', lines: [emb('steel', 'kg', 1)] }, at('2026-11-23')))).toEqual([
      { pointer: '/lines/0/unit', code: 'companion_line_missing' },
    ]);
  });

  it('professional packaging (EPRO): 2026-S1 refused, 2026-S2 accepted', () => {
    const epro = (period: string) =>
      v.validate({ period, lines: [{ stream: 'EPRO', material: 'wood', unit: 'kg', quantity: 5 }] }, at('2026-11-23'));
    expect(errorsOf(epro('2026-S1'))).toEqual([{ pointer: '/lines/0/stream', code: 'stream_not_declarable_for_period' }]);
    expect(epro('2026-S2')).toMatchObject({ ok: true });
  });

  it('food-service packaging (CHR): from 2024-S1 to 2026-S1, then under EPRO', () => {
    const chr = (period: string) =>
      v.validate({ period, lines: [{ stream: 'CHR', material: 'glass', unit: 'kg', quantity: 5 }] }, at('2026-11-23'));
    expect(errorsOf(chr('2023-S2'))).toEqual([{ pointer: '/lines/0/stream', code: 'stream_not_declarable_for_period' }]);
    expect(chr('2024-S1')).toMatchObject({ ok: true });
    expect(chr('2026-S1')).toMatchObject({ ok: true });
    const ended = chr('2026-S2');
    expect(errorsOf(ended)).toEqual([{ pointer: '/lines/0/stream', code: 'stream_ended' }]);
    expect(ended.ok ? '' : ended.errors[0]!.detail).toContain('under EPRO');
  });
});
