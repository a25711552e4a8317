import { receiptFor } from './receipt.js';

describe('receiptFor', () => {
  it('names the period and revision, then 8 unambiguous base32 characters', () => {
    expect(receiptFor('2025-S1', 2)).toMatch(/^EPR-2025S1-R2-[0-9A-HJKMNP-TV-Z]{8}$/);
  });

  it('is random: every character position varies', () => {
    const receipts = Array.from({ length: 2000 }, () => receiptFor('2025-S2', 1).slice(-8));
    expect(new Set(receipts).size).toBe(2000);
    for (let i = 0; i < 8; i++) expect(new Set(receipts.map((r) => r[i])).size).toBe(32);
  });
});
