import { EventEmitter } from 'node:events';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { addressKey, boundConnections, CONNECTION_LIMITS, CountsByAddress, InFlightByAddress } from './connection-limits.js';

describe('CountsByAddress', () => {
  it('admits up to the bound per key, and one more once one closes', () => {
    const counts = new CountsByAddress(2);
    expect([counts.open('a'), counts.open('a'), counts.open('a'), counts.open('b')]).toEqual([true, true, false, true]);
    expect(counts.of('a')).toBe(2);
    counts.close('a');
    expect(counts.of('a')).toBe(1);
    expect(counts.open('a')).toBe(true);
    counts.close('a');
    counts.close('a');
    counts.close('a');
    expect(counts.of('a')).toBe(0);
    expect([counts.open('a'), counts.open('a'), counts.open('a')]).toEqual([true, true, false]);
  });
});

describe('addressKey', () => {
  it('IPv4 as is, IPv6 by /64 (as the rate limits count)', () => {
    expect(addressKey('203.0.113.7')).toBe('203.0.113.7');
    expect(addressKey('2001:db8:1:2:aaaa::1')).toBe(addressKey('2001:db8:1:2:bbbb::2'));
    expect(addressKey('2001:db8:1:2::1')).not.toBe(addressKey('2001:db8:1:3::1'));
    expect(addressKey(undefined)).toBe('unknown');
    // Written otherwise, the same /64; an IPv4 address mapped into IPv6 is that IPv4 address; loopback alone.
    expect(addressKey('2001:DB8:1:2:0:0:0:1')).toBe(addressKey('2001:db8:1:2:ffff:ffff:ffff:ffff'));
    expect(addressKey('2001:db8:1:2::1%eth0')).toBe(addressKey('2001:db8:1:2::2'));
    expect(addressKey('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(addressKey('::1')).toBe('::1');
    expect(addressKey('::1')).not.toBe(addressKey('::2'));
  });
});

/** A socket as the server hands it over: its peer's address, and destroy(). */
function socketFrom(remoteAddress: string): Socket & { destroyed: boolean } {
  const socket = Object.assign(new EventEmitter(), { remoteAddress, destroyed: false, writableLength: 0, bytesWritten: 0 });
  return Object.assign(socket, { destroy: () => ((socket.destroyed = true), socket.emit('close'), socket) }) as unknown as Socket & {
    destroyed: boolean;
  };
}

describe('boundConnections', () => {
  const limits = { ...CONNECTION_LIMITS, maxConnectionsPerAddress: 2, checkEveryMs: 60_000 };

  it('closes at once a connection past the bound of its address; a trusted proxy’s are not counted', () => {
    const server = new EventEmitter() as unknown as Server;
    boundConnections(server, limits, (address) => address === '10.0.0.1');
    const connect = (address: string) => {
      const socket = socketFrom(address);
      server.emit('connection', socket);
      return socket;
    };
    const [a1, a2, a3] = [connect('203.0.113.7'), connect('203.0.113.7'), connect('203.0.113.7')];
    expect([a1.destroyed, a2.destroyed, a3.destroyed]).toEqual([false, false, true]);
    expect(connect('203.0.113.8').destroyed).toBe(false);
    expect([connect('10.0.0.1'), connect('10.0.0.1'), connect('10.0.0.1')].map((s) => s.destroyed)).toEqual([false, false, false]);
    a1.emit('close');
    expect(connect('203.0.113.7').destroyed).toBe(false);
    expect(server.maxConnections).toBe(CONNECTION_LIMITS.maxConnections);
    server.emit('close');
  });
});

describe('boundConnections when the server is nearly full', () => {
  // Room is made from 9 open connections on.
  const limits = { ...CONNECTION_LIMITS, maxConnections: 10, maxConnectionsPerAddress: 5, checkEveryMs: 60_000 };

  it('each new connection closes the oldest one without a request under way of the address holding the most', () => {
    const server = new EventEmitter() as unknown as Server;
    boundConnections(server, limits);
    const connect = (address: string) => {
      const socket = socketFrom(address);
      server.emit('connection', socket);
      return socket;
    };
    const a = Array.from({ length: 5 }, () => connect('203.0.113.7'));
    const b = Array.from({ length: 4 }, () => connect('2001:db8:1:2::' + Math.random().toString(16).slice(2, 6)));
    // A request under way on a's oldest: that one stays.
    const res = new EventEmitter();
    server.emit('request', { socket: a[0] }, res);

    const c1 = connect('198.51.100.1');
    expect(a.map((s) => s.destroyed)).toEqual([false, true, false, false, false]);
    expect(b.some((s) => s.destroyed)).toBe(false);
    expect(c1.destroyed).toBe(false);
    // a and b (one /64) now hold 4 each: the first found of the most-holding is a; then b, whose oldest goes first.
    connect('198.51.100.2');
    connect('198.51.100.3');
    expect(a.map((s) => s.destroyed)).toEqual([false, true, true, false, false]);
    expect(b.map((s) => s.destroyed)).toEqual([true, false, false, false]);
    // The request ended: a's oldest may go now.
    res.emit('close');
    connect('198.51.100.4');
    connect('198.51.100.5');
    expect(a[0]!.destroyed).toBe(true);
    expect([c1].map((s) => s.destroyed)).toEqual([false]);
    server.emit('close');
  });
});

describe('InFlightByAddress', () => {
  const request = (peer: string, client: string) => ({ socket: { remoteAddress: peer }, client }) as unknown as IncomingMessage;
  const response = () => Object.assign(new EventEmitter(), { refused: false }) as unknown as ServerResponse & { refused: boolean };

  it('counts the requests in flight of each forwarded address behind a trusted proxy, and nothing else', () => {
    const inFlight = new InFlightByAddress(
      (address) => address === '10.0.0.1',
      (req) => (req as unknown as { client: string }).client,
      2,
    );
    const refuse = (res: ServerResponse) => ((res as ServerResponse & { refused: boolean }).refused = true);
    const responses = [response(), response(), response()];
    expect(responses.map((res) => inFlight.admit(request('10.0.0.1', '203.0.113.7'), res, refuse))).toEqual([true, true, false]);
    expect(responses.map((res) => res.refused)).toEqual([false, false, true]);
    expect(inFlight.admit(request('10.0.0.1', '203.0.113.8'), response(), refuse)).toBe(true);
    // Not through the proxy: connections are bounded instead, requests are not counted.
    for (let i = 0; i < 5; i++) expect(inFlight.admit(request('203.0.113.7', '203.0.113.7'), response(), refuse)).toBe(true);
    responses[0]!.emit('close');
    expect(inFlight.admit(request('10.0.0.1', '203.0.113.7'), response(), refuse)).toBe(true);
  });
});
