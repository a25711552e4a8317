import { columnKeys, readProductSheet, recogniseColumns, rememberedColumns, validMapping } from './product-sheet.js';

const HEADER = ['Produit', 'UVC vendues sur le semestre', 'Élément d’emballage', 'Matériau', 'Poids (g)', 'Nombre par UVC'];

describe('the columns of a per-product file', () => {
  it('recognises the templates’ headers in either language, any case or accent', () => {
    expect(recogniseColumns(HEADER)).toEqual({
      mapping: { product: 0, units: 1, element: 2, material: 3, weight_g: 4, per_unit: 5 },
      missing: [],
    });
    expect(recogniseColumns(['PRODUCT', 'units sold in the half-year', 'material', 'weight (g)']).missing).toEqual([]);
    expect(recogniseColumns(['Désignation longue', 'Ventes', 'Matière première', 'Grammage']).missing).toEqual([
      'product',
      'material',
      'weight_g',
    ]);
  });

  it('applies a remembered mapping by header, in any order, and refuses a mapping with a column twice', () => {
    const own = ['Article', 'Ventes S1', 'Matière première', 'Grammage'];
    const keys = columnKeys(own, { product: 0, units: 1, material: 2, weight_g: 3 });
    expect(keys).toEqual({ product: 'article', units: 'ventes s1', material: 'matiere premiere', weight_g: 'grammage' });
    expect(rememberedColumns(['Grammage', 'Article', 'Matière première', 'Ventes S1'], keys)).toEqual({
      product: 1,
      units: 3,
      material: 2,
      weight_g: 0,
    });
    expect(rememberedColumns(['Article', 'Ventes S1'], keys)).toBeUndefined();
    expect(validMapping(own, { product: 0, units: 0, material: 2, weight_g: 3 })).toBe(false);
    expect(validMapping(own, { product: 0, units: 1, material: 2, weight_g: 9 })).toBe(false);
  });
});

describe('readProductSheet', () => {
  const mapping = { product: 0, units: 1, element: 2, material: 3, weight_g: 4, per_unit: 5 };
  const defaults = { stream: 'EMB', period: '2026-S1', convention: ',' as const };

  it('groups rows by product (an empty product cell: the product above), reads « 40 000 » and « 45,5 »', () => {
    const sheet = readProductSheet(
      [
        HEADER,
        ['Sablés', '40 000', 'boîte', 'Papier-carton', '45,5', '1'],
        ['', '', 'film', 'Emballages souples en PE et PP', '3,2', ''],
        [],
        ['Pot', '20 000', 'pot', 'Verre', '210', '1'],
        ['Sablés', '40000', 'étiquette', 'Papier-carton', '0,8', '2'],
      ],
      mapping,
      defaults,
    );
    expect(sheet.errors).toEqual([]);
    expect(sheet.units.map(String)).toEqual(['40000', '20000']);
    expect(sheet.rows).toEqual([
      { first: 2, units: 2, elements: [2, 3, 6] },
      { first: 5, units: 5, elements: [5] },
    ]);
    expect(JSON.parse(JSON.stringify(sheet.body.products[0]))).toEqual({
      reference: 'Sablés',
      name: 'Sablés',
      stream: 'EMB',
      valid_from: '2026-S1',
      elements: [
        { material: 'Papier-carton', weight_g: { text: '45.5' }, per_unit: { text: '1' } },
        { material: 'Emballages souples en PE et PP', weight_g: { text: '3.2' } },
        { material: 'Papier-carton', weight_g: { text: '0.8' }, per_unit: { text: '2' } },
      ],
    });
  });

  it('says which row has no product above it, and units that disagree', () => {
    const sheet = readProductSheet(
      [
        HEADER,
        ['', '', 'film', 'Verre', '3', '1'],
        ['Pot', '20 000', 'pot', 'Verre', '210', '1'],
        ['Pot', '30 000', 'lid', 'Acier', '6', '1'],
      ],
      mapping,
      defaults,
    );
    expect(sheet.errors.map((e) => [e.code, e.row, e.params?.column])).toEqual([
      ['product_missing', 2, 'Produit'],
      ['inconsistent_units', 4, 'UVC vendues sur le semestre'],
    ]);
  });
});
