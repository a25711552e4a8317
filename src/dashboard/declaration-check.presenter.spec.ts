import { MESSAGES } from '../i18n/messages/index.js';
import { keptProducts, readDeclarantName, submittedDeclaration } from './declaration-check.presenter.js';

describe('the name typed beside the statement', () => {
  const words = MESSAGES.fr.dashboardPages.check;

  it('is kept as written, its spaces folded and its control and format characters removed', () => {
    expect(readDeclarantName('  Marie\u00a0 Dupont-\u200bLefèvre\t\n', 'fr')).toEqual({ name: 'Marie Dupont-Lefèvre', error: null });
    expect(readDeclarantName('Jean\u0000 Martin\u2028', 'fr')).toEqual({ name: 'Jean Martin', error: null });
  });

  it('is missing when nothing but spaces and invisible characters was typed', () => {
    expect(readDeclarantName(' \u200b\u00a0 ', 'fr')).toEqual({ name: '', error: words.nameMissing });
    expect(readDeclarantName('', 'en')).toEqual({ name: '', error: MESSAGES.en.dashboardPages.check.nameMissing });
  });

  it('holds at most 200 characters, the column’s bound', () => {
    expect(readDeclarantName('a'.repeat(200), 'fr').error).toBeNull();
    expect(readDeclarantName('a'.repeat(201), 'fr').error).toBe(words.nameTooLong);
  });
});

describe('what a sealed check page carries, as the services take it', () => {
  it('gives the lines and the units sold with their quantities exact as typed', () => {
    const declaration = submittedDeclaration({
      period: '2026-S1',
      replaces: 0,
      lines: [['EMB', 'Verre', 'kg', '1200.125']],
      unitsSold: [['EMB', '30000']],
    });
    expect(declaration.period).toBe('2026-S1');
    expect(declaration.lines.map((line) => [line.stream, line.material, line.unit, String(line.quantity)])).toEqual([
      ['EMB', 'Verre', 'kg', '1200.125'],
    ]);
    expect(declaration.units_sold?.map((entry) => [entry.stream, String(entry.quantity)])).toEqual([['EMB', '30000']]);
    expect('units_sold' in submittedDeclaration({ period: '2026-S1', replaces: 0, lines: [] })).toBe(false);
  });

  it('gives a per-product file’s products as the catalogue keeps them', () => {
    expect(keptProducts([['REF-1', 'EMB', '12', [['glass', '410.5', 1]]]])).toEqual([
      { reference: 'REF-1', stream: 'EMB', units: '12', elements: [{ materialCode: 'glass', weightG: '410.5', perUnit: 1 }] },
    ]);
  });
});
