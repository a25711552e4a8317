/** Errors that mean "the database cannot be reached now", as opposed to a bug. */
const UNAVAILABLE_NODE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOENT', 'EHOSTUNREACH']);
// SQLSTATE classes 08 (connection exception), 53 (insufficient resources: disk full, out of memory, too many
// connections) and 57P (operator intervention: shutdown, cannot connect now). A statement cancelled by its
// timeout (57014) is told apart below.
const UNAVAILABLE_SQLSTATE = /^(08|53|57P0[1-4])/;
const UNAVAILABLE_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'Client has encountered a connection error',
  'Connection is not established',
  'DataSource is not initialized',
  // Our client-side query timeout: the database stopped answering (database-options.ts).
  'Query read timeout',
];

export function isDatabaseUnavailable(error: unknown): boolean {
  for (let e = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const { code, message, driverError } = e as { code?: unknown; message?: unknown; driverError?: unknown };
    if (typeof code === 'string' && (UNAVAILABLE_NODE_CODES.has(code) || UNAVAILABLE_SQLSTATE.test(code))) return true;
    if (typeof message === 'string' && UNAVAILABLE_MESSAGES.some((m) => message.includes(m))) return true;
    if (driverError && isDatabaseUnavailable(driverError)) return true;
  }
  return false;
}

/** SQLSTATE 57014 (query_canceled): a statement ran past its statement_timeout (or was cancelled). */
export function isStatementTimeout(error: unknown): boolean {
  for (
    let e = error, depth = 0;
    e && depth < 5;
    e = (e as { cause?: unknown }).cause ?? (e as { driverError?: unknown }).driverError, depth++
  ) {
    if ((e as { code?: unknown }).code === '57014') return true;
  }
  return false;
}
