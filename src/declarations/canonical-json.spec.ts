import { createHash } from 'node:crypto';
import { canonicalJson, MAX_CANONICAL_DEPTH, sha256Hex, TooDeepError } from './canonical-json.js';

describe('canonicalJson', () => {
  it('sorts keys at every depth and keeps array order', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: null } })).toBe('{"a":{"c":null,"d":[3,{"y":2,"z":1}]},"b":1}');
    expect(canonicalJson([2, 1])).not.toBe(canonicalJson([1, 2]));
  });

  it('gives one hash for bodies that differ only in key order or spacing', () => {
    const a = JSON.parse('{"period":"2025-S1","lines":[{"stream":"EMB","quantity":1.50}]}');
    const b = JSON.parse('{ "lines": [ { "quantity": 1.5, "stream": "EMB" } ], "period": "2025-S1" }');
    expect(sha256Hex(canonicalJson(a))).toBe(sha256Hex(canonicalJson(b)));
    expect(sha256Hex(canonicalJson(a))).not.toBe(sha256Hex(canonicalJson({ ...a, period: '2025-S2' })));
  });

  it('escapes strings as JSON does', () => {
    expect(canonicalJson({ 'k"': 'a\nb' })).toBe('{"k\\"":"a\\nb"}');
  });

  it('refuses deep nesting instead of overflowing the stack', () => {
    const nested = (depth: number) => JSON.parse('['.repeat(depth) + ']'.repeat(depth));
    expect(() => canonicalJson(nested(MAX_CANONICAL_DEPTH + 1))).not.toThrow();
    expect(() => canonicalJson(nested(MAX_CANONICAL_DEPTH + 2))).toThrow(TooDeepError);
    expect(() => canonicalJson(nested(300_000))).toThrow(TooDeepError);
  });

  it('hashes UTF-8 text as SHA-256 in hex (the content hashes stored since the first release)', () => {
    expect(sha256Hex('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(sha256Hex('Étui — 1½ €')).toBe(createHash('sha256').update('Étui — 1½ €', 'utf8').digest('hex'));
  });
});
