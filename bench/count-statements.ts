/**
 * A preload for the bench's measured service (`node --import dist/bench/count-statements.js`): counts
 * every call of `pg`'s `Client.prototype.query` in the process, i.e. the round trips to PostgreSQL (a
 * simple-protocol query of several statements is one). The bench asks for the count over the IPC
 * channel (`'statements'` → `{ statements }`); the channel does not keep the process alive. With
 * BENCH_TRACE_STATEMENTS=1 it also counts them by their text's first 70 characters (`'trace'` →
 * `{ trace }`, the most frequent first), to tell which requests make them. `'memory'` →
 * `{ memory }`: `process.memoryUsage()`, to tell the V8 heap from the rest of the RSS.
 */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { Client } = require('pg') as { Client: { prototype: { query: (...args: unknown[]) => unknown } } };
const query = Client.prototype.query;
let statements = 0;
const traced = process.env.BENCH_TRACE_STATEMENTS === '1' ? new Map<string, number>() : undefined;
Client.prototype.query = function (this: unknown, ...args: unknown[]) {
  statements++;
  if (traced) {
    const first = args[0] as string | { text?: string };
    const text = (typeof first === 'string' ? first : (first?.text ?? '')).replace(/\s+/g, ' ').trim().slice(0, 70);
    traced.set(text, (traced.get(text) ?? 0) + 1);
  }
  return query.apply(this, args);
};
process.on('message', (message) => {
  if (message === 'statements') process.send?.({ statements });
  if (message === 'memory') process.send?.({ memory: process.memoryUsage() });
  if (message === 'trace') process.send?.({ trace: [...(traced ?? [])].sort((a, b) => b[1] - a[1]).slice(0, 40) });
});
process.channel?.unref();
