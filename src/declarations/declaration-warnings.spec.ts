import { catalogueOf, householdPackaging } from '../reference/test-support.js';
import { declarationWarnings, warningsInBrief } from './declaration-warnings.js';
import { DeclarationValidator, type ValidDeclaration } from './declaration-validator.js';

// Household packaging only, two categories: a count (uvc) goes with each mass (kg).
const catalogue = catalogueOf([
  householdPackaging({
    materials: [
      { code: 'glass', name: { fr: 'Verre', en: 'Glass' }, verification: 'secondary_source' },
      { code: 'paper_card', name: { fr: 'Papier-carton', en: 'Paper and board' }, verification: 'secondary_source' },
    ],
  }),
]);

/** Nine materials, seven in no category, and every third one's mass reads as tonnes (0.001 kg for 1,000 units): interleaved. */
function declaration(): ValidDeclaration {
  const lines = Array.from({ length: 9 }, (_, k) => {
    const material = k === 1 ? 'Verre' : k === 3 ? 'Papier-carton' : `Matière ${k}`;
    const kg = k % 3 === 0 ? 0.001 : 12.5;
    return [
      { stream: 'EMB', material, unit: 'kg', quantity: kg },
      { stream: 'EMB', material, unit: 'uvc', quantity: 1000 },
    ];
  }).flat();
  const result = new DeclarationValidator(catalogue).validate(
    { period: '2026-S1', lines },
    { confirmedStreams: ['EMB'], today: '2026-09-15' },
  );
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return result.declaration;
}

describe('warningsInBrief', () => {
  const all = declarationWarnings(declaration(), catalogue);
  const ofCode = (code: string) => all.filter((w) => w.code === code);

  it('builds the first warnings of each code, as declarationWarnings gives them and in the order of the lines', () => {
    // Seven materials in no category, each on two lines (kg, uvc); three materials weigh 0.001 kg for 1,000 units.
    expect(ofCode('material_uncategorised')).toHaveLength(14);
    expect(ofCode('quantity_maybe_tonnes')).toHaveLength(3);
    const brief = warningsInBrief(declaration(), catalogue, 2);
    const expected = all.filter((w) => ofCode(w.code).indexOf(w) < 2);
    expect(expected).toHaveLength(4);
    expect(brief.warnings).toEqual(expected);
  });

  it('counts every warning of each code, the ones it does not build included', () => {
    for (const perCode of [0, 1, 2, Infinity])
      expect(Object.fromEntries(warningsInBrief(declaration(), catalogue, perCode).counts)).toEqual({
        material_uncategorised: 14,
        quantity_maybe_tonnes: 3,
      });
    expect(warningsInBrief(declaration(), catalogue, 0).warnings).toEqual([]);
  });

  it('builds them all when the bound is Infinity (what the API answers)', () => {
    expect(warningsInBrief(declaration(), catalogue, Infinity).warnings).toEqual(all);
  });
});
