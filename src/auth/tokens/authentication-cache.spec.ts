import { AuthenticationCache } from './authentication-cache.js';
import type { VerifiedClient } from '../verified-client.js';

const account = (clientId: string): VerifiedClient => ({
  clientId,
  tokenId: `token-of-${clientId}`,
  mode: 'live',
  account: { clientId, confirmedAt: null, profile: { email: null, company: null, country: null, plan: null, streams: [], idus: [] } },
});
const acme = account('acme');
const globex = account('globex');

function setup(options: { ttlMs?: number; maxEntries?: number } = {}) {
  const clock = { now: 1_000_000 };
  const cache = new AuthenticationCache({ ttlMs: options.ttlMs ?? 10_000, maxEntries: options.maxEntries ?? 100, now: () => clock.now });
  return { cache, clock };
}

describe('AuthenticationCache', () => {
  it('keeps nothing until listening starts, and is reported off', () => {
    const { cache } = setup();
    expect(cache.enabled).toBe(false);
    cache.remember('h1', cache.mark(), acme, null);
    expect(cache.get('h1')).toBeUndefined();
  });

  it('keeps a lookup while listening, and answers it until the TTL ends (exclusive)', () => {
    const { cache, clock } = setup({ ttlMs: 10_000 });
    cache.listening(true);
    expect(cache.enabled).toBe(true);
    cache.remember('h1', cache.mark(), acme, null);
    expect(cache.get('h1')).toBe(acme);
    clock.now += 9_999;
    expect(cache.get('h1')).toBe(acme);
    clock.now += 1;
    expect(cache.get('h1')).toBeUndefined();
    // Gone for good, not only hidden: the clock going back does not bring it back.
    clock.now -= 5_000;
    expect(cache.get('h1')).toBeUndefined();
  });

  it('never keeps a token past its own expiry, and does not keep one that has none left', () => {
    const { cache, clock } = setup({ ttlMs: 10_000 });
    cache.listening(true);
    cache.remember('soon', cache.mark(), acme, 2_000);
    cache.remember('now', cache.mark(), globex, 0);
    cache.remember('past', cache.mark(), globex, -5);
    expect(cache.get('now')).toBeUndefined();
    expect(cache.get('past')).toBeUndefined();
    clock.now += 1_999;
    expect(cache.get('soon')).toBe(acme);
    clock.now += 1;
    expect(cache.get('soon')).toBeUndefined();
  });

  it('counts the time a token has left, and the TTL, from before the lookup, not from when its answer arrived', () => {
    const { cache, clock } = setup({ ttlMs: 10_000 });
    cache.listening(true);
    const expiring = cache.mark();
    const lasting = cache.mark();
    clock.now += 50; // the query's round trip
    cache.remember('expiring', expiring, acme, 1_000);
    cache.remember('lasting', lasting, globex, null);
    clock.now += 949;
    expect(cache.get('expiring')).toBe(acme);
    clock.now += 1; // 1,000 ms after the lookup began: the token has expired by the database's reading
    expect(cache.get('expiring')).toBeUndefined();
    clock.now += 8_999;
    expect(cache.get('lasting')).toBe(globex);
    clock.now += 1;
    expect(cache.get('lasting')).toBeUndefined();
  });

  it('does not keep a lookup whose answer came after the token expired', () => {
    const { cache, clock } = setup();
    cache.listening(true);
    const mark = cache.mark();
    clock.now += 30;
    cache.remember('late', mark, acme, 30);
    expect(cache.get('late')).toBeUndefined();
  });

  it('spends no room on a token with no time left: the entries kept stay', () => {
    const { cache } = setup({ maxEntries: 1 });
    cache.listening(true);
    cache.remember('kept', cache.mark(), acme, null);
    cache.remember('now', cache.mark(), globex, 0);
    expect(cache.get('kept')).toBe(acme);
  });

  it('does not keep a lookup that a change was announced during (any client), nor one begun before listening', () => {
    const { cache } = setup();
    const beforeListening = cache.mark();
    cache.listening(true);
    cache.remember('h0', beforeListening, acme, null);
    expect(cache.get('h0')).toBeUndefined();

    const mark = cache.mark();
    cache.changed('someone-else');
    cache.remember('h1', mark, acme, null);
    expect(cache.get('h1')).toBeUndefined();
    // A lookup begun after the change is kept.
    cache.remember('h1', cache.mark(), acme, null);
    expect(cache.get('h1')).toBe(acme);
  });

  it("forgets a changed client's tokens only, and everyone's on '*'", () => {
    const { cache } = setup();
    cache.listening(true);
    cache.remember('a1', cache.mark(), acme, null);
    cache.remember('a2', cache.mark(), acme, null);
    cache.remember('g1', cache.mark(), globex, null);
    cache.changed('acme');
    expect(cache.get('a1')).toBeUndefined();
    expect(cache.get('a2')).toBeUndefined();
    expect(cache.get('g1')).toBe(globex);
    cache.remember('a1', cache.mark(), acme, null);
    cache.changed('*');
    expect(cache.get('a1')).toBeUndefined();
    expect(cache.get('g1')).toBeUndefined();
  });

  it('empties when listening stops, keeps nothing while off, and starts empty when listening again', () => {
    const { cache } = setup();
    cache.listening(true);
    cache.remember('h1', cache.mark(), acme, null);
    const mark = cache.mark();
    cache.listening(false);
    expect(cache.enabled).toBe(false);
    expect(cache.get('h1')).toBeUndefined();
    cache.remember('h2', cache.mark(), acme, null);
    cache.listening(true);
    expect(cache.get('h2')).toBeUndefined();
    // A lookup begun before listening stopped is not kept after it starts again.
    cache.remember('h3', mark, acme, null);
    expect(cache.get('h3')).toBeUndefined();
  });

  it('keeps at most maxEntries, dropping the least recently stored', () => {
    const { cache } = setup({ maxEntries: 2 });
    cache.listening(true);
    cache.remember('h1', cache.mark(), acme, null);
    cache.remember('h2', cache.mark(), acme, null);
    // Stored again: h1 becomes the most recent.
    cache.remember('h1', cache.mark(), acme, null);
    cache.remember('h3', cache.mark(), globex, null);
    expect(cache.get('h2')).toBeUndefined();
    expect(cache.get('h1')).toBe(acme);
    expect(cache.get('h3')).toBe(globex);
  });

  it('renews the TTL when a lookup is stored again', () => {
    const { cache, clock } = setup({ ttlMs: 10_000 });
    cache.listening(true);
    cache.remember('h1', cache.mark(), acme, null);
    clock.now += 8_000;
    cache.remember('h1', cache.mark(), acme, null);
    clock.now += 8_000;
    expect(cache.get('h1')).toBe(acme);
  });
});
