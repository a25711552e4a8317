/**
 * A preload for the bench's measured service (`node --import dist/bench/count-statements.js`): counts
 * every call of `pg`'s `Client.prototype.query` in the process, i.e. the round trips to PostgreSQL (a
 * simple-protocol query of several statements is one). The bench asks for the count over the IPC
 * channel (`'statements'` → `{ statements }`); the channel does not keep the process alive.
 */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { Client } = require('pg') as { Client: { prototype: { query: (...args: unknown[]) => unknown } } };
const query = Client.prototype.query;
let statements = 0;
Client.prototype.query = function (this: unknown, ...args: unknown[]) {
  statements++;
  return query.apply(this, args);
};
process.on('message', (message) => {
  if (message === 'statements') process.send?.({ statements });
});
process.channel?.unref();
