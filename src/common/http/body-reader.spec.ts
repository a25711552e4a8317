import type { IncomingMessage } from 'node:http';
import { PassThrough } from 'node:stream';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { HttpException } from '@nestjs/common';
import { Problem } from '../problem/problem.js';
import { INFLATE_LIMITS, readRequestBody, withinInflateRatio } from './body-reader.js';

const tooLarge = () => new Problem('payload_too_large', 'too large');
const LIMITS = { maxBytes: 1024 * 1024, tooLarge };

/** A request as the HTTP server gives it: a stream of the body's bytes, with headers and `complete` once all of it came. */
function requestOf(chunks: Buffer[], headers: Record<string, string> = {}, options: { cut?: boolean } = {}): IncomingMessage & PassThrough {
  const req = Object.assign(new PassThrough(), { headers, complete: false }) as unknown as IncomingMessage & PassThrough;
  setImmediate(() => {
    for (const chunk of chunks) req.write(chunk);
    if (options.cut) {
      req.destroy();
      return;
    }
    (req as { complete: boolean }).complete = true;
    req.end();
  });
  return req;
}

/** `bytes` cut in pieces of `size`, as a socket delivers them. */
const pieces = (bytes: Buffer, size = 1024) =>
  Array.from({ length: Math.ceil(bytes.length / size) }, (_, i) => bytes.subarray(i * size, (i + 1) * size));

describe('withinInflateRatio', () => {
  it('allows the floor whatever the ratio, and past it the ratio times the bytes received', () => {
    const limits = { floorBytes: 1000, ratio: 10 };
    expect(withinInflateRatio(1000, 1, limits)).toBe(true);
    expect(withinInflateRatio(1001, 1, limits)).toBe(false);
    expect(withinInflateRatio(2000, 200, limits)).toBe(true);
    expect(withinInflateRatio(2001, 200, limits)).toBe(false);
    expect(withinInflateRatio(0, 0, limits)).toBe(true);
  });

  it('by default: 128 KiB, then 50:1', () => {
    expect(INFLATE_LIMITS).toEqual({ floorBytes: 128 * 1024, ratio: 50 });
    expect(withinInflateRatio(128 * 1024, 0)).toBe(true);
    expect(withinInflateRatio(128 * 1024 + 1, 0)).toBe(false);
    expect(withinInflateRatio(1024 * 1024, 20_972)).toBe(true);
    expect(withinInflateRatio(1024 * 1024, 20_971)).toBe(false);
  });
});

describe('readRequestBody', () => {
  const text = Buffer.from('stream,material,unit,quantity\n'.repeat(5000));

  it('reads the bytes as sent', async () => {
    expect((await readRequestBody(requestOf(pieces(text)), LIMITS)).equals(text)).toBe(true);
    await expect(readRequestBody(requestOf([]), LIMITS)).resolves.toEqual(Buffer.alloc(0));
  });

  it.each([
    ['gzip', gzipSync],
    ['deflate', deflateSync],
    ['br', brotliCompressSync],
    [' GZip ', gzipSync],
  ])('inflates Content-Encoding %j', async (coding, compress) => {
    const small = Buffer.from('stream,material,unit,quantity\nEMB,Verre,kg,1\n');
    await expect(readRequestBody(requestOf(pieces(compress(small), 7), { 'content-encoding': coding }), LIMITS)).resolves.toEqual(small);
    await expect(readRequestBody(requestOf([], { 'content-encoding': 'identity' }), LIMITS)).resolves.toEqual(Buffer.alloc(0));
  });

  it('a compressed body within the ratio is read whole, past the floor', async () => {
    const varied = Buffer.from(Array.from({ length: 20_000 }, (_, i) => `EMB,material ${(i * 7919) % 10007},kg,${i}.${i % 7}\n`).join(''));
    const wire = gzipSync(varied);
    expect(varied.length).toBeGreaterThan(INFLATE_LIMITS.floorBytes);
    expect(varied.length / wire.length).toBeLessThan(INFLATE_LIMITS.ratio);
    expect((await readRequestBody(requestOf(pieces(wire), { 'content-encoding': 'gzip' }), LIMITS)).equals(varied)).toBe(true);
  });

  it('413 when a compressed body inflates past the ratio (after the floor), however small the whole', async () => {
    const bomb = Buffer.alloc(200 * 1024, 0x20);
    const error = await readRequestBody(requestOf(pieces(gzipSync(bomb)), { 'content-encoding': 'gzip' }), LIMITS).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Problem);
    expect(error).toMatchObject({
      status: 413,
      code: 'payload_too_large',
      detail: expect.stringContaining('inflates more than 50:1 (past 128 KiB)'),
    });
    // The same bytes uncompressed are no bomb.
    await expect(readRequestBody(requestOf(pieces(bomb)), LIMITS)).resolves.toHaveLength(bomb.length);
    // Under the floor, any ratio.
    await expect(
      readRequestBody(requestOf([gzipSync(Buffer.alloc(100 * 1024))], { 'content-encoding': 'gzip' }), LIMITS),
    ).resolves.toHaveLength(100 * 1024);
  });

  it('the caller’s 413 past maxBytes, as sent or once inflated', async () => {
    await expect(readRequestBody(requestOf(pieces(text)), { maxBytes: text.length - 1, tooLarge })).rejects.toMatchObject({
      detail: 'too large',
    });
    await expect(readRequestBody(requestOf(pieces(text)), { maxBytes: text.length, tooLarge })).resolves.toHaveLength(text.length);
    const varied = Buffer.from(Array.from({ length: 2000 }, (_, i) => `${(i * 7919) % 10007};`).join(''));
    await expect(
      readRequestBody(requestOf([gzipSync(varied)], { 'content-encoding': 'gzip' }), { maxBytes: 1000, tooLarge }),
    ).rejects.toMatchObject({ detail: 'too large' });
  });

  it('reads no more of a refused body (the connection is then closed by the answer)', async () => {
    const req = requestOf(pieces(text, 100));
    await expect(readRequestBody(req, { maxBytes: 1000, tooLarge })).rejects.toMatchObject({ status: 413 });
    expect(req.isPaused()).toBe(true);
    expect(req.listenerCount('data')).toBe(0);
  });

  it('415 for a coding it does not know, 400 for broken compressed data or a request cut short', async () => {
    await expect(readRequestBody(requestOf([text], { 'content-encoding': 'compress' }), LIMITS)).rejects.toMatchObject({
      status: 415,
      code: 'unsupported_media_type',
      detail: 'Content-Encoding compress is not supported; send the body as is, or with Content-Encoding gzip, deflate or br.',
    });
    const broken = await readRequestBody(requestOf([Buffer.from('not gzip at all')], { 'content-encoding': 'gzip' }), LIMITS).catch(
      (e: unknown) => e,
    );
    expect(broken).toBeInstanceOf(HttpException);
    expect((broken as HttpException).getStatus()).toBe(400);
    expect((broken as HttpException).message).toMatch(/^The gzip body cannot be decompressed: /);
    const truncated = gzipSync(text).subarray(0, 100);
    await expect(readRequestBody(requestOf([truncated], { 'content-encoding': 'gzip' }), LIMITS)).rejects.toBeInstanceOf(HttpException);
    const cut = await readRequestBody(requestOf([text.subarray(0, 10)], {}, { cut: true }), LIMITS).catch((e: unknown) => e);
    expect(cut).toBeInstanceOf(HttpException);
    expect((cut as HttpException).getStatus()).toBe(400);
  });
});
