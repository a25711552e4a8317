import type { ReferenceDocuments } from './reference-documents.js';
import { ReferenceCatalogue } from './reference-catalogue.js';

const material = (code: string, fr: string, en: string) => ({ code, name: { fr, en }, verification: 'secondary_source' });

// Two materials whose texts collide after folding: `Film` is the English name of the first and the code of the second.
const catalogue = new ReferenceCatalogue({
  pricing: { plans: [] },
  streams: {
    catalogue_version: 2,
    units: [],
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
      { code: 'EPRO', units: ['kg'], materials: [material('wood', 'Bois', 'Wood')], retired_materials: [] },
    ],
  },
} as unknown as Pick<ReferenceDocuments, 'pricing' | 'streams'>);

describe('ReferenceCatalogue', () => {
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
  });
});
