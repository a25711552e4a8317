import type { ReferenceDocuments } from './reference-documents.js';
import { ReferenceCatalogue } from './reference-catalogue.js';
import { realSources } from './test-support.js';

const material = (code: string, fr: string, en: string) => ({ code, name: { fr, en }, verification: 'secondary_source' });

// Two materials whose texts collide after folding: `Film` is the English name of the first and the code of the second.
// Built in each test (not when the file loads), so that the mutation run sees which tests use the constructor.
const build = () =>
  new ReferenceCatalogue({
    pricing: {
      plans: [
        { id: 'starter', streams: ['EMB'] },
        { id: 'business', streams: ['EMB', 'EPRO'] },
      ],
    },
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
          eco_organisms: [{ name: 'Citeo', filing: null }],
          materials: [
            material('plastic', 'Plastique souple', 'Film'),
            material('film', 'Pellicule', 'Wrap'),
            material('glass', 'Verre', 'Glass'),
          ],
          retired_materials: [
            { code: 'plastics', name: { fr: 'Plastiques', en: 'Plastics' }, retired_in_catalogue_version: 2, replaced_by: ['plastic'] },
            { code: 'PLASTICS', name: { fr: 'Doublon', en: 'Duplicate' }, retired_in_catalogue_version: 2, replaced_by: [] },
          ],
        },
        {
          code: 'EPRO',
          units: ['kg', 'unit'],
          eco_organisms: [{ name: 'Citeo', filing: null }],
          materials: [material('wood', 'Bois', 'Wood')],
          retired_materials: [],
        },
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

  it('finds nothing about filing, categories, statuses or the IDU shape where the data publishes none', () => {
    expect(catalogue.filingSchemes('EMB')).toEqual([]);
    expect(catalogue.filingSchemes('NOPE')).toEqual([]);
    expect(catalogue.filingScheme('EMB', 'Citeo')).toBeUndefined();
    expect(catalogue.filingScheme('NOPE', 'Citeo')).toBeUndefined();
    expect(catalogue.filingTier('EMB', 'Citeo', 10)).toBeUndefined();
    expect(catalogue.packagingCategories('NOPE')).toEqual([]);
    expect(catalogue.reuseStatuses('NOPE')).toEqual([]);
    expect(catalogue.iduShape()).toBeUndefined();
    expect(catalogue.iduLooksUsual('anything')).toBe(true);
  });

  it('names each eco-organism once, however many streams list it', () => {
    expect(catalogue.ecoOrganismNames()).toEqual(['Citeo']);
  });

  it('adds quantities up across materials in a mass, not in a count; an unknown unit counts as a mass', () => {
    expect(catalogue.addsAcrossMaterials('kg')).toBe(true);
    expect(catalogue.addsAcrossMaterials('unit')).toBe(false);
    expect(catalogue.addsAcrossMaterials('pallet')).toBe(true);
  });
});

describe('ReferenceCatalogue on the published data', () => {
  let catalogue: ReferenceCatalogue;
  beforeAll(async () => {
    catalogue = new ReferenceCatalogue(await realSources());
  });

  it.each([
    [0, 'flat-fee'],
    [8400, 'flat-fee'],
    [9999, 'flat-fee'],
    [10000, 'simplified'],
    [499999, 'simplified'],
    [500000, 'per-uvc'],
    [12_000_000, 'per-uvc'],
  ])("puts a yearly count of %d uvc in Citeo's tier %s (lower bound included, upper bound excluded)", (count, id) => {
    expect(catalogue.filingTier('EMB', 'Citeo', count)?.id).toBe(id);
  });

  it("reads Citeo's and Adelphe's tiers with their fee, filing and label, and no tier where none is published or the count is not one", () => {
    expect(catalogue.filingScheme('EMB', 'Citeo')?.count_unit).toBe('uvc');
    expect(catalogue.filingTier('EMB', 'Citeo', 8400)).toMatchObject({
      filing: 'flat_fee',
      fee: { amount: '80.00', currency: 'EUR', vat: 'excluded', per: 'year' },
      label: { fr: expect.stringContaining('80'), en: '€80 flat fee' },
      verification: 'secondary_source',
    });
    expect(catalogue.filingTier('EMB', 'Citeo', 600000)).toMatchObject({
      filing: 'detailed_declaration',
      fee: null,
      open_to_smaller: true,
    });
    for (const count of [-1, Number.NaN, Number.POSITIVE_INFINITY]) expect(catalogue.filingTier('EMB', 'Citeo', count)).toBeUndefined();
    // Adelphe publishes its flat fee under 10,000 UVC (adelphe.fr); its levels above are not published.
    expect(catalogue.filingTier('EMB', 'Adelphe', 100)).toMatchObject({ filing: 'flat_fee', fee: { amount: '80.00' } });
    expect(catalogue.filingTier('EMB', 'Adelphe', 20000)).toMatchObject({ filing: 'declaration', fee: null });
    expect(catalogue.filingTier('EMB', 'Léko', 100)).toBeUndefined();
    expect(catalogue.filingTier('EMB', 'Nobody', 100)).toBeUndefined();
    expect(catalogue.filingTier('EPRO', 'Citeo Pro', 100)).toBeUndefined();
    expect(catalogue.filingSchemes('EMB').map((s) => s.ecoOrganism)).toEqual(['Citeo', 'Adelphe', 'Léko']);
    expect(catalogue.filingScheme('EMB', 'Adelphe')?.trade_options.map((o) => o.kind)).toEqual([
      'per_transaction_rate',
      'collective_contract',
    ]);
  });

  it("publishes EPRO's five packaging categories and three reuse statuses, for a later products feature to validate against", () => {
    expect(catalogue.packagingCategories('EPRO').map((c) => c.code)).toEqual([
      'sales',
      'grouped',
      'transport',
      'service',
      'primary_production',
    ]);
    expect(catalogue.reuseStatuses('EPRO').map((c) => c.code)).toEqual(['single_use', 'reusable_new', 'reused']);
    expect(catalogue.packagingCategories('EMB')).toEqual([]);
  });

  it('tells an IDU of the usual shape from one that deserves a warning (never a refusal)', () => {
    expect(catalogue.iduShape()).toMatchObject({ use: 'warning', verification: 'unverified' });
    expect(catalogue.iduLooksUsual('FR123456_01ABCD')).toBe(true);
    expect(catalogue.iduLooksUsual(' fr123456_01ab9d ')).toBe(true);
    for (const idu of ['FR12345_01ABCD', 'FR123456-01ABCD', 'FR123456_01ABC', 'DE123456_01ABCD', 'FR-XXX-12345678', ''])
      expect(catalogue.iduLooksUsual(idu)).toBe(false);
  });

  it('accepts glass again in EPRO (catalogue version 3), and still names the categories of version 1 codes', () => {
    expect(catalogue.catalogueVersion).toBe(3);
    expect(catalogue.materialFor('EPRO', 'Verre')?.code).toBe('glass');
    expect(catalogue.retiredMaterialFor('EPRO', 'glass')).toBeUndefined();
    expect(catalogue.categoryName('EPRO', 'glass')).toEqual({ fr: 'Verre', en: 'Glass' });
    expect(catalogue.categoryName('EMB', 'plastic_pet')).toEqual({ fr: 'Plastique PET', en: 'PET plastic' });
  });
});
