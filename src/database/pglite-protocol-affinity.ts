import type { PGlite } from '@electric-sql/pglite';

// Frontend messages of an extended-query sequence (Parse, Bind, Describe, Execute, Close, Flush),
// and the ones that end a sequence (Sync, simple Query, Terminate).
const IN_SEQUENCE = new Set(['P', 'B', 'D', 'E', 'C', 'H']);
const END_OF_SEQUENCE = new Set(['S', 'Q', 'X']);

/**
 * PGLiteSocketServer (0.2.x) keeps a connection's turn only while PGlite reports an open transaction,
 * so outside one the Parse/Bind/Execute/Sync of concurrent connections interleave on PGlite's single
 * session ("unnamed prepared statement does not exist", or another connection's rows). This view also
 * reports "in transaction" from a connection's first extended-protocol message until its Sync.
 */
export function withProtocolAffinity(db: PGlite): PGlite {
  let midSequence = false;
  return new Proxy(db, {
    get(target, property) {
      if (property === 'isInTransaction') return () => midSequence || target.isInTransaction();
      if (property === 'execProtocolRawStream') {
        return (message: Uint8Array, options: Parameters<PGlite['execProtocolRawStream']>[1]) => {
          const type = String.fromCharCode(message[0] ?? 0);
          if (IN_SEQUENCE.has(type)) midSequence = true;
          else if (END_OF_SEQUENCE.has(type)) midSequence = false;
          return target.execProtocolRawStream(message, options);
        };
      }
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
