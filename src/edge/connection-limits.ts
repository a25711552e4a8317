import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { normalizeIp } from '@nestjs/throttler';

/**
 * What one connection may hold. Unread output lives in socket buffers outside the V8 heap, so the
 * heap limit does not bound it: a client that sends requests and never reads the answers must lose
 * its connection, not grow the process.
 */
export const CONNECTION_LIMITS = {
  /**
   * Open connections at most; past it new ones are closed at once. Shared fairly: from 90 % of it
   * on, each new connection first closes the oldest connection without a request under way (idle,
   * or whose headers are still coming) of the address holding the most connections, so that a few
   * addresses holding many slow connections cannot lock others out.
   */
  maxConnections: 1_000,
  /**
   * Open connections from one client address at most (IPv6 by /64, as the rate limits count): past
   * it that address's new connections are closed at once, so that one address cannot fill
   * `maxConnections` (a tenth of it). A browser opens 6 per host, an API client a pool of a few.
   * From a trusted proxy (TRUST_PROXY), the same bound applies to the requests in flight of each
   * client address the proxy forwards (see InFlightByAddress).
   */
  maxConnectionsPerAddress: 100,
  /** A socket with no traffic either way for this long is closed (a stuck write counts as none). */
  idleMs: 60_000,
  /** A connection whose unsent output has not moved for this long is closed. */
  outputStallMs: 10_000,
  /** A connection holding more unsent output than this, and not sending it, is closed at the next check. */
  maxBufferedOutputBytes: 4 * 1024 * 1024,
  /** How often connections are checked. */
  checkEveryMs: 1_000,
};

interface Tracked {
  /** The address it counts under. */
  key: string;
  /** Requests of it under way (a response not yet finished). */
  busy: number;
  /** Bytes the kernel had taken at the last check. */
  sent: number;
  /** Since when output has waited without any of it being taken; undefined while it flows. */
  stalledSince?: number;
}

const BUSY = Symbol('connectionBusy');
type BusyResponse = ServerResponse & { [BUSY]?: Tracked };

/** A response's `close` listener, one for all (no closure per request): its connection has one request less under way. */
function notBusy(this: BusyResponse): void {
  const tracked = this[BUSY];
  if (tracked === undefined) return;
  this[BUSY] = undefined;
  tracked.busy -= 1;
}

/** Whether an address is a proxy TRUST_PROXY trusts (Express's compiled `trust proxy`, asked about the peer: hop 0). */
export type TrustsProxy = (address: string, hop: number) => boolean;

/** The key an address is counted under: IPv6 by /64 (one host commonly holds one; `::1` alone), IPv4 (mapped into IPv6 or not) as is. */
export const addressKey = (address: string | undefined): string => normalizeIp(address ?? 'unknown');

/**
 * Counts of open things (connections, requests) per client address, each bounded by `max`: `open`
 * says whether one more is allowed and counts it if so; `close` forgets it.
 */
export class CountsByAddress {
  private readonly counts = new Map<string, number>();

  constructor(private readonly max: number) {}

  open(key: string): boolean {
    const count = this.counts.get(key) ?? 0;
    if (count >= this.max) return false;
    this.counts.set(key, count + 1);
    return true;
  }

  close(key: string): void {
    const count = this.counts.get(key) ?? 0;
    if (count <= 1) this.counts.delete(key);
    else this.counts.set(key, count - 1);
  }

  /** Open things of `key` (for tests and diagnostics). */
  of(key: string): number {
    return this.counts.get(key) ?? 0;
  }
}

/**
 * Applies CONNECTION_LIMITS to an HTTP server (before it listens). A connection from a proxy that
 * `trusts` trusts carries many clients: it is not held to the bound per address here
 * (InFlightByAddress bounds the clients it forwards instead), but it is shared like any other when
 * the server is nearly full.
 */
export function boundConnections(server: Server, limits = CONNECTION_LIMITS, trusts: TrustsProxy = () => false): void {
  server.maxConnections = limits.maxConnections;
  server.timeout = limits.idleMs;
  const makeRoomFrom = limits.maxConnections - Math.max(1, Math.floor(limits.maxConnections / 10));
  const sockets = new Map<Socket, Tracked>();
  // Each address's open connections, oldest first (a Set keeps the order they were added in).
  const byAddress = new Map<string, Set<Socket>>();
  const forget = (socket: Socket) => {
    const tracked = sockets.get(socket);
    if (!tracked) return;
    sockets.delete(socket);
    const held = byAddress.get(tracked.key)!;
    held.delete(socket);
    if (held.size === 0) byAddress.delete(tracked.key);
  };

  /** Closes the oldest connection without a request under way of the address holding the most that has one. */
  const makeRoom = () => {
    let victim: Socket | undefined;
    let most = 0;
    for (const held of byAddress.values()) {
      if (held.size <= most) continue;
      for (const socket of held) {
        if (sockets.get(socket)!.busy === 0) {
          victim = socket;
          most = held.size;
          break;
        }
      }
    }
    if (victim) {
      forget(victim);
      victim.destroy();
    }
  };

  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress;
    const key = addressKey(address);
    const held = byAddress.get(key) ?? new Set<Socket>();
    const bounded = address === undefined || !trusts(address, 0);
    if (bounded && held.size >= limits.maxConnectionsPerAddress) {
      socket.destroy();
      return;
    }
    if (sockets.size >= makeRoomFrom) makeRoom();
    held.add(socket);
    byAddress.set(key, held);
    sockets.set(socket, { key, busy: 0, sent: 0 });
    socket.once('close', () => forget(socket));
  });
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const tracked = sockets.get(req.socket);
    if (!tracked) return;
    tracked.busy += 1;
    (res as BusyResponse)[BUSY] = tracked;
    res.on('close', notBusy);
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

/**
 * Behind a trusted proxy the service sees the proxy's connections only, each carrying many clients:
 * there the per-address bound applies to the requests in flight of each client address the proxy
 * forwards (`X-Forwarded-For`, read as TRUST_PROXY says). `admit` answers whether the request may
 * go on; when it may not, it has answered 429 (and closed the connection) itself.
 */
export class InFlightByAddress {
  private readonly counts: CountsByAddress;

  constructor(
    private readonly trusts: TrustsProxy,
    private readonly clientAddress: (req: IncomingMessage) => string,
    max = CONNECTION_LIMITS.maxConnectionsPerAddress,
  ) {
    this.counts = new CountsByAddress(max);
  }

  admit(req: IncomingMessage, res: ServerResponse, refuse: (res: ServerResponse) => void): boolean {
    const peer = req.socket.remoteAddress;
    if (peer === undefined || !this.trusts(peer, 0)) return true;
    const key = addressKey(this.clientAddress(req));
    if (!this.counts.open(key)) {
      refuse(res);
      return false;
    }
    res.once('close', () => this.counts.close(key));
    return true;
  }
}
