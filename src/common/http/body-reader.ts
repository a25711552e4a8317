import type { IncomingMessage } from 'node:http';
import type { Transform } from 'node:stream';
import zlib from 'node:zlib';
import { HttpException } from '@nestjs/common';
import { Problem } from '../problem/problem.js';

/**
 * How far a compressed body may inflate: the more of `floorBytes` and `ratio` × the bytes received (never
 * past the body limit). The floor covers every real request (a 1,000-line declaration is 25–60 KB as CSV,
 * 70–150 KB as JSON; even identical lines stay under 128 KiB); real bodies compress 4–20×, a bomb far more
 * than 50:1 (1 MiB of blank lines gzips to ~1 KB; brotli reaches 75,000:1): a 1 MiB body costs its sender ≥ 21 KB.
 */
export const INFLATE_LIMITS = { floorBytes: 128 * 1024, ratio: 50 };

/** Whether `inflated` bytes out of `wire` bytes received stay within the bound. */
export function withinInflateRatio(inflated: number, wire: number, limits = INFLATE_LIMITS): boolean {
  return inflated <= Math.max(limits.floorBytes, limits.ratio * wire);
}

/** Content codings a body may be sent in; `identity` is the body as is. */
const DECODERS: Record<string, (() => Transform) | undefined> = {
  gzip: () => zlib.createGunzip(),
  deflate: () => zlib.createInflate(),
  br: () => zlib.createBrotliDecompress(),
};

export interface BodyLimits {
  /** The most bytes a body may hold once inflated. */
  maxBytes: number;
  /** The answer when it holds more (the caller's 413). */
  tooLarge: () => Problem;
  inflate?: typeof INFLATE_LIMITS;
}

/**
 * Reads a request's body: its bytes, inflated if sent with `Content-Encoding` gzip, deflate or br.
 * Refused (and no more of it read: the answer then carries `Connection: close`, see ProblemFilter)
 * past `maxBytes` once inflated or past the inflate ratio (413), when the coding is unknown (415),
 * the compressed data is broken or the request is cut short (400).
 */
export function readRequestBody(req: IncomingMessage, limits: BodyLimits): Promise<Buffer> {
  const coding = (req.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  const inflate = limits.inflate ?? INFLATE_LIMITS;
  return new Promise((resolve, reject) => {
    let decoder: Transform | undefined;
    if (coding !== 'identity') {
      const make = DECODERS[coding];
      if (!make) {
        return reject(
          new Problem(
            'unsupported_media_type',
            `Content-Encoding ${coding} is not supported; send the body as is, or with Content-Encoding gzip, deflate or br.`,
          ),
        );
      }
      decoder = make();
    }
    const chunks: Buffer[] = [];
    let wire = 0;
    let inflated = 0;
    let settled = false;
    const finish = (error?: Error) => {
      if (settled) return;
      settled = true;
      req.off('data', onWire);
      req.off('close', onClose);
      req.off('error', onError);
      if (decoder) {
        req.unpipe(decoder);
        decoder.removeAllListeners('data');
        decoder.on('error', () => {});
        decoder.destroy();
      }
      if (error) {
        // Read no more of it: the refusal closes the connection.
        req.pause();
        reject(error);
      } else {
        resolve(Buffer.concat(chunks, inflated));
      }
    };
    const onWire = (chunk: Buffer) => {
      wire += chunk.length;
      if (!decoder) onInflated(chunk);
    };
    const onInflated = (chunk: Buffer) => {
      inflated += chunk.length;
      if (inflated > limits.maxBytes) return finish(limits.tooLarge());
      if (decoder && !withinInflateRatio(inflated, wire, inflate)) {
        return finish(
          new Problem(
            'payload_too_large',
            `The compressed body inflates more than ${inflate.ratio}:1 (past ${inflate.floorBytes / 1024} KiB); send it uncompressed, or compressed less.`,
          ),
        );
      }
      chunks.push(chunk);
    };
    const onClose = () => {
      if (!req.complete) finish(new HttpException('The request was aborted before its body was complete.', 400));
    };
    const onError = (error: Error) =>
      finish(new HttpException(`The request body cannot be read: ${error.message}.`, 400, { cause: error }));
    // Counted before the decoder sees the bytes (listeners run in the order they were added).
    req.on('data', onWire);
    req.once('close', onClose);
    req.once('error', onError);
    if (decoder) {
      decoder.on('data', onInflated);
      decoder.once('error', (error: Error) =>
        finish(new HttpException(`The ${coding} body cannot be decompressed: ${error.message}.`, 400, { cause: error })),
      );
      decoder.once('end', () => finish());
      req.pipe(decoder);
    } else {
      req.once('end', () => finish());
    }
  });
}
