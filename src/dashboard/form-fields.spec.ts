import { field, fields } from './form-fields.js';

describe('form fields', () => {
  it('field: the value, the last one when repeated, empty when absent', () => {
    expect(field({ period: '2025-S1' }, 'period')).toBe('2025-S1');
    expect(field({ period: ['2024-S2', '2025-S1'] }, 'period')).toBe('2025-S1');
    expect(field({ period: [] }, 'period')).toBe('');
    expect(field({}, 'period')).toBe('');
    expect(field(undefined, 'period')).toBe('');
    expect(field({ period: 42 } as never, 'period')).toBe('');
  });

  it('fields: every value of a repeated field, in order; one value is a list of one; absent is none', () => {
    expect(fields({ stream: ['EMB', '', 'EPRO'] }, 'stream')).toEqual(['EMB', '', 'EPRO']);
    expect(fields({ stream: 'EMB' }, 'stream')).toEqual(['EMB']);
    expect(fields({ stream: '' }, 'stream')).toEqual(['']);
    expect(fields({}, 'stream')).toEqual([]);
    expect(fields(undefined, 'stream')).toEqual([]);
    expect(fields({ stream: 42 } as never, 'stream')).toEqual([]);
  });
});
