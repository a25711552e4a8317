import type { ReferenceDocuments } from './reference-documents.js';
import { ReferenceCatalogue } from './reference-catalogue.js';

const material = (code: string, fr: string, en: string) => ({ code, name: { fr, en }, verification: 'secondary_source' });

// Two materials whose texts collide after folding: `Film` is the English name of the first and the code of the second.
// Built in each test (not when the file loads), so that the mutation run sees which tests use the constructor.
const build = () => new ReferenceCatalogue({
  pricing: { plans: [{ id: 'starter', streams: ['EMB'] }, { id: 'business', streams: ['EMB', 'EPRO'] }] },
  streams: {
    catalogue_version: 2,
    units: [
      { code: 'kg', kind: 'mass', decimals: 3 },
      { code: 'unit', kind: 'count', decimals: 0 },
    ],
    streams: [
      {
        code: 'EMB',
        units: ['kg'],
        materials: [material('plastic', 'Plastique souple', 'Film'), material('film', 'Pellicule', 'Wrap'), material('glass', 'Verre', 'Glass')],
        retired_materials: [
          { code: 'plastics', name: { fr: 'Plastiques', en: 'Plastics' }, retired_in_catalogue_version: 2, replaced_by: ['plastic'] },
          { code: 'PLASTICS', name: { fr: 'Doublon', en: 'Duplicate' }, retired_in_catalogue_version: 2, replaced_by: [] },
        ],
      },
      { code: 'EPRO', units: ['kg', 'unit'], materials: [material('wood', 'Bois', 'Wood')], retired_materials: [] },
    ],
  },
} as unknown as Pick<ReferenceDocuments, 'pricing' | 'streams'>);

describe('ReferenceCatalogue', () => {
  let catalogue: ReferenceCatalogue;
  beforeEach(() => {
    catalogue = build();
  });

  it.each([
    ['its code', 'glass'],
    ['its French name', 'Verre'],
    ['its English name', 'Glass'],
    ['any case, spaces around, full-width letters', ' ＧＬＡＳＳ '],
    ['another case', 'vERRE'],
  ])('finds a material by %s', (_how, text) => {
    expect(catalogue.materialFor('EMB', text)?.code).toBe('glass');
  });

  it('answers the first material in published order when two share a text, whichever field each uses', () => {
    expect(catalogue.materialFor('EMB', 'film')?.code).toBe('plastic');
    expect(catalogue.materialFor('EMB', 'Pellicule')?.code).toBe('film');
    expect(catalogue.materialFor('EMB', 'ﬁlm')?.code).toBe('plastic');
  });

  it('looks only in the named stream, and finds nothing for an unknown stream or text', () => {
    expect(catalogue.materialFor('EPRO', 'Verre')).toBeUndefined();
    expect(catalogue.materialFor('EPRO', 'bois')?.code).toBe('wood');
    expect(catalogue.materialFor('NOPE', 'glass')).toBeUndefined();
    expect(catalogue.materialFor('EMB', 'Bois')).toBeUndefined();
  });

  it('finds a retired material by its code only (case-insensitively, the first of equal codes), never by its name', () => {
    expect(catalogue.retiredMaterialFor('EMB', ' PLASTICS ')).toMatchObject({ code: 'plastics', replaced_by: ['plastic'] });
    expect(catalogue.retiredMaterialFor('EMB', 'Plastiques')).toBeUndefined();
    expect(catalogue.retiredMaterialFor('EPRO', 'plastics')).toBeUndefined();
    expect(catalogue.retiredMaterialFor('NOPE', 'plastics')).toBeUndefined();
  });

  it('names the category of a stored code, current or retired, exactly as stored', () => {
    expect(catalogue.categoryName('EMB', 'glass')).toEqual({ fr: 'Verre', en: 'Glass' });
    expect(catalogue.categoryName('EMB', 'plastics')).toEqual({ fr: 'Plastiques', en: 'Plastics' });
    expect(catalogue.categoryName('EMB', 'GLASS')).toBeUndefined();
    expect(catalogue.categoryName('EPRO', 'glass')).toBeUndefined();
    expect(catalogue.categoryName('NOPE', 'glass')).toBeUndefined();
  });

  it('lists and finds plans, streams and units as published, and nothing else', () => {
    expect(catalogue.catalogueVersion).toBe(2);
    expect(catalogue.planIds()).toEqual(['starter', 'business']);
    expect(catalogue.plan('business')).toEqual({ id: 'business', streams: ['EMB', 'EPRO'] });
    expect(catalogue.plan('pro')).toBeUndefined();
    expect(catalogue.streamCodes()).toEqual(['EMB', 'EPRO']);
    expect(catalogue.stream('EPRO')?.code).toBe('EPRO');
    expect(catalogue.stream('emb')).toBeUndefined();
    expect(catalogue.unitCodes()).toEqual(['kg', 'unit']);
    expect(catalogue.unit('unit')).toEqual({ code: 'unit', kind: 'count', decimals: 0 });
    expect(catalogue.unit('t')).toBeUndefined();
    expect(catalogue.unitsFor('EPRO')).toEqual(['kg', 'unit']);
    expect(catalogue.unitsFor('NOPE')).toEqual([]);
  });
});
