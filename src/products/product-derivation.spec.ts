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
