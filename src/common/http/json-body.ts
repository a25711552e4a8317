import { isUtf8 } from 'node:buffer';
import { isSafeNumber, parse as parseLossless } from 'lossless-json';
import { Problem } from '../problem/problem.js';

/** Largest accepted request body, in bytes; over it → 413. */
export const BODY_LIMIT_BYTES = 1024 * 1024;
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

/**
 * A number that a double cannot hold as written (`0.0009999999999999999999`, `1e400`): kept as its
 * JSON text, so that rules on decimals and range judge what was sent, not its rounding.
 */
export class ExactNumber {
  // The default: class-transformer (DTO bodies) makes instances without arguments, then copies fields.
  constructor(readonly text = '') {}

  toString(): string {
    return this.text;
  }
}

export const isExactNumber = (value: unknown): value is ExactNumber => value instanceof ExactNumber;

/** Numbers a double holds exactly as written stay numbers; the others keep their text. */
const parseNumber = (text: string) => (isSafeNumber(text) ? Number(text) : new ExactNumber(text));

/**
 * A JSON body, UTF-8: 413 past MAX_JSON_CONTAINERS (counted on the raw bytes, before anything is
 * allocated), 400 if malformed (duplicate keys included: which one counts would be a guess).
 */
export function parseJsonBody(bytes: Buffer): unknown {
  if (countContainers(bytes, MAX_JSON_CONTAINERS) > MAX_JSON_CONTAINERS) {
    throw new Problem(
      'payload_too_large',
      `The request body holds more than ${MAX_JSON_CONTAINERS.toLocaleString('en')} JSON objects and arrays; a declaration has at most 1,000 lines.`,
    );
  }
  if (bytes.length === 0) return {};
  // JSON text is UTF-8 (RFC 8259 §8.1): invalid bytes are refused, not stored as U+FFFD.
  if (!isUtf8(bytes)) throw new Problem('malformed_json', 'The request body is not valid UTF-8.');
  // A UTF-8 byte order mark is no part of the text (body-parser's decoder dropped it too).
  const text = (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? bytes.subarray(3) : bytes).toString('utf8');
  // Objects and arrays only, as body-parser's strict mode had it: a bare `1` or `"x"` is malformed.
  if (!/^[\x20\t\n\r]*[{[]/.test(text))
    throw new Problem('malformed_json', 'The request body is not valid JSON: a JSON object or array is expected.');
  try {
    return plainParse(text) ?? parseExactly(text);
  } catch (error) {
    if (error instanceof SyntaxError)
      throw new Problem('malformed_json', `The request body is not valid JSON: ${error.message}.`, { cause: error });
    throw error;
  }
}

/** The lossless parser's reading of `text`: numbers a double cannot hold kept as their text, a key given twice with two values refused. */
function parseExactly(text: string): unknown {
  try {
    return parseLossless(text, null, parseNumber);
  } catch (error) {
    // The lossless parser recurses: a body nested thousands of levels deep (never a valid
    // request; at most 20,000 levels here) is parsed by JSON.parse instead, for the precise 422.
    if (error instanceof RangeError) return JSON.parse(text) as unknown;
    throw error;
  }
}

/**
 * JSON.parse's reading of `text` (several times quicker than the lossless parser), when it is exactly
 * the lossless parser's: every number written with at most 15 digits and no exponent (a double holds
 * it as written, so `parseNumber` would make the same number), and no key given twice in an object.
 * Undefined otherwise, and for text that is not JSON (the lossless parser says why).
 */
function plainParse(text: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const keys = plainKeys(text);
  return keys !== undefined && keys === keysOf(value) ? value : undefined;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const DOT = 0x2e;
const isDigit = (code: number) => code >= 0x30 && code <= 0x39;
const isSpace = (code: number) => code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d;

/**
 * In valid JSON `text`, the object keys written (a string followed by `:`), or undefined if a number has
 * more than 15 digits or an exponent.
 */
function plainKeys(text: string): number | undefined {
  let keys = 0;
  for (let at = 0; at < text.length; at++) {
    const code = text.charCodeAt(at);
    if (code === QUOTE) {
      // The closing quote: the next one not escaped (preceded by an even number of backslashes).
      let end = text.indexOf('"', at + 1);
      for (;;) {
        let backslashes = 0;
        while (text.charCodeAt(end - 1 - backslashes) === BACKSLASH) backslashes++;
        if (backslashes % 2 === 0) break;
        end = text.indexOf('"', end + 1);
      }
      at = end + 1;
      while (isSpace(text.charCodeAt(at))) at++;
      if (text.charCodeAt(at) === COLON) keys++;
      at--;
    } else if (isDigit(code)) {
      let digits = 0;
      for (let next = code; isDigit(next) || next === DOT; next = text.charCodeAt(++at)) if (next !== DOT) digits++;
      if (digits > 15 || (text.charCodeAt(at) | 0x20) === 0x65) return undefined; // e or E
      at--;
    }
  }
  return keys;
}

/** The keys of every object in a parsed JSON value (without recursion: it may be nested 20,000 deep). */
function keysOf(value: unknown): number {
  let keys = 0;
  const stack = [value];
  while (stack.length > 0) {
    const next = stack.pop();
    if (next === null || typeof next !== 'object') continue;
    if (Array.isArray(next)) {
      for (const item of next) stack.push(item);
    } else {
      for (const key in next) {
        keys++;
        stack.push((next as Record<string, unknown>)[key]);
      }
    }
  }
  return keys;
}
