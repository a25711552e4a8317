import { ListClientsQueryDto } from '../accounts/dto/list-clients-query.dto.js';
import { CreateClientDto } from '../accounts/dto/client-input.dto.js';
import { IssueTokenDto } from '../auth/tokens/dto/token.dto.js';
import { ValidationProblem, type FieldError } from '../common/problem/problem.js';
import { ApiValidationPipe } from '../common/validation.js';
import { ListDeclarationsQueryDto } from '../declarations/dto/list-declarations-query.dto.js';
import { fieldMessage, fieldPosition } from './field-messages.js';

/** The problems the global pipe finds in `value` for `metatype`. */
async function refused(value: unknown, metatype: Function, type: 'body' | 'query' = 'body'): Promise<FieldError[]> {
  try {
    await new ApiValidationPipe().transform(value, { type, metatype: metatype as never });
  } catch (error) {
    if (error instanceof ValidationProblem) return error.errors;
    throw error;
  }
  throw new Error('accepted');
}

describe('fieldMessage', () => {
  it('says a problem from its code and params, in each language', () => {
    const error: FieldError = {
      pointer: '/lines/0/quantity',
      code: 'quantity_too_precise',
      detail: 'quantity in uvc (consumer sales unit) is a count: it must be a whole number',
      params: { line: 1, field: 'quantity', unit: 'uvc', decimals: 0 },
    };
    expect(fieldMessage('fr', error)).toBe(
      'Une quantité en uvc est un nombre d’unités\u00a0: écrivez un nombre entier, par exemple 4\u202f800.',
    );
    expect(fieldMessage('en', error)).toBe('A quantity in uvc is a count: write a whole number, for example 4,800.');
  });

  it('says a problem without params as well as it can', () => {
    expect(fieldMessage('fr', { code: 'required' })).toBe('Cette information est obligatoire\u00a0: renseignez-la.');
  });

  it('has a general sentence for a code it does not know', () => {
    expect(fieldMessage('fr', { code: 'new_rule', params: { x: 1 } })).toBe(
      'Cette information est à corriger\u00a0: vérifiez-la et envoyez-la de nouveau.',
    );
    expect(fieldMessage('en', { code: 'toString' })).toBe('This information needs correcting: check it and send it again.');
  });
});

describe('fieldPosition', () => {
  it('names the line and field, the row and column of a file, or the field alone', () => {
    expect(fieldPosition('fr', { code: 'required', params: { line: 3, field: 'quantity' } })).toBe('Ligne 3, quantité');
    expect(fieldPosition('en', { code: 'required', params: { line: 3, field: 'quantity' } })).toBe('Line 3, quantity');
    expect(fieldPosition('fr', { code: 'required', row: 5, params: { field: 'quantity' } })).toBe('Ligne 5 du fichier, colonne quantité');
    expect(fieldPosition('en', { code: 'unknown_column', row: 1, params: { name: 'poids' } })).toBe('Row 1 of the file');
    expect(fieldPosition('fr', { code: 'invalid_period_format', params: { field: 'period' } })).toBe('Semestre');
    expect(fieldPosition('en', { code: 'too_few_lines', params: { field: 'lines' } })).toBe('Lines');
    expect(fieldPosition('fr', { code: 'invalid_type', params: { line: 2, field: 'lines' } })).toBe('Ligne 2');
  });

  it('names nothing for the whole request, or a field a person does not fill in', () => {
    expect(fieldPosition('fr', { code: 'account_not_confirmed', params: {} })).toBeUndefined();
    expect(fieldPosition('fr', { code: 'account_not_confirmed' })).toBeUndefined();
    expect(fieldPosition('en', { code: 'unknown_field', params: { field: 'colour' } })).toBeUndefined();
    expect(fieldPosition('en', { code: 'unknown_field', params: { field: 'constructor' } })).toBeUndefined();
  });
});

describe('the validation pipe’s params', () => {
  it('name the field and the bounds the English message states', async () => {
    expect((await refused({ name: 'x'.repeat(101), colour: 'red' }, IssueTokenDto)).map(({ code, params }) => ({ code, params }))).toEqual([
      { code: 'unknown_field', params: { field: 'colour' } },
      { code: 'max_length', params: { field: 'name', max: 100 } },
    ]);
    expect((await refused({ expires_at: '2999-01-01T00:00:00Z' }, IssueTokenDto))[0]!.params).toEqual({ field: 'expires_at', max: 2 });
    expect((await refused({ limit: '1000' }, ListDeclarationsQueryDto, 'query'))[0]).toMatchObject({
      pointer: '/query/limit',
      code: 'limit_out_of_range',
      params: { field: 'limit', min: 1, max: 100 },
    });
    expect((await refused({ q: 'x'.repeat(201) }, ListClientsQueryDto, 'query'))[0]).toMatchObject({
      code: 'invalid_length',
      params: { field: 'q', max: 200 },
    });
    expect((await refused({ q: '' }, ListClientsQueryDto, 'query')).map(({ code, params }) => ({ code, params }))).toEqual(
      expect.arrayContaining([{ code: 'invalid_length', params: { field: 'q', min: 1 } }]),
    );
    expect((await refused({ idus: Array.from({ length: 51 }, (_, i) => `FR${i}`) }, CreateClientDto))[0]).toMatchObject({
      code: 'array_max_size',
      params: { field: 'idus', max: 50 },
    });
    expect((await refused({ email: 'nope' }, CreateClientDto))[0]).toMatchObject({ code: 'invalid_email', params: { field: 'email' } });
  });

  it('of reserved keys, invisible characters and deep nesting', async () => {
    expect((await refused(JSON.parse('{"__proto__": {"x": 1}}'), IssueTokenDto))[0]).toMatchObject({
      code: 'unknown_field',
      params: { field: '__proto__' },
    });
    expect((await refused({ name: 'a\u200bb' }, IssueTokenDto))[0]).toMatchObject({ code: 'invalid_characters', params: {} });
    expect((await refused({ name: 'a\u0000b' }, IssueTokenDto))[0]).toMatchObject({ code: 'invalid_characters', params: {} });
    let deep: unknown = 1;
    for (let i = 0; i < 40; i++) deep = { a: deep };
    expect((await refused(deep, IssueTokenDto))[0]).toMatchObject({ code: 'too_deep', params: { max: 32 } });
  });
});
