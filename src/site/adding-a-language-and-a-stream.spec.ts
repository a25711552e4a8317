/**
 * A third language and a new stream from fixtures alone: the language is one more entry of the registry
 * (test/fixtures/third-language/spanish-language.ts, put in place of language-definitions.ts's list) and
 * its catalogue; the stream is data written into a copy of reference-data/ (test/fixtures/new-stream/).
 * No source file changes: the registry, the site's pages, the CSV writers, the validator, the build and
 * the derived declaration take them as they are.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jest } from '@jest/globals';
import { parse, stringify } from 'yaml';
import { REPO_ROOT } from '../common/repo-root.js';
import { SPANISH } from '../../test/fixtures/third-language/spanish-language.js';

const I18N = join(REPO_ROOT, 'src/i18n');
jest.unstable_mockModule(join(I18N, 'language-definitions.ts'), () => ({
  LANGUAGE_DEFINITIONS: [
    {
      code: 'en',
      locale: 'en-GB',
      sitePrefix: '',
      ownName: 'English',
      englishName: 'English',
      csv: { delimiter: ',', decimal: '.' },
      typography: 'plain',
      fallback: null,
    },
    {
      code: 'fr',
      locale: 'fr-FR',
      sitePrefix: '/fr',
      ownName: 'Français',
      englishName: 'French',
      csv: { delimiter: ';', decimal: ',' },
      typography: 'french',
      fallback: null,
    },
    SPANISH,
  ],
}));
jest.unstable_mockModule(join(I18N, 'messages/index.ts'), async () => {
  const { en } = await import('../i18n/messages/en.js');
  const { fr } = await import('../i18n/messages/fr.js');
  const { es } = await import('../../test/fixtures/third-language/spanish-messages.js');
  const MESSAGES = { en, fr, es };
  return { MESSAGES, messagesFor: (language: keyof typeof MESSAGES) => MESSAGES[language] };
});

const { LANGUAGES } = await import('../i18n/languages.js');
const { CSV_DIALECTS, csvDialectQuery } = await import('../common/csv/csv-dialect.js');
const { writeDeclarationCsv } = await import('../common/csv/declaration-file.js');
const { SITE_PAGES, PAGE_ALIASES, languageOfPath } = await import('./site-pages.js');
const { renderSite } = await import('./render-site.js');
const { loadSources } = await import('../reference/load-sources.js');
const { renderReference } = await import('../reference/render-reference.js');
const { ReferenceValidationError } = await import('../reference/validate-reference.js');
const { catalogueFingerprint } = await import('../reference/catalogue-fingerprint.js');
const { ReferenceCatalogue } = await import('../reference/reference-catalogue.js');
const { derivedDeclarationLines } = await import('../products/derived-lines.js');
const { DeclarationValidator } = await import('../declarations/declaration-validator.js');
const { fieldMessage } = await import('../i18n/field-messages.js');

const urls = {
  referenceBaseUrl: 'https://www.example.org/api/v1',
  clientBaseUrl: 'https://www.example.org/api/v1',
  siteUrl: 'https://www.example.org',
};

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const readYaml = (dir: string, file: string) => parse(readFileSync(join(dir, file), 'utf8')) as Json;
const writeYaml = (dir: string, file: string, data: Json) => writeFileSync(join(dir, file), stringify(data), 'utf8');

/** A copy of reference-data/ with the fixture stream written in: its unit, the stream, its plans, its obligations, its law. */
function referenceDataWithNewStream(): { dir: string; stream: Json } {
  const fixture = parse(readFileSync(join(REPO_ROOT, 'test/fixtures/new-stream/new-stream.yaml'), 'utf8')) as Json;
  const dir = mkdtempSync(join(tmpdir(), 'epr-new-stream-'));
  cpSync(join(REPO_ROOT, 'reference-data'), dir, { recursive: true });
  const streams = readYaml(dir, 'streams.yaml');
  const base = streams.streams.find((s: Json) => s.code === fixture.based_on);
  const stream = { ...structuredClone(base), ...fixture.stream };
  streams.units.push(fixture.unit);
  streams.streams.push(stream);
  writeYaml(dir, 'streams.yaml', streams);
  const pricing = readYaml(dir, 'pricing.yaml');
  for (const plan of pricing.plans) if (fixture.plans.includes(plan.id)) plan.streams.push(stream.code);
  writeYaml(dir, 'pricing.yaml', pricing);
  const obligations = readYaml(dir, 'obligations.yaml');
  for (const o of obligations.obligations) if (fixture.obligations.includes(o.id)) o.streams.push(stream.code);
  writeYaml(dir, 'obligations.yaml', obligations);
  const law = readYaml(dir, 'law.yaml');
  for (const entry of law.law) if (stream.law.includes(entry.id)) entry.streams.push(stream.code);
  writeYaml(dir, 'law.yaml', law);
  return { dir, stream };
}

