import type { Server } from 'node:http';
import type { Socket } from 'node:net';

/**
 * What one connection may hold. Unread output lives in socket buffers outside the V8 heap, so the
 * heap limit does not bound it: a client that sends requests and never reads the answers must lose
 * its connection, not grow the process.
 */
export const CONNECTION_LIMITS = {
  /** Open connections at most; past it new ones are closed at once. */
  maxConnections: 1_000,
  /** A socket with no traffic either way for this long is closed (a stuck write counts as none). */
  idleMs: 60_000,
  /** A connection whose unsent output has not moved for this long is closed. */
  outputStallMs: 10_000,
  /** A connection holding more unsent output than this, and not sending it, is closed at the next check. */
  maxBufferedOutputBytes: 4 * 1024 * 1024,
  /** How often connections are checked. */
  checkEveryMs: 1_000,
};

interface OutputState {
  /** Bytes the kernel had taken at the last check. */
  sent: number;
  /** Since when output has waited without any of it being taken; undefined while it flows. */
  stalledSince?: number;
}

/** Applies CONNECTION_LIMITS to an HTTP server (before it listens). */
export function boundConnections(server: Server, limits = CONNECTION_LIMITS): void {
  server.maxConnections = limits.maxConnections;
  server.timeout = limits.idleMs;
  const sockets = new Map<Socket, OutputState>();
  server.on('connection', (socket: Socket) => {
    sockets.set(socket, { sent: 0 });
    socket.once('close', () => sockets.delete(socket));
  });
  const check = setInterval(() => {
    const now = Date.now();
    for (const [socket, state] of sockets) {
      const buffered = socket.writableLength;
      // bytesWritten counts what is still buffered too.
      const sent = socket.bytesWritten - buffered;
      if (buffered === 0 || sent > state.sent) {
        state.stalledSince = undefined;
      } else if (buffered > limits.maxBufferedOutputBytes && state.stalledSince !== undefined) {
        socket.destroy();
      } else {
        state.stalledSince ??= now;
        if (now - state.stalledSince >= limits.outputStallMs) socket.destroy();
      }
      state.sent = sent;
    }
  }, limits.checkEveryMs);
  check.unref();
  server.once('close', () => clearInterval(check));
}
