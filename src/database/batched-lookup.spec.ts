import { BatchedLookup } from './batched-lookup.js';

describe('BatchedLookup', () => {
  it('sends one key alone, and the keys asked for while a round trip is in flight together in the next', async () => {
    const trips: string[][] = [];
    let open = () => {};
    const gate = new Promise<void>((resolve) => (open = resolve));
    const lookup = new BatchedLookup<string>(async (keys) => {
      trips.push(keys);
      await gate;
      return new Map(keys.filter((k) => k !== 'missing').map((k) => [k, k.toUpperCase()]));
    });
    const first = lookup.get('a');
    await new Promise((resolve) => setImmediate(resolve)); // its round trip is in flight
    const next = ['b', 'missing', 'c', 'b'].map((key) => lookup.get(key));
    open();
    expect(await Promise.all([first, ...next])).toEqual(['A', 'B', undefined, 'C', 'B']);
    expect(trips).toEqual([['a'], ['b', 'missing', 'c']]);
  });

  it('fails the lookups of a failed round trip only', async () => {
    let fail = true;
    const lookup = new BatchedLookup<number>(async (keys) => {
      if (fail) throw new Error('database unavailable');
      return new Map(keys.map((k) => [k, k.length]));
    });
    await expect(lookup.get('x')).rejects.toThrow('database unavailable');
    fail = false;
    expect(await lookup.get('yy')).toBe(2);
  });
});