/** What the person adding the stream does next, as the build's message says: raise the version and record it. */
function raiseCatalogueVersion(dir: string): void {
  const streams = readYaml(dir, 'streams.yaml');
  streams.catalogue_version += 1;
  writeYaml(dir, 'streams.yaml', streams);
  const versions = readYaml(dir, 'catalogue-versions.yaml');
  versions.versions[streams.catalogue_version] = catalogueFingerprint(streams);
  writeYaml(dir, 'catalogue-versions.yaml', versions);
}

const problemsOf = async (dir: string): Promise<string[]> => {
  try {
    renderReference(await loadSources(dir), urls);
    return [];
  } catch (error) {
    if (error instanceof ReferenceValidationError) return error.problems.map((p) => `${p.file} ${p.path}: ${p.message}`);
    throw error;
  }
};

describe('a third language from its registry entry and its catalogue alone', () => {
  it('is a language of the service: its CSV dialect writes its catalogue’s headers with its separator and decimal mark', () => {
    expect(LANGUAGES).toEqual(['en', 'fr', 'es']);
    expect(csvDialectQuery('es')).toEqual({ name: 'es', delimiter: ';', decimal: ',' });
    // The `Language` type is the source's (en, fr): the fixture's language is there at run time only.
    const spanish = (CSV_DIALECTS as Record<string, (typeof CSV_DIALECTS)['en']>).es!;
    const file = writeDeclarationCsv([{ stream: 'EMB', material: 'glass', unit: 'kg', quantity: '1200.5' }], spanish);
    // As the French file: a cell holding the decimal comma is quoted, so that any spreadsheet keeps it whole.
    expect(file.toString('utf8')).toBe('\ufeffflujo;material;unidad;cantidad\r\nEMB;glass;kg;"1200,5"\r\n');
  });

  it('has every page of the site under its prefix, each linked to the same page in the two other languages', () => {
    const english = SITE_PAGES.filter((page) => page.lang === 'en');
    const spanish = SITE_PAGES.filter((page) => (page.lang as string) === 'es');
    expect(spanish.map((page) => page.kind)).toEqual(english.map((page) => page.kind));
    expect(spanish.find((page) => page.kind === 'pricing')).toMatchObject({
      path: '/es/pricing',
      file: 'es/pricing.html',
      alternates: [
        { lang: 'en', path: '/pricing' },
        { lang: 'fr', path: '/fr/pricing' },
      ],
    });
    expect(languageOfPath('/es/law')).toBe('es');
    expect(PAGE_ALIASES.get('/es')).toBe('/es/');
  });
});

