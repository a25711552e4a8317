import { parseIdempotencyKey } from './idempotency-store.js';

describe('parseIdempotencyKey', () => {
  it('is optional', () => {
    expect(parseIdempotencyKey(undefined)).toBeUndefined();
  });

  it.each([
    ['a UUID', '8e03978e-40d5-43e8-bc93-6894a57f9324', '8e03978e-40d5-43e8-bc93-6894a57f9324'],
    ['one character', 'x', 'x'],
    ['255 characters', 'k'.repeat(255), 'k'.repeat(255)],
    ['every visible ASCII character', '!~#{}[]"\\', '!~#{}[]"\\'],
    ['the quoted form of the IETF draft', '"8e03978e-40d5"', '8e03978e-40d5'],
  ])('accepts %s', (_name, header, key) => {
    expect(parseIdempotencyKey(header)).toEqual({ key });
  });

  it.each([
    ['empty', ''],
    ['256 characters', 'k'.repeat(256)],
    ['a space', 'a b'],
    ['a tab', 'a\tb'],
    ['non-ASCII', 'clé'],
    ['two headers joined by Node', 'a, b'],
  ])('refuses %s, pointing at the header', (_name, header) => {
    expect(parseIdempotencyKey(header)).toEqual({
      error: {
        pointer: '/headers/idempotency-key',
        code: 'invalid_idempotency_key',
        detail: 'Idempotency-Key must be 1 to 255 visible ASCII characters (a UUID is a good choice)',
      },
    });
  });
});
