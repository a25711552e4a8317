import { Problem } from '../problem/problem.js';
import { countFormFields, MAX_FORM_FIELDS, parseForm } from './form-body.js';

const form = (text: string) => Buffer.from(text, 'utf8');

describe('parseForm', () => {
  it('reads fields as the URL standard does: + and percent-encoding decoded, UTF-8, no prototype', () => {
    const body = parseForm(form('a=1&b=%C3%A9t%C3%A9+x&__proto__=p&empty=&=nameless'));
    expect(Object.getPrototypeOf(body)).toBeNull();
    expect(Object.entries(body)).toEqual([
      ['a', '1'],
      ['b', 'été x'],
      ['__proto__', 'p'],
      ['empty', ''],
      ['', 'nameless'],
    ]);
  });

  it('keeps every value of a repeated field, in order, in one list', () => {
    const body = parseForm(form('stream=EMB&material=Verre&stream=EPRO&stream=&material=Bois&period=2025-S1'));
    expect({ ...body }).toEqual({ stream: ['EMB', 'EPRO', ''], material: ['Verre', 'Bois'], period: '2025-S1' });
  });

  it('appends to the list it made (one list per field, not a copy per value)', () => {
    const body = parseForm(form(Array.from({ length: 500 }, (_, i) => `a=${i}`).join('&')));
    const values = body.a as string[];
    expect(values).toHaveLength(500);
    expect(values[0]).toBe('0');
    expect(values[499]).toBe('499');
  });

  it('an empty body is an empty form', () => {
    expect({ ...parseForm(Buffer.alloc(0)) }).toEqual({});
  });

  it(`takes ${MAX_FORM_FIELDS} fields, and refuses one more with 413 before decoding anything`, () => {
    const fields = (n: number) => form(Array.from({ length: n }, () => 'a=').join('&'));
    expect((parseForm(fields(MAX_FORM_FIELDS)).a as string[]).length).toBe(MAX_FORM_FIELDS);
    const refuse = () => parseForm(fields(MAX_FORM_FIELDS + 1));
    expect(refuse).toThrow(Problem);
    expect(refuse).toThrow(
      expect.objectContaining({ status: 413, code: 'payload_too_large', detail: expect.stringContaining('more than 1,000 fields') }),
    );
    // Empty pieces count too: `&&&…` is refused unread.
    expect(() => parseForm(form('&'.repeat(MAX_FORM_FIELDS)))).toThrow(expect.objectContaining({ status: 413 }));
    // A smaller bound when asked.
    expect(() => parseForm(form('a=1&b=2&c=3'), 2)).toThrow(
      expect.objectContaining({ status: 413, detail: expect.stringContaining('more than 2 fields') }),
    );
    expect(Object.keys(parseForm(form('a=1&b=2'), 2))).toEqual(['a', 'b']);
  });

  it('the largest form of the service, the 200-line declaration form, is within the bound', () => {
    const params = new URLSearchParams({ _csrf: 'x'.repeat(120), period: '2025-S1', action: 'add' });
    for (let i = 0; i < 200; i++) for (const name of ['stream', 'material', 'unit', 'quantity']) params.append(name, 'v');
    expect((parseForm(form(params.toString())).quantity as string[]).length).toBe(200);
  });
});

describe('countFormFields', () => {
  it('counts &-separated pieces on the bytes, empty ones too, and stops past the bound', () => {
    expect(countFormFields(Buffer.alloc(0), 10)).toBe(0);
    expect(countFormFields(form('a'), 10)).toBe(1);
    expect(countFormFields(form('a=1&b=2'), 10)).toBe(2);
    expect(countFormFields(form('&&'), 10)).toBe(3);
    expect(countFormFields(form('&'.repeat(100)), 10)).toBe(11);
    expect(countFormFields(form('a=%26&b'), 10)).toBe(2);
  });
});
