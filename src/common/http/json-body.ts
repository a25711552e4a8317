import express from 'express';
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

const jsonParser = express.json({ limit: BODY_LIMIT, type: ['application/json', 'application/*+json'], verify: boundStructure });

/** Only the methods that carry a body here have it parsed (a GET with a body is not a 400 or a 413). */
export function parseJsonBody(req: express.Request, res: express.Response, next: express.NextFunction): void {
  if (req.method === 'POST' || req.method === 'PUT' || req.method === 'PATCH') jsonParser(req, res, next);
  else next();
}
