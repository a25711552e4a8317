import { Problem } from '../problem/problem.js';
import { filtersHash, KeysetCursor, pageOf, positionOf, UUID_ID } from './keyset-cursor.js';

const position = { at: '2025-07-01T08:00:00.123456Z', id: '0b6f1c2e-6a55-4c1e-9a7e-3f3f1d2a9b10' };
const ANY_ID = /^.+$/;
const raw = (payload: unknown) => Buffer.from(JSON.stringify(payload)).toString('base64url');
const payload = (overrides: Record<string, unknown>, filters = {}) =>
  raw({ v: 1, t: position.at, i: position.id, f: filtersHash(filters), ...overrides });
const read = (cursor: string) => JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;

describe('filtersHash', () => {
  it('is 16 hex digits of the SHA-256 of the filters as JSON with sorted keys, an absent one null', () => {
    expect(filtersHash({ b: 'x', a: true, c: undefined })).toBe('604710ce4e544750'); // sha256('{"a":true,"b":"x","c":null}')
    expect(filtersHash({ c: undefined, a: true, b: 'x' })).toBe('604710ce4e544750');
  });

  it('tells apart values, their types, and a filter absent from one set but not the other', () => {
    const hashes = [{}, { a: undefined }, { a: 'true' }, { a: true }, { a: false }, { a: '' }, { a: 'x', b: 'y' }, { a: 'y', b: 'x' }].map(
      filtersHash,
    );
    expect(new Set(hashes).size).toBe(hashes.length);
  });
});

describe('KeysetCursor', () => {
  it('encodes base64url JSON of the version, the position and the filters hash', () => {
    const cursor = KeysetCursor.encode(position, { status: 'current' });
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(read(cursor)).toEqual({ v: 1, t: position.at, i: position.id, f: filtersHash({ status: 'current' }) });
  });

  it('decodes its own cursors for the same filters, and says mismatch for other filters', () => {
    const cursor = KeysetCursor.encode(position, { status: 'current', mine: true });
    expect(KeysetCursor.decode(cursor, { mine: true, status: 'current' }, UUID_ID)).toEqual(position);
    expect(KeysetCursor.decode(cursor, { status: 'current' }, UUID_ID)).toBe('mismatch');
    expect(KeysetCursor.decode(cursor, { status: 'current', mine: false }, UUID_ID)).toBe('mismatch');
  });

  it('checks the id with the pattern of the listing', () => {
    const cursor = KeysetCursor.encode({ at: position.at, id: 'acme-corp' }, {});
    expect(KeysetCursor.decode(cursor, {}, /^[a-z-]+$/)).toEqual({ at: position.at, id: 'acme-corp' });
    expect(KeysetCursor.decode(cursor, {}, UUID_ID)).toBeUndefined();
  });

  it('accepts up to 400 characters, not more', () => {
    const long = (length: number) => KeysetCursor.encode({ at: position.at, id: 'x'.repeat(length) }, {});
    const at400 = [...Array(400).keys()].map(long).find((c) => c.length === 400)!;
    expect(KeysetCursor.decode(at400, {}, ANY_ID)).toMatchObject({ at: position.at });
    const over = long(300);
    expect(over.length).toBeGreaterThan(400);
    expect(KeysetCursor.decode(over, {}, ANY_ID)).toBeUndefined();
  });

  it.each([
    ['empty', ''],
    ['a cursor with a character before it', `.${KeysetCursor.encode(position, {})}`],
    ['a cursor with a character after it', `${KeysetCursor.encode(position, {})}.`],
    ['a cursor with padding', `${KeysetCursor.encode(position, {})}=`],
    ['not JSON', Buffer.from('{"v":1').toString('base64url')],
    ['null', raw(null)],
    ['a number', raw(1)],
    ['a string', raw('x')],
    ['an array', raw([1, position.at, position.id])],
    ['an object without version', raw({ t: position.at, i: position.id, f: filtersHash({}) })],
    ['version "1"', payload({ v: '1' })],
    ['version 2', payload({ v: 2 })],
    ['an extra member', payload({ x: undefined, y: null })],
    ['a numeric timestamp', payload({ t: Date.parse(position.at) })],
    ['a timestamp without microseconds', payload({ t: '2025-07-01T08:00:00.123Z' })],
    ['a timestamp with an offset', payload({ t: '2025-07-01T08:00:00.123456+00:00' })],
    ['a timestamp with a space', payload({ t: '2025-07-01 08:00:00.123456Z' })],
    ['a timestamp with text before', payload({ t: `x${position.at}` })],
    ['a timestamp with text after', payload({ t: `${position.at}x` })],
    ['a timestamp with letters for digits', payload({ t: '2025-07-0aT08:00:00.123456Z' })],
    ['30 February', payload({ t: '2026-02-30T08:00:00.123456Z' })],
    ['29 February of a common year', payload({ t: '2025-02-29T08:00:00.000000Z' })],
    ['hour 24', payload({ t: '2026-01-01T24:00:00.000000Z' })],
    ['month 13', payload({ t: '2026-13-01T08:00:00.000000Z' })],
    ['a numeric id', payload({ i: 7 })],
    ['an id in an array', payload({ i: [position.id] })],
    ['a timestamp in an array', payload({ t: [position.at] })],
    ['an id with text after', payload({ i: `${position.id}x` })],
    ['a missing filters hash', payload({ f: undefined })],
    ['a numeric filters hash', payload({ f: 1 })],
  ])('refuses %s', (_name, cursor) => {
    expect(KeysetCursor.decode(cursor, {}, UUID_ID)).toBeUndefined();
  });

  it('accepts 29 February of a leap year and the last microsecond of a day', () => {
    for (const at of ['2024-02-29T08:00:00.000000Z', '2025-12-31T23:59:59.999999Z']) {
      expect(KeysetCursor.decode(KeysetCursor.encode({ at, id: position.id }, {}), {}, UUID_ID)).toEqual({ at, id: position.id });
    }
  });
});