describe('a new stream from data alone', () => {
  let dir: string;
  let stream: Json;
  beforeAll(() => ({ dir, stream } = referenceDataWithNewStream()));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('is refused by the build while the catalogue’s version is the one of the former content', async () => {
    expect(await problemsOf(dir)).toEqual([
      expect.stringMatching(
        /^catalogue-versions\.yaml \/versions\/3: the catalogue \(streams, units, materials\) changed but catalogue_version is still 3/,
      ),
    ]);
  });

  it('is refused by the build when no plan sells it or no obligation names it', async () => {
    const copy = mkdtempSync(join(tmpdir(), 'epr-new-stream-'));
    try {
      cpSync(dir, copy, { recursive: true });
      raiseCatalogueVersion(copy);
      const pricing = readYaml(copy, 'pricing.yaml');
      for (const plan of pricing.plans) plan.streams = plan.streams.filter((code: string) => code !== stream.code);
      writeYaml(copy, 'pricing.yaml', pricing);
      const obligations = readYaml(copy, 'obligations.yaml');
      for (const o of obligations.obligations) o.streams = o.streams.filter((code: string) => code !== stream.code);
      writeYaml(copy, 'obligations.yaml', obligations);
      const index = readYaml(copy, 'streams.yaml').streams.length - 1;
      expect(await problemsOf(copy)).toEqual([
        `streams.yaml /streams/${index}/status: active stream "TST" is in no plan of pricing.yaml`,
        `streams.yaml /streams/${index}/status: active stream "TST" has no obligation in obligations.yaml`,
      ]);
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });

  it('once its version is raised, is published, shown on the site in the three languages, and derived from products in its units', async () => {
    raiseCatalogueVersion(dir);
    const files = renderReference(await loadSources(dir), urls);
    const published = JSON.parse(files.find((f) => f.name === 'streams.json')!.body.toString('utf8')) as Json;
    expect(published.catalogue_version).toBe(4);
    expect(published.units.map((u: Json) => u.code)).toContain('piece');

    const site = renderSite(files, urls);
    const page = (path: string) => site.find((file) => file.paths.includes(path))!.body.toString('utf8');
    expect(page('/streams')).toContain('Test packaging');
    expect(page('/fr/streams')).toContain('Emballages d’essai');
    // The Spanish page says its reference texts are the English fallback (`lang="en"`), in its own frame.
    const spanish = page('/es/streams');
    expect(spanish).toContain('<html lang="es">');
    expect(spanish).toMatch(/<span lang="en" data-fact="streams\.json#\/streams\/\d+\/name\/en">Test packaging<\/span>/);

    // A text written in Spanish (the schemas' {fr, en} blocks take every language of the registry) is shown as it is.
    const streams = readYaml(dir, 'streams.yaml');
    streams.streams.at(-1).name.es = 'Envases de prueba';
    writeYaml(dir, 'streams.yaml', streams);
    const withSpanish = renderSite(renderReference(await loadSources(dir), urls), urls);
    const spanishName = withSpanish.find((file) => file.paths.includes('/es/streams'))!.body.toString('utf8');
    expect(spanishName).toMatch(/<span data-fact="streams\.json#\/streams\/\d+\/name\/es">Envases de prueba<\/span>/);
    streams.streams.at(-1).name.es = '';
    writeYaml(dir, 'streams.yaml', streams);
    expect(await problemsOf(dir)).toEqual([
      expect.stringMatching(/^streams\.yaml \/streams\/\d+\/name\/es: /),
      expect.stringMatching(/^streams\.yaml \/streams\/\d+\/name\/es: the Spanish text is missing/),
    ]);
    expect(page('/pricing')).toContain('<a class="lang-switch" href="/es/pricing" hreflang="es" lang="es">Español');
    const sitemap = site.find((file) => file.paths.includes('/sitemap.xml'))!.body.toString('utf8');
    expect(sitemap).toContain('<loc>https://www.example.org/es/streams</loc>');
    expect(sitemap).toContain('hreflang="es" href="https://www.example.org/es/pricing"');

    const catalogue = new ReferenceCatalogue({
      pricing: JSON.parse(files.find((f) => f.name === 'pricing.json')!.body.toString('utf8')),
      streams: published as never,
    });
    const material = stream.materials[0].code as string;
    const derived = derivedDeclarationLines(
      [{ stream: 'TST', materialCode: material, kg: '1.2345', kgRounded: '1.235', uvc: '30', unitsSold: '30', products: 1 }],
      catalogue,
    );
    expect(derived).toEqual([
      { stream: 'TST', material, unit: 'kg', quantity: 1.235 },
      { stream: 'TST', material, unit: 'piece', quantity: 30 },
    ]);

    // A line in a unit the stream does not take is told the stream's units, each with the help its data gives.
    const result = new DeclarationValidator(catalogue).validate(
      { period: '2026-S2', lines: [{ stream: 'TST', material, unit: 'uvc', quantity: 30 }] },
      { confirmedStreams: null, today: '2027-01-15' },
    );
    const unitError = (result.ok ? [] : result.errors).find((e) => e.code === 'unit_not_allowed')!;
    expect(fieldMessage('en', unitError)).toBe(
      '“uvc” is not an accepted unit for TST. Write kg for a mass in kilograms or piece for a number of packaging pieces.',
    );
    expect(fieldMessage('fr', unitError)).toBe(
      '« uvc » n’est pas une unité acceptée pour la filière TST. Écrivez « kg » pour une masse en kilogrammes ou « piece » pour un nombre de pièces d’emballage.'
        .replace(/« /g, '«\u00a0')
        .replace(/ »/g, '\u00a0»'),
    );
  });
});
