import { defineLanguages, LANGUAGE_DEFINITIONS, LANGUAGE_REGISTRY, textIn, type LanguageDefinition } from './languages.js';

const spanish: LanguageDefinition = {
  code: 'es',
  locale: 'es-ES',
  sitePrefix: '/es',
  ownName: 'Español',
  englishName: 'Spanish',
  csv: { delimiter: ';', decimal: ',' },
  typography: 'plain',
  fallback: 'en',
};

describe('the language registry', () => {
  it('lists the service’s languages, English at the site root, every reference text in both', () => {
    expect(LANGUAGE_REGISTRY.codes).toEqual(['en', 'fr']);
    expect(LANGUAGE_REGISTRY.required).toEqual(['en', 'fr']);
    expect(LANGUAGE_REGISTRY.languageOfPath('/fr/pricing')).toBe('fr');
    expect(LANGUAGE_REGISTRY.languageOfPath('/fr')).toBe('fr');
    expect(LANGUAGE_REGISTRY.languageOfPath('/french-words')).toBe('en');
  });

  it('refuses an entry the code could not serve', () => {
    const bad = (entry: Partial<LanguageDefinition>) => () => defineLanguages([...LANGUAGE_DEFINITIONS, { ...spanish, ...entry }]);
    expect(bad({ code: 'fr' })).toThrow('listed twice');
    expect(bad({ sitePrefix: '' })).toThrow('exactly one language is served at the site root');
    expect(bad({ sitePrefix: '/spanish' })).toThrow('its site prefix is /es');
    expect(bad({ code: 'es-ES', sitePrefix: '/es-ES' })).toThrow('BCP 47 primary language subtag');
    expect(bad({ fallback: 'de' })).toThrow('falls back to de');
    expect(bad({ csv: { delimiter: ',', decimal: ',' } })).toThrow('its CSV separator is its decimal mark');
  });

  it('shows a reference text missing in a language in its declared fallback, and says which language it is in', () => {
    const registry = defineLanguages([...LANGUAGE_DEFINITIONS, spanish]);
    expect(registry.required).toEqual(['en', 'fr']);
    expect(textIn({ fr: 'Verre', en: 'Glass' }, 'es', registry)).toEqual({ text: 'Glass', language: 'en' });
    expect(textIn({ fr: 'Verre', en: 'Glass', es: 'Vidrio' } as never, 'es', registry)).toEqual({ text: 'Vidrio', language: 'es' });
    expect(textIn({ fr: 'Verre', en: 'Glass' }, 'fr', registry)).toEqual({ text: 'Verre', language: 'fr' });
    // A language without a fallback never borrows another's text.
    expect(() => textIn({ en: 'Glass' } as never, 'fr', registry)).toThrow('no fr text and no fallback');
  });
});
