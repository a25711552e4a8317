import { ASCII_LOWER, ASCII_UPPER, foldEmail, hasNonAscii, isSignInEmail } from './email-address.js';

describe('e-mail addresses as the sign-in compares them', () => {
  it('foldEmail folds A–Z only', () => {
    expect(foldEmail('Compliance@Kiwi.FR')).toBe('compliance@kiwi.fr');
    expect(foldEmail('AZaz09@[]^_`{}')).toBe('azaz09@[]^_`{}');
    // No Unicode case mapping: İ (U+0130), Å and the Kelvin sign stay as they are.
    expect(foldEmail('kİwi@ÅK.fr')).toBe('kİwi@Åk.fr');
    expect(foldEmail('\u212a')).toBe('\u212a');
    expect(ASCII_UPPER).toBe('ABCDEFGHIJKLMNOPQRSTUVWXYZ');
    expect(ASCII_LOWER).toBe(ASCII_UPPER.toLowerCase());
  });

  it('hasNonAscii: anything outside printable ASCII', () => {
    expect(hasNonAscii('compliance@kiwi.fr')).toBe(false);
    expect(hasNonAscii(' ~')).toBe(false);
    for (const text of ['kİwi', 'сompliance', 'a\u200bb', 'a\tb', 'a\u007fb', 'é']) expect(hasNonAscii(text)).toBe(true);
  });

  it('isSignInEmail: printable ASCII without spaces, one @, 1–64 characters before it, 254 in all', () => {
    for (const text of ['a@b', 'compliance@kiwi.fr', 'first.last+rep@sub.example.co.uk', `${'a'.repeat(64)}@${'b'.repeat(189)}`])
      expect([text, isSignInEmail(text)]).toEqual([text, true]);
    for (const text of [
      '',
      '@kiwi.fr',
      'compliance@',
      'compliance',
      'a@b@c',
      'compli ance@kiwi.fr',
      'compliance@kİwi.fr',
      'сompliance@kiwi.fr',
      'a\u00a0@kiwi.fr',
      `${'a'.repeat(65)}@b.fr`,
      `${'a'.repeat(64)}@${'b'.repeat(190)}`,
      `a@${'b'.repeat(254)}`,
    ]) {
      expect([text, isSignInEmail(text)]).toEqual([text, false]);
    }
  });
});
