import { DeclarationCursor, filtersHash } from './declaration-cursor.js';

const position = { submittedAt: '2025-07-01T08:00:00.123456Z', id: '0b6f1c2e-6a55-4c1e-9a7e-3f3f1d2a9b10' };
const encodeRaw = (payload: unknown) => Buffer.from(JSON.stringify(payload)).toString('base64url');

describe('DeclarationCursor', () => {
  it('round-trips the exact position (microseconds included) for the same filters', () => {
    const cursor = DeclarationCursor.encode(position, { period: '2025-S1' });
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(DeclarationCursor.decode(cursor, { period: '2025-S1' })).toEqual(position);
  });

  it('tells a cursor made for other filters apart from garbage', () => {
    const cursor = DeclarationCursor.encode(position, { period: '2025-S1' });
    expect(DeclarationCursor.decode(cursor, {})).toBe('mismatch');
    expect(DeclarationCursor.decode(cursor, { period: '2025-S1', status: 'current' })).toBe('mismatch');
    expect(DeclarationCursor.decode(DeclarationCursor.encode(position, {}), { status: 'current' })).toBe('mismatch');
  });

  it('binds filters by value, not by key order or absence vs undefined', () => {
    expect(filtersHash({ status: 'current', period: '2025-S1' })).toBe(filtersHash({ period: '2025-S1', status: 'current' }));
    expect(filtersHash({ period: undefined })).toBe(filtersHash({}));
  });

  it.each([
    ['empty', ''],
    ['not base64url', 'abc$'],
    ['not JSON', Buffer.from('hello').toString('base64url')],
    ['an array', encodeRaw([1])],
    ['another version', encodeRaw({ v: 2, t: position.submittedAt, i: position.id, f: filtersHash({}) })],
    ['30 February', encodeRaw({ v: 1, t: '2026-02-30T08:00:00.123456Z', i: position.id, f: filtersHash({}) })],
    ['hour 24', encodeRaw({ v: 1, t: '2026-01-01T24:00:00.000000Z', i: position.id, f: filtersHash({}) })],
    ['second 60', encodeRaw({ v: 1, t: '2026-01-01T23:59:60.000000Z', i: position.id, f: filtersHash({}) })],
    ['month 13', encodeRaw({ v: 1, t: '2026-13-01T08:00:00.000000Z', i: position.id, f: filtersHash({}) })],
    ['an extra member', encodeRaw({ v: 1, t: position.submittedAt, i: position.id, f: filtersHash({}), x: 1 })],
    ['a millisecond timestamp', encodeRaw({ v: 1, t: '2025-07-01T08:00:00.123Z', i: position.id, f: filtersHash({}) })],
    ['an impossible date', encodeRaw({ v: 1, t: '2025-13-45T08:00:00.123456Z', i: position.id, f: filtersHash({}) })],
    ['an upper-case id', encodeRaw({ v: 1, t: position.submittedAt, i: position.id.toUpperCase(), f: filtersHash({}) })],
    ['SQL in the id', encodeRaw({ v: 1, t: position.submittedAt, i: "x' OR 1=1 --", f: filtersHash({}) })],
    ['too long', 'a'.repeat(401)],
  ])('refuses %s', (_name, cursor) => {
    expect(DeclarationCursor.decode(cursor, {})).toBeUndefined();
  });
});
