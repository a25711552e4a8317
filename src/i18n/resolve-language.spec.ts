import { languageOfPath, parseAcceptLanguage, preferredLanguage, resolveLanguage } from './resolve-language.js';

describe('resolveLanguage', () => {
  it('takes the address first, then the remembered choice, then the account, then the browser, then English or French', () => {
    const all = { path: '/fr/dashboard', remembered: 'en', acceptLanguage: 'en' };
    expect(resolveLanguage(all)).toEqual({ language: 'fr', from: 'path' });
    expect(resolveLanguage({ ...all, path: '/dashboard' })).toEqual({ language: 'en', from: 'remembered' });
    expect(resolveLanguage({ path: '/dashboard', remembered: 'de', acceptLanguage: 'en-GB,en;q=0.9' })).toEqual({
      language: 'en',
      from: 'browser',
    });
    // A browser that reads only languages the service does not speak gets English; one that says nothing, French.
    expect(resolveLanguage({ path: '/dashboard', acceptLanguage: 'de-DE' })).toEqual({ language: 'en', from: 'foreign' });
    expect(resolveLanguage({ acceptLanguage: 'zh-CN,zh;q=0.9' })).toEqual({ language: 'en', from: 'foreign' });
    expect(resolveLanguage({ acceptLanguage: '' })).toEqual({ language: 'fr', from: 'default' });
    expect(resolveLanguage({})).toEqual({ language: 'fr', from: 'default' });
  });

  it('once signed in, takes the account’s language over the browser’s, and the person’s own choice over both', () => {
    expect(resolveLanguage({ account: 'en', acceptLanguage: 'fr-FR,fr;q=0.9' })).toEqual({ language: 'en', from: 'account' });
    expect(resolveLanguage({ account: 'fr', acceptLanguage: 'en-GB' })).toEqual({ language: 'fr', from: 'account' });
    expect(resolveLanguage({ account: 'en', acceptLanguage: 'zh-CN' })).toEqual({ language: 'en', from: 'account' });
    expect(resolveLanguage({ account: 'en', remembered: 'fr', acceptLanguage: 'zh-CN' })).toEqual({ language: 'fr', from: 'remembered' });
  });

  it('reads the remembered choice trimmed and in any case, and ignores anything else', () => {
    expect(resolveLanguage({ remembered: ' EN ' })).toEqual({ language: 'en', from: 'remembered' });
    for (const remembered of ['', 'english', 'e', 'fr-FR', 'de']) {
      expect(resolveLanguage({ remembered, acceptLanguage: 'en' })).toEqual({ language: 'en', from: 'browser' });
    }
  });

  it('falls back to the language it is given', () => {
    expect(resolveLanguage({}, 'en')).toEqual({ language: 'en', from: 'default' });
    expect(resolveLanguage({ acceptLanguage: '*' }, 'en')).toEqual({ language: 'en', from: 'browser' });
  });
});

describe('languageOfPath', () => {
  it.each([
    ['/fr', 'fr'],
    ['/fr/', 'fr'],
    ['/fr/dashboard/declarations', 'fr'],
    ['/fr?x=1', 'fr'],
    ['/fr#top', 'fr'],
    ['/en/pricing', 'en'],
  ])('%s is in %s', (path, language) => expect(languageOfPath(path)).toBe(language));

  it.each(['/', '', '/france', '/frx/a', '/dashboard/fr', '/de/', 'fr/', '/FR/'])('%s names no language', (path) => {
    expect(languageOfPath(path)).toBeUndefined();
  });
});

describe('parseAcceptLanguage', () => {
  it('orders by weight, keeping the order of equal weights, and takes the primary subtag', () => {
    expect(parseAcceptLanguage('de-CH;q=0.5, fr-CH, en;q=0.8, FR;q=0.8 ,*;q=0.1')).toEqual([
      { primary: 'fr', q: 1 },
      { primary: 'en', q: 0.8 },
      { primary: 'fr', q: 0.8 },
      { primary: 'de', q: 0.5 },
      { primary: '*', q: 0.1 },
    ]);
  });

  it('skips malformed entries and weights', () => {
    expect(parseAcceptLanguage('fr;q=2, en;q=0.1234, de;q=abc, it;level=1, es;q=0.5;x=1, 12, en-, , pt ; q = 0.3')).toEqual([
      { primary: 'pt', q: 0.3 },
    ]);
    expect(parseAcceptLanguage('')).toEqual([]);
    expect(parseAcceptLanguage('en;q=1.000, fr;q=0.')).toEqual([
      { primary: 'en', q: 1 },
      { primary: 'fr', q: 0 },
    ]);
  });

  it('reads at most 32 entries', () => {
    expect(parseAcceptLanguage(`${'de,'.repeat(32)}fr`)).toHaveLength(32);
  });
});

describe('preferredLanguage', () => {
  it.each([
    ['fr-FR,fr;q=0.9,en-US;q=0.8,en;q=0.7', 'fr'],
    ['en-US,en;q=0.9,fr;q=0.8', 'en'],
    ['de-DE,de;q=0.9,en;q=0.5,fr;q=0.4', 'en'],
    ['de, *;q=0.5, en;q=0.1', 'fr'],
    ['fr;q=0, *', 'en'],
    ['en;q=0, fr;q=0, *', undefined],
    ['fr;q=0.5, fr;q=0, en;q=0.1', 'en'],
    ['de, it', undefined],
    ['en;q=0', undefined],
    ['', undefined],
  ])('%j → %s', (header, language) => expect(preferredLanguage(header)).toBe(language));

  it('gives the fallback for a star', () => {
    expect(preferredLanguage('*', 'en')).toBe('en');
    expect(preferredLanguage('en;q=0, *', 'en')).toBe('fr');
  });
});