describe('positionOf', () => {
  const problem = (run: () => unknown): Problem => {
    try {
      run();
    } catch (error) {
      if (error instanceof Problem) return error;
      throw error;
    }
    throw new Error('expected a Problem');
  };

  it('is undefined without cursor (the first page) and the position for a good cursor', () => {
    expect(positionOf(undefined, {}, UUID_ID)).toBeUndefined();
    expect(positionOf(KeysetCursor.encode(position, { a: 'x' }), { a: 'x' }, UUID_ID)).toEqual(position);
  });

  it('answers 400 invalid_cursor, saying to keep the filters, to a cursor of other filters', () => {
    const refused = problem(() => positionOf(KeysetCursor.encode(position, { a: 'x' }), { a: 'y' }, UUID_ID));
    expect([refused.status, refused.code]).toEqual([400, 'invalid_cursor']);
    expect(refused.detail).toMatch(/other filters/);
  });

  it('answers 400 invalid_cursor, saying to pass next_cursor unchanged, to anything else', () => {
    for (const cursor of ['', 'garbage', payload({ v: 2 })]) {
      const refused = problem(() => positionOf(cursor, {}, UUID_ID));
      expect([refused.status, refused.code]).toEqual([400, 'invalid_cursor']);
      expect(refused.detail).toMatch(/not one this API issued: pass next_cursor unchanged/);
    }
  });
});

describe('pageOf', () => {
  const rows = ['a', 'b', 'c'].map((id, n) => ({ id, at: `2025-07-0${3 - n}T08:00:00.000000Z` }));
  const positionOfRow = (row: { id: string; at: string }) => ({ at: row.at, id: row.id });

  it('shows `limit` rows of `limit + 1`, with a cursor after the last one shown', () => {
    const page = pageOf(rows, 2, positionOfRow, { status: 'current' });
    expect(page.items).toEqual(rows.slice(0, 2));
    expect(page.hasMore).toBe(true);
    expect(KeysetCursor.decode(page.nextCursor!, { status: 'current' }, ANY_ID)).toEqual({ at: rows[1]!.at, id: 'b' });
  });

  it('puts the cursor after the last row shown, whatever the page size', () => {
    expect(KeysetCursor.decode(pageOf(rows, 1, positionOfRow, {}).nextCursor!, {}, ANY_ID)).toEqual({ at: rows[0]!.at, id: 'a' });
  });

  it('has no cursor on the last page', () => {
    for (const limit of [3, 4]) expect(pageOf(rows, limit, positionOfRow, {})).toEqual({ items: rows, hasMore: false, nextCursor: null });
    expect(pageOf([], 3, positionOfRow, {})).toEqual({ items: [], hasMore: false, nextCursor: null });
  });

  it('has no cursor when no row is shown', () => {
    expect(pageOf(rows, 0, positionOfRow, {})).toEqual({ items: [], hasMore: true, nextCursor: null });
  });
});
