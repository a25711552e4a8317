import { createHash } from 'node:crypto';
import { periodLockKey } from './declarations.repository.js';

describe('periodLockKey', () => {
  // Replicas of two versions must take the same lock for one (client, period): the key may never change.
  it('is the first 64 bits of SHA-256 of "client/period", signed ("client/test/period" in the sandbox)', () => {
    const first64 = (name: string) => BigInt.asIntN(64, BigInt(`0x${createHash('sha256').update(name).digest('hex').slice(0, 16)}`));
    expect(periodLockKey('acme', '2025-S1')).toBe(first64('acme/2025-S1'));
    expect(periodLockKey('acme', '2025-S1', 'test')).toBe(first64('acme/test/2025-S1'));
    expect(periodLockKey('société-é', 'catalogue')).toBe(first64('société-é/catalogue'));
  });
});
