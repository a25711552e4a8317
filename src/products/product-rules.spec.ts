import { ReferenceCatalogue } from '../reference/reference-catalogue.js';
import { realSources } from '../reference/test-support.js';
import { exactDecimal } from '../declarations/declaration-validator.js';
import { contentHashOf, exactNumber, gtinCheckDigitOk, ProductRules } from './product-rules.js';

describe('gtinCheckDigitOk (GS1 mod 10)', () => {
  it.each(['3017620422003', '4006381333931', '96385074', '036000291452', '10614141000415'])('%s is right', (gtin) =>
    expect(gtinCheckDigitOk(gtin)).toBe(true),
  );
  it.each(['3017620422004', '4006381333932', '96385075', '036000291453'])('%s is wrong', (gtin) =>
    expect(gtinCheckDigitOk(gtin)).toBe(false),
  );
});

describe('ProductRules', () => {
  let rules: ProductRules;
  beforeAll(async () => {
    rules = new ProductRules(new ReferenceCatalogue(await realSources()));
  });
  const product = (element: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
    products: [{ reference: ' R-1 ', name: 'Pot', stream: 'EMB', valid_from: '2026-S1', elements: [element], ...extra }],
  });

  it('stores the material as its category code, the weight as exact decimal text, one element per unit by default', () => {
    const result = rules.products(product({ material: 'VERRE', weight_g: 1e-3 }));
    expect(result).toMatchObject({
      ok: true,
      value: [
        {
          reference: 'R-1',
          gtin: null,
          elements: [{ materialCode: 'glass', weightG: '0.001', perUnit: 1, packagingCategory: null, reuseStatus: null }],
        },
      ],
    });
  });

  it('judges the weight as written: 3 decimals at most, above 0, at most 10 t', () => {
    const codes = (weight: unknown) => {
      const result = rules.products(product({ material: 'glass', weight_g: weight }));
      return result.ok ? 'ok' : result.errors.map((e) => `${e.code}:${String(e.params?.reason ?? '')}`);
    };
    expect(codes(2.125)).toBe('ok');
    expect(codes(2.1255)).toEqual(['weight_too_precise:']);
    expect(codes(0)).toEqual(['invalid_weight:not_positive']);
    expect(codes(-1)).toEqual(['invalid_weight:not_positive']);
    expect(codes(10_000_000.5)).toEqual(['invalid_weight:too_large']);
    expect(codes('12')).toEqual(['invalid_weight:not_a_number']);
  });

  it('same content, same hash; another weight, another hash', () => {
    const a = rules.products(product({ material: 'glass', weight_g: 2 }));
    const b = rules.products(product({ material: 'Verre', weight_g: 2.0 }));
    const c = rules.products(product({ material: 'glass', weight_g: 2.001 }));
    if (!a.ok || !b.ok || !c.ok) throw new Error('valid products expected');
    expect(contentHashOf(a.value[0]!)).toBe(contentHashOf(b.value[0]!));
    expect(contentHashOf(a.value[0]!)).not.toBe(contentHashOf(c.value[0]!));
  });
});

describe('exactNumber', () => {
  it('reads a number’s text as exactDecimal does', () => {
    const pieces = ['0', '1', '5', '9', '00', '10', '.', '.', 'e', '-', '25', '000'];
    let seed = 11;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    const texts = ['0', '0.0', '100.0', '10.50', '0.05', '45.5', '999999999.999', '1000000000.5', '0.1234567890', '1e3'];
    for (let n = 0; n < 3000; n++) texts.push(Array.from({ length: 1 + (next() % 6) }, () => pieces[next() % pieces.length]).join(''));
    for (const text of texts) {
      if (!/^-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?$/.test(text)) continue;
      expect([text, exactNumber(text)]).toEqual([text, exactDecimal(text)]);
    }
  });
});
