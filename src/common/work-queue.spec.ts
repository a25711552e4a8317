import { WorkQueue } from './work-queue.js';

/** A piece of work that ends when told to. */
function pending(log: string[], name: string) {
  let end!: () => void;
  let fail!: (error: Error) => void;
  const done = new Promise<string>((resolve, reject) => {
    end = () => resolve(name);
    fail = reject;
  });
  return {
    work: async () => {
      log.push(`start ${name}`);
      return done;
    },
    end,
    fail,
  };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('WorkQueue', () => {
  it('runs at most `limit` at once and the others in the order they came, refusing none', async () => {
    const queue = new WorkQueue(2);
    const log: string[] = [];
    const works = ['a', 'b', 'c', 'd'].map((name) => pending(log, name));
    const results = works.map((w) => queue.run(w.work));
    await settle();
    expect(log).toEqual(['start a', 'start b']);
    expect(queue.size).toEqual({ running: 2, waiting: 2 });

    works[1]!.end();
    await settle();
    expect(log).toEqual(['start a', 'start b', 'start c']);
    works[0]!.end();
    await settle();
    expect(log).toEqual(['start a', 'start b', 'start c', 'start d']);
    works[2]!.end();
    works[3]!.end();
    await expect(Promise.all(results)).resolves.toEqual(['a', 'b', 'c', 'd']);
    expect(queue.size).toEqual({ running: 0, waiting: 0 });
  });

  it('gives the turn on when a piece of work fails, and passes its error on', async () => {
    const queue = new WorkQueue(1);
    const log: string[] = [];
    const [first, second] = [pending(log, 'first'), pending(log, 'second')];
    const failed = queue.run(first.work);
    const next = queue.run(second.work);
    await settle();
    expect(log).toEqual(['start first']);
    first.fail(new Error('broken file'));
    await expect(failed).rejects.toThrow('broken file');
    await settle();
    expect(log).toEqual(['start first', 'start second']);
    second.end();
    await expect(next).resolves.toBe('second');
    expect(queue.size).toEqual({ running: 0, waiting: 0 });
  });
});
