import { deriveLines } from './product-derivation.js';

describe('deriveLines', () => {
  it('sums kg exactly, counts each product once per material and once per stream', () => {
    const lines = deriveLines([
      {
        stream: 'EMB',
        units: '40000',
        elements: [
          { materialCode: 'paper_cardboard', weightG: '45.5', perUnit: 1 },
          { materialCode: 'plastic_pe_pp_flexible', weightG: '3.2', perUnit: 1 },
        ],
      },
      {
        stream: 'EMB',
        units: '30000',
        elements: [
          { materialCode: 'paper_cardboard', weightG: '45.5', perUnit: 1 },
          { materialCode: 'plastic_pe_pp_flexible', weightG: '3.2', perUnit: 1 },
        ],
      },
      {
        stream: 'EMB',
        units: '20000',
        elements: [
          { materialCode: 'glass', weightG: '210', perUnit: 1 },
          { materialCode: 'steel', weightG: '6', perUnit: 1 },
        ],
      },
    ]);
    expect(lines.map((l) => [l.materialCode, l.kg, l.kgRounded, l.uvc, l.unitsSold])).toEqual([
      ['glass', '4200', '4200', '20000', '90000'],
      ['paper_cardboard', '3185', '3185', '70000', '90000'],
      ['plastic_pe_pp_flexible', '224', '224', '70000', '90000'],
      ['steel', '120', '120', '20000', '90000'],
    ]);
  });

  it('keeps the milligrams exact and rounds to the gram half away from zero', () => {
    const [line] = deriveLines([
      {
        stream: 'EMB',
        units: '3',
        elements: [
          { materialCode: 'glass', weightG: '0.001', perUnit: 2 },
          { materialCode: 'glass', weightG: '0.5', perUnit: 1 },
        ],
      },
    ]);
    expect(line).toMatchObject({ kg: '0.001506', kgRounded: '0.002', uvc: '3', products: 1 });
  });
});

describe('deriveLines past a double’s exact integers', () => {
  it('sums exactly what a double would round (10^12 units × 9,999 per unit × 9,999,999.999 g)', () => {
    const product = (units: string) => ({
      stream: 'EMB',
      units,
      elements: [{ materialCode: 'glass', weightG: '9999999.999', perUnit: 9999 }],
    });
    const [line] = deriveLines([product('1000000000000'), product('999999999999')]);
    // (10^12 + 10^12 − 1) × 9,999 × 9,999,999,999 mg = 199,979,999,979,902,010,000,009,999 mg.
    expect(line).toMatchObject({
      kg: '199979999979902010000.009999',
      kgRounded: '199979999979902010000.01',
      uvc: '1999999999999',
      unitsSold: '1999999999999',
    });
  });
});
