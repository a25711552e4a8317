import { type CallHandler, type ExecutionContext, HttpException, Injectable, type NestInterceptor } from '@nestjs/common';
import { isUtf8 } from 'node:buffer';
import express from 'express';
import type { Observable } from 'rxjs';
import typeis from 'type-is';
import { Problem } from '../problem/problem.js';

/** Largest accepted request body; over it → 413. */
export const BODY_LIMIT = '1mb';
/**
 * Most JSON objects and arrays a body may hold (a 1,000-line declaration holds about 1,000; 10,000 lines still get the precise 422).
 * Parsed, each costs some 50 bytes of heap for 1 to 3 bytes of text: without this bound a 1 MiB
 * body of `[{},{},…]` becomes ~20 MB of objects, and a few dozen of them in flight take the
 * process's memory to gigabytes.
 */
export const MAX_JSON_CONTAINERS = 20_000;

/** Counts `{` and `[` bytes (inside strings too: an over-count only makes the bound stricter). */
function countContainers(body: Buffer, max: number): number {
  let count = 0;
  for (const byte of [0x7b, 0x5b]) {
    for (let at = body.indexOf(byte); at !== -1 && count <= max; at = body.indexOf(byte, at + 1)) count++;
  }
  return count;
}

/** body-parser's `verify` hook: runs on the raw bytes, before JSON.parse allocates anything. */
function boundStructure(_req: unknown, _res: unknown, body: Buffer): void {
  if (countContainers(body, MAX_JSON_CONTAINERS) > MAX_JSON_CONTAINERS) {
    throw new Problem(
      'payload_too_large',
      `The request body holds more than ${MAX_JSON_CONTAINERS.toLocaleString('en')} JSON objects and arrays; a declaration has at most 1,000 lines.`,
    );
  }
}

/** JSON text is UTF-8 (RFC 8259 §8.1): invalid bytes are refused, not stored as U+FFFD. */
function requireUtf8(body: Buffer): void {
  if (!isUtf8(body)) throw new Problem('malformed_json', 'The request body is not valid UTF-8.');
}

const JSON_TYPES = ['application/json', 'application/*+json'];
const jsonParser = express.json({
  limit: BODY_LIMIT,
  type: JSON_TYPES,
  verify: (req, res, body) => {
    requireUtf8(body);
    boundStructure(req, res, body);
  },
});

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

/**
 * The request body is read only once the request is routed and authenticated: a global
 * interceptor runs after the guards and before the pipes. Until then nothing of it is read, so a
 * request without a valid token costs no parsing, and a wrong method or path gets its 404/405
 * whatever its body. Then: 415 for a body that is not JSON, 413 over 1 MiB or 20,000 objects and
 * arrays, 400 for malformed JSON. Only the methods that carry a body here have it parsed (a GET
 * with a body is not a 400 or a 413).
 */
@Injectable()
export class JsonBodyInterceptor implements NestInterceptor {
  async intercept(context: ExecutionContext, next: CallHandler): Promise<Observable<unknown>> {
    const req = context.switchToHttp().getRequest<express.Request>();
    if (BODY_METHODS.has(req.method)) {
      requireJson(req);
      await parse(req, context.switchToHttp().getResponse<express.Response>());
    }
    return next.handle();
  }
}

/** The API speaks JSON only: a body of another media type gets 415 (a body-less POST, e.g. `/confirm`, is fine). */
function requireJson(req: express.Request): void {
  const hasBody = typeis.hasBody(req) && req.headers['content-length'] !== '0';
  if (hasBody && !typeis(req, JSON_TYPES)) {
    throw new Problem('unsupported_media_type', `Content-Type ${req.headers['content-type'] ?? '(none)'} is not supported; send application/json.`, {
      headers: { 'Accept-Post': 'application/json' },
    });
  }
}

/** body-parser's JSON parser; its errors as Nest's adapter passes on those of middleware (see ProblemFilter). */
function parse(req: express.Request, res: express.Response): Promise<void> {
  return new Promise((resolve, reject) => {
    void jsonParser(req, res, (error?: unknown) => {
      if (error === undefined) resolve();
      else if (error instanceof Problem) reject(error);
      else {
        const status = (error as { status?: number }).status ?? 400;
        reject(new HttpException(error instanceof Error ? error.message : String(error), status, { cause: error }));
      }
    });
  });
}
