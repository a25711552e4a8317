import { declarationIdentity, type DeclaredLine } from './declaration-validator.js';

const line = (material: string, materialCode: string | null, quantity: string, unit = 'kg'): DeclaredLine => ({
  stream: 'EMB',
  unit,
  material,
  materialCode,
  quantity,
});

describe('declarationIdentity', () => {
  it('is the same for a material given by its code or either published name, quantities by value, lines in any order', () => {
    const byCode = declarationIdentity([
      line('paper_cardboard', 'paper_cardboard', '360'),
      line('paper_cardboard', 'paper_cardboard', '20000', 'uvc'),
    ]);
    expect(
      declarationIdentity([
        line('Paper and cardboard', 'paper_cardboard', '360.000'),
        line('Papier-carton', 'paper_cardboard', '20000', 'uvc'),
      ]),
    ).toBe(byCode);
    expect(
      declarationIdentity([
        line('Papier-carton', 'paper_cardboard', '20000.000', 'uvc'),
        line('PAPIER-CARTON', 'paper_cardboard', '360.0'),
      ]),
    ).toBe(byCode);
  });

  it('differs when a figure, a unit or the category differs', () => {
    const base = declarationIdentity([line('Glass', 'glass', '1200.5')]);
    expect(declarationIdentity([line('Glass', 'glass', '1200.05')])).not.toBe(base);
    expect(declarationIdentity([line('Glass', 'glass', '12005')])).not.toBe(base);
    expect(declarationIdentity([line('Glass', 'glass', '1200.5', 'uvc')])).not.toBe(base);
    expect(declarationIdentity([line('Steel', 'steel', '1200.5')])).not.toBe(base);
  });

  it('compares an uncategorised material by its folded text, never with a category of the same spelling', () => {
    expect(declarationIdentity([line('Cork stoppers', null, '1')])).toBe(declarationIdentity([line(' CORK STOPPERS ', null, '1')]));
    expect(declarationIdentity([line('Cork', null, '1')])).not.toBe(declarationIdentity([line('Cork stoppers', null, '1')]));
    expect(declarationIdentity([line('glass', null, '1')])).not.toBe(declarationIdentity([line('glass', 'glass', '1')]));
  });

  it('keeps the zeros of a whole number', () => {
    expect(declarationIdentity([line('Glass', 'glass', '100')])).not.toBe(declarationIdentity([line('Glass', 'glass', '1')]));
    expect(declarationIdentity([line('Glass', 'glass', '100.000')])).toBe(declarationIdentity([line('Glass', 'glass', '100')]));
  });
});

describe('declarationIdentity with units sold', () => {
  const lines = [line('glass', 'glass', '95000', 'uvc')];

  it('holds them: the same lines with other units sold, or none, are another declaration', () => {
    const sold = declarationIdentity(lines, [{ stream: 'EMB', quantity: '100000' }]);
    expect(sold).not.toBe(declarationIdentity(lines));
    expect(sold).not.toBe(declarationIdentity(lines, [{ stream: 'EMB', quantity: '100001' }]));
    expect(sold).not.toBe(declarationIdentity(lines, [{ stream: 'CNT', quantity: '100000' }]));
    expect(declarationIdentity(lines, [])).toBe(declarationIdentity(lines));
  });

  it('is not a line: units sold of a stream are not a uvc line of a material named "units_sold"', () => {
    expect(declarationIdentity(lines, [{ stream: 'EMB', quantity: '100000' }])).not.toBe(
      declarationIdentity([...lines, line('units_sold', null, '100000', 'uvc')]),
    );
  });

  it('reads them by value, in any order', () => {
    const a = declarationIdentity(lines, [
      { stream: 'EMB', quantity: '100000' },
      { stream: 'CNT', quantity: '12' },
    ]);
    expect(
      declarationIdentity(lines, [
        { stream: 'CNT', quantity: '12.000' },
        { stream: 'EMB', quantity: '100000' },
      ]),
    ).toBe(a);
  });
});
