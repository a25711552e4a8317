import { unitCount, type YearLine } from './annual-filing.js';

const line = (stream: string, unit: string, quantity: string): YearLine => ({
  stream,
  material: 'm',
  materialCode: null,
  unit,
  s1: null,
  s2: null,
  quantity,
});

describe('unitCount', () => {
  it('bounds the units placed on the market by the largest line and the sum, of that stream and unit only', () => {
    const lines = [line('EMB', 'uvc', '8400'), line('EMB', 'uvc', '1000'), line('EMB', 'kg', '99999'), line('EPRO', 'uvc', '5')];
    expect(unitCount(lines, 'EMB', 'uvc')).toEqual({ at_least: 8400, at_most: 9400 });
    expect(unitCount(lines, 'EPRO', 'uvc')).toEqual({ at_least: 5, at_most: 5 });
    expect(unitCount(lines, 'EPRO', 'kg')).toBeNull();
  });
});
