import type { NextFunction, Request, Response } from 'express';
import typeis from 'type-is';
import { Problem } from '../problem/problem.js';

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

/**
 * The API speaks JSON only: a request that carries a body of another media type gets 415
 * before any route runs (a body-less POST, e.g. `/confirm`, is fine).
 */
export function requireJson(req: Request, _res: Response, next: NextFunction): void {
  const hasBody = typeis.hasBody(req) && req.headers['content-length'] !== '0';
  if (BODY_METHODS.has(req.method) && hasBody && !typeis(req, ['application/json', 'application/*+json'])) {
    next(
      new Problem('unsupported_media_type', `Content-Type ${req.headers['content-type'] ?? '(none)'} is not supported; send application/json.`, {
        headers: { 'Accept-Post': 'application/json' },
      }),
    );
    return;
  }
  next();
}
