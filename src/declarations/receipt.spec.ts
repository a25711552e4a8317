import { receiptAround, receiptFor } from './receipt.js';

describe('receiptFor', () => {
  it('names the period and revision, then 8 unambiguous base32 characters', () => {
    expect(receiptFor('2025-S1', 2)).toMatch(/^EPR-2025S1-R2-[0-9A-HJKMNP-TV-Z]{8}$/);
  });

  it('is random: every character position varies', () => {
    const receipts = Array.from({ length: 2000 }, () => receiptFor('2025-S2', 1).slice(-8));
    expect(new Set(receipts).size).toBe(2000);
    for (let i = 0; i < 8; i++) expect(new Set(receipts.map((r) => r[i])).size).toBe(32);
  });

  it('says a sandbox revision is a test at a glance', () => {
    expect(receiptFor('2026-S1', 1, 'test')).toMatch(/^TEST-EPR-2026S1-R1-[0-9A-HJKMNP-TV-Z]{8}$/);
  });
});

describe('receiptAround', () => {
  it('is a receipt around its revision number, for a statement that numbers the revision', () => {
    const [before, after] = receiptAround('2025-S2', 'test');
    expect(before).toBe('TEST-EPR-2025S2-R');
    expect(`${before}12${after}`).toMatch(/^TEST-EPR-2025S2-R12-[0-9A-HJKMNP-TV-Z]{8}$/);
  });
});
