import { crc32 } from 'node:zlib';
import {
  base62,
  checksumOf,
  displayPrefix,
  generateToken,
  hashToken,
  OPERATOR_TOKEN_PREFIX,
  parseClientToken,
  parseToken,
  TEST_TOKEN_PREFIX,
  TOKEN_PREFIX,
} from './token-format.js';

const SHAPE = /^eprc_[0-9A-Za-z]{32}_[0-9A-Za-z]{6}$/;

describe('token format', () => {
  it('generates eprc_<32 base62>_<6 base62>, with the CRC32 of the part before the checksum', () => {
    for (let i = 0; i < 200; i++) {
      const token = generateToken();
      expect(token).toMatch(SHAPE);
      const body = token.slice(0, -7);
      expect(token.slice(-6)).toBe(base62(crc32(body)));
      expect(parseToken(token)).toEqual({ ok: true, token, displayPrefix: token.slice(0, 12) });
    }
  });

  it('draws every random character uniformly from all 62 symbols (no fixed or missing characters)', () => {
    const seen = new Set<string>();
    const tokens = new Set<string>();
    for (let i = 0; i < 500; i++) {
      const token = generateToken();
      tokens.add(token);
      for (const c of token.slice(5, 37)) seen.add(c);
    }
    expect(tokens.size).toBe(500);
    expect(seen.size).toBe(62);
  });

  it('favours no symbol: bytes past the last whole multiple of 62 are dropped, not folded onto the first symbols', () => {
    // 96,000 characters: about 1,548 of each symbol (σ ≈ 39, the bound 18 % ≈ 7σ); keeping bytes 248–255 would give
    // symbols 0–7 a quarter more (≈ 1,290), keeping 248 alone would give `0` a quarter more.
    const counts = new Map<string, number>();
    for (let i = 0; i < 3000; i++) for (const c of generateToken().slice(5, 37)) counts.set(c, (counts.get(c) ?? 0) + 1);
    const mean = (3000 * 32) / 62;
    for (const [symbol, count] of counts) expect({ symbol, off: Math.abs(count - mean) > 0.18 * mean }).toEqual({ symbol, off: false });
  });

  it('encodes base62 with left zero padding to 6 characters, covering the whole 32-bit range', () => {
    expect(base62(0)).toBe('000000');
    expect(base62(61)).toBe('00000z');
    expect(base62(62)).toBe('000010');
    expect(base62(0xffffffff)).toBe('4gfFC3');
    expect(62 ** 6).toBeGreaterThan(2 ** 32);
  });

  it('uses the fixed prefix and shows the first 12 characters as display prefix', () => {
    const token = generateToken();
    expect(token.startsWith(`${TOKEN_PREFIX}_`)).toBe(true);
    expect(displayPrefix(token)).toHaveLength(12);
    expect(token.startsWith(displayPrefix(token))).toBe(true);
  });

  describe('parseToken (shape and checksum only, no I/O)', () => {
    const valid = generateToken();
    const flip = (text: string, at: number) => text.slice(0, at) + (text[at] === 'a' ? 'b' : 'a') + text.slice(at + 1);

    it.each([
      ['empty', '', 'empty'],
      ['another prefix', valid.replace(/^eprc/, 'eprx'), 'malformed'],
      ['upper-case prefix', valid.replace(/^eprc/, 'EPRC'), 'malformed'],
      ['too short', valid.slice(0, -1), 'malformed'],
      ['too long', `${valid}a`, 'malformed'],
      ['a character outside base62', `${valid.slice(0, 10)}-${valid.slice(11)}`, 'malformed'],
      ['white space inside', `${valid.slice(0, 10)} ${valid.slice(11)}`, 'malformed'],
      ['no separators', valid.replace(/_/g, ''), 'malformed'],
      ['very long input', 'a'.repeat(10_000), 'malformed'],
      ['a typo in the random part', flip(valid, 20), 'checksum'],
      ['a typo in the checksum', flip(valid, valid.length - 1), 'checksum'],
    ])('rejects %s', (_label, text, reason) => {
      expect(parseToken(text)).toEqual({ ok: false, reason });
    });

    it('checks the checksum against the whole body including the prefix', () => {
      const body = `eprc_${'A'.repeat(32)}`;
      expect(parseToken(`${body}_${checksumOf(body)}`).ok).toBe(true);
      expect(parseToken(`${body}_${checksumOf(body.toLowerCase())}`)).toEqual({ ok: false, reason: 'checksum' });
    });
  });

  it("reads a client token's mode from its prefix: eprt_ a test token, eprc_ a live one; an operator token is no client token", () => {
    const test = generateToken(TEST_TOKEN_PREFIX);
    const live = generateToken();
    expect(parseClientToken(test)).toEqual({ ok: true, token: test, displayPrefix: displayPrefix(test), mode: 'test' });
    expect(parseClientToken(live)).toEqual({ ok: true, token: live, displayPrefix: displayPrefix(live), mode: 'live' });
    expect(parseClientToken(`${TEST_TOKEN_PREFIX}${live.slice(TOKEN_PREFIX.length)}`)).toEqual({ ok: false, reason: 'checksum' });
    expect(parseClientToken(generateToken(OPERATOR_TOKEN_PREFIX))).toEqual({ ok: false, reason: 'malformed' });
  });

  it('hashes with SHA-256 to 64 hex characters', () => {
    expect(hashToken('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});
