import { ASCII_LOWER, ASCII_UPPER, checkEmail, emailKey, foldEmail, hasNonAscii, isSignInEmail } from './email-address.js';

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

describe('checkEmail: the one rule for an address entering the service', () => {
  const accepted = (text: string) => {
    const checked = checkEmail(text);
    return checked.ok ? checked.address : `refused ${checked.code}`;
  };

  it('trims, writes the domain in lower case and an internationalised one in its ASCII form; keeps the case before the @', () => {
    expect(accepted('  Lea.Martin+rep@Exemple.FR \t')).toBe('Lea.Martin+rep@exemple.fr');
    expect(accepted('compliance@münchen.de')).toBe('compliance@xn--mnchen-3ya.de');
    // NFC: a decomposed ü is the same domain.
    expect(accepted('compliance@mu\u0308nchen.de')).toBe('compliance@xn--mnchen-3ya.de');
    expect(accepted('compliance@xn--mnchen-3ya.de')).toBe('compliance@xn--mnchen-3ya.de');
    expect(accepted('info@пример.рф')).toBe('info@xn--e1afmkfd.xn--p1ai');
    expect(accepted('a@b.co')).toBe('a@b.co');
  });

  it('refuses look-alikes: another script before the @, a domain mixing scripts or wholly of Latin look-alikes, full-width characters', () => {
    for (const text of [
      'compliance-a@exеmple.fr', // Cyrillic е in a Latin domain
      'compliance-a@xn--exmple-4of.fr', // the same, in its ASCII form
      'İ@exemple.fr',
      'сompliance@exemple.fr', // Cyrillic с
      'ｃompliance@exemple.fr', // full-width c
      'compliance@exemple．fr', // full-width full stop
      'compliance@срасе.com', // Cyrillic throughout, reads as Latin
      'compliance@οκ.gr', // Greek throughout, reads as Latin
      'compliance@ﬁrme.fr', // the fi ligature
      'compliance@kİwi.fr', // İ in the domain: i and a dot above
      'compliance@kıwi.fr', // dotless ı
      'compliance@kiwi.fr\u200b', // an invisible character the domain's mapping would drop
      'compli\u00adance@kiwi.fr', // a soft hyphen
      'compliance@kiwi.fr\u00a0x', // a no-break space
    ]) {
      expect([text, accepted(text)]).toEqual([text, 'refused email_characters']);
    }
  });

  it('refuses what is not an address', () => {
    for (const text of [
      '',
      'nope',
      '@exemple.fr',
      'a@',
      'a b@exemple.fr',
      'a@exemple',
      'a@-exemple.fr',
      'a@xn--zz.fr',
      `${'a'.repeat(65)}@b.fr`,
    ]) {
      expect([text, accepted(text)]).toEqual([text, 'refused invalid_email']);
    }
  });

  it('is idempotent, and emailKey compares the normalised address ignoring the case of A–Z', () => {
    for (const text of ['Lea@Exemple.FR', 'a@münchen.de']) expect(accepted(accepted(text))).toBe(accepted(text));
    expect(emailKey('LEA@EXEMPLE.FR')).toBe(emailKey(' lea@exemple.fr'));
    expect(emailKey('a@MÜNCHEN.de')).toBe('a@xn--mnchen-3ya.de');
  });
});
