import { hash } from 'node:crypto';
import { isExactNumber } from '../common/http/json-body.js';

/** Deeper than this is refused (JSON.parse accepts any depth; recursion here would not). */
export const MAX_CANONICAL_DEPTH = 64;

export class TooDeepError extends Error {
  override name = 'TooDeepError';
}

/**
 * JSON with object keys sorted at every depth, so that two bodies that differ only in key
 * order (or white space) serialise to the same text. Numbers keep JSON's shortest form.
 * Throws TooDeepError past MAX_CANONICAL_DEPTH levels of nesting.
 */
export function canonicalJson(value: unknown, depth = 0): string {
  if (depth > MAX_CANONICAL_DEPTH) throw new TooDeepError(`JSON nested deeper than ${MAX_CANONICAL_DEPTH} levels`);
  // A number as written, when a double cannot hold it.
  if (isExactNumber(value)) return value.toString();
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item, depth + 1)).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key], depth + 1)}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export function sha256Hex(text: string): string {
  return hash('sha256', text, 'hex');
}
