import {
  INDEX_DOCUMENT_FIELDS,
  PUBLISHED_FILES,
  REFERENCE_DOCUMENTS,
  type IndexDocument,
  type ReferenceUrls,
  type RenderedFile,
} from './reference-documents.js';
import { renderIndexDocument, renderReference } from './render-reference.js';
import { loadService } from './load-sources.js';
import { REFERENCE_SOURCE_DIR } from './reference-store.js';
import { realSources } from './test-support.js';
import { ReferenceValidationError } from './validate-reference.js';
import { catalogueFingerprint } from './catalogue-fingerprint.js';

const urls: ReferenceUrls = {
  referenceBaseUrl: 'https://data.example.org/reference/v1/',
  clientBaseUrl: 'https://api.example.org/client/v1',
  siteUrl: 'https://www.example.org',
};

function file(files: RenderedFile[], name: string): RenderedFile {
  const found = files.find((f) => f.name === name);
  if (!found) throw new Error(`${name} was not rendered`);
  return found;
}

/** A deep copy of `value` with every object's keys in reverse order. */
function reverseKeys<T>(value: T): T {
  if (Array.isArray(value)) return value.map(reverseKeys) as T;
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .reverse()
      .map(([k, v]) => [k, reverseKeys(v)]),
  ) as T;
}

describe('renderReference', () => {
  it('renders every published file with its content type', async () => {
    const files = renderReference(await realSources(), urls);
    expect(files.map((f) => f.name)).toEqual([...PUBLISHED_FILES]);
    expect(file(files, 'streams.json').contentType).toBe('application/json; charset=utf-8');
    expect(file(files, 'declaration-template.csv').contentType).toBe('text/csv; charset=utf-8');
  });

  it('is deterministic: rendering twice gives identical bytes, whatever the key order of the sources', async () => {
    const first = renderReference(await realSources(), urls);
    const second = renderReference(await realSources(), urls);
    const shuffled = await realSources();
    const reordered = renderReference({ ...reverseKeys({ ...shuffled, schemas: undefined }), schemas: shuffled.schemas }, urls);
    for (const rendered of [second, reordered]) {
      expect(rendered.map((f) => f.name)).toEqual(first.map((f) => f.name));
      rendered.forEach((f, i) => expect(f.body.toString('utf8')).toBe(first[i]!.body.toString('utf8')));
    }
  });

  it('publishes the validated documents as indented JSON with a final newline', async () => {
    const sources = await realSources();
    const files = renderReference(sources, urls);
    for (const name of REFERENCE_DOCUMENTS) {
      const text = file(files, `${name}.json`).body.toString('utf8');
      expect(text).toBe(`${JSON.stringify(JSON.parse(text), null, 2)}\n`);
      expect(JSON.parse(text)).toEqual(sources[name]);
    }
    // Keys follow the schema order: the envelope first, the data last.
    const streams = JSON.parse(file(files, 'streams.json').body.toString('utf8')) as Record<string, unknown>;
    expect(Object.keys(streams)).toEqual([
      'version',
      'updated',
      'checked',
      'catalogue_version',
      'licence',
      'licence_url',
      'sources',
      'disclaimer',
      'units',
      'idu_shape',
      'streams',
    ]);
  });

  it('builds the index document with exactly the seed fields, in order, from the given base URLs', async () => {
    const sources = await realSources();
    sources.service.updated = '2026-12-01';
    const index = JSON.parse(file(renderReference(sources, urls), 'index.json').body.toString('utf8')) as IndexDocument;

    expect(Object.keys(index)).toEqual([...INDEX_DOCUMENT_FIELDS]);
    expect(index).toEqual({
      name: sources.service.name,
      version: 'v1',
      updated: '2026-12-01',
      description: sources.service.description,
      endpoints: {
        pricing: 'https://data.example.org/reference/v1/pricing.json',
        streams: 'https://data.example.org/reference/v1/streams.json',
        law: 'https://data.example.org/reference/v1/law.json',
        obligations: 'https://data.example.org/reference/v1/obligations.json',
        declaration_template: 'https://data.example.org/reference/v1/declaration-template.csv',
      },
      client_api: {
        base: 'https://api.example.org/client/v1',
        auth: expect.stringContaining('Authorization: Bearer <token>'),
        endpoints: [
          'GET /me',
          'GET /me/obligations',
          'GET /me/years/{year}',
          'GET /declarations',
          'GET /declarations/{id}',
          'GET /declarations/{id}.csv',
          'POST /declarations',
          'POST /products',
          'GET /products',
          'GET /products/{reference}',
          'POST /sales',
          'GET /periods/{period}/derived-declaration',
          'GET /periods/{period}/derived-declaration/contributions',
          'POST /periods/{period}/derived-declaration',
          'DELETE /test-data',
        ],
      },
      markdown: 'https://www.example.org/llms.txt',
      licence: 'CC BY 4.0',
      contact: null,
    });
    expect(Object.keys(index.endpoints)).toEqual(['pricing', 'streams', 'law', 'obligations', 'declaration_template']);
    expect(Object.keys(index.client_api)).toEqual(['base', 'auth', 'endpoints']);
    expect(index.client_api.auth).toMatch(/shown once/);
    expect(index.client_api.auth).toMatch(/hash/);
  });

  it('renders the same index document alone, from the published documents and service.yaml (as the service does at start-up)', async () => {
    const files = renderReference(await realSources(), { ...urls, contact: 'contact@example.org' });
    const published = Object.fromEntries(
      REFERENCE_DOCUMENTS.map((name) => [name, JSON.parse(file(files, `${name}.json`).body.toString('utf8'))]),
    ) as Parameters<typeof renderIndexDocument>[0];
    const alone = renderIndexDocument(
      { ...published, service: await loadService(REFERENCE_SOURCE_DIR) },
      { ...urls, contact: 'contact@example.org' },
    );
    expect(alone.toString('utf8')).toBe(file(files, 'index.json').body.toString('utf8'));
  });

  it('publishes the configured contact address in the index document, and none when none is configured', async () => {
    const sources = await realSources();
    const withContact = renderReference(sources, { ...urls, contact: 'contact@exemple.fr' });
    expect((JSON.parse(file(withContact, 'index.json').body.toString('utf8')) as IndexDocument).contact).toBe('contact@exemple.fr');
    const without = renderReference(sources, urls);
    expect((JSON.parse(file(without, 'index.json').body.toString('utf8')) as IndexDocument).contact).toBeNull();
    for (const f of without) expect(f.body.toString('utf8')).not.toMatch(/\.example\b(?!\.)/);
  });

  it('builds the declaration template from the streams data: the header, a note and one commented example row per published unit', async () => {
    const sources = await realSources();
    const csv = file(renderReference(sources, urls), 'declaration-template.csv').body.toString('utf8');
    const units = [...new Set(sources.streams.streams.flatMap((stream) => stream.units))];
    const [header, note, ...rows] = csv
      .replace(/^\ufeff/, '')
      .split('\r\n')
      .filter(Boolean);
    expect(csv.startsWith('\ufeff')).toBe(true);
    expect(header).toBe('stream,material,unit,quantity');
    expect(note).toMatch(/^"# Rows starting with # are notes and examples: they are never filed\./);
    expect(rows.every((row) => row.startsWith('# '))).toBe(true);
    expect(rows.map((row) => row.split(',')[2])).toEqual(units);
    sources.streams.units = [...sources.streams.units, { ...sources.streams.units[0]!, code: 'unit' }];
    sources.streams.streams[0]!.units = [...sources.streams.streams[0]!.units, 'unit'];
    // A new unit is a new catalogue: its version goes up, with its fingerprint recorded.
    sources.streams.catalogue_version += 1;
    sources.catalogue_versions = { versions: { [sources.streams.catalogue_version]: catalogueFingerprint(sources.streams) } };
    const more = file(renderReference(sources, urls), 'declaration-template.csv').body.toString('utf8');
    expect(more).toContain(`\r\n# ${sources.streams.streams[0]!.code},${sources.streams.streams[0]!.materials[0]!.name.en},unit,1250\r\n`);
  });

  it('takes the index `updated` from the latest source, not from the clock', async () => {
    const sources = await realSources();
    sources.service.updated = '2020-01-01';
    sources.pricing.updated = '2020-01-01';
    sources.streams.updated = '2020-01-01';
    sources.obligations.updated = '2020-01-01';
    sources.law.updated = '2021-06-30';
    const index = JSON.parse(file(renderReference(sources, urls), 'index.json').body.toString('utf8')) as IndexDocument;
    expect(index.updated).toBe('2021-06-30');
  });

  it('refuses invalid sources and invalid base URLs', async () => {
    const sources = await realSources();
    sources.pricing.plans[0]!.streams = ['NOPE'];
    expect(() => renderReference(sources, urls)).toThrow(ReferenceValidationError);
    expect(() => renderReference(sources, urls)).toThrow('pricing.yaml /plans/0/streams/0: unknown stream code "NOPE"');

    const valid = await realSources();
    expect(() => renderReference(valid, { ...urls, siteUrl: 'www.example.org' })).toThrow(/siteUrl must be an absolute URL/);
    expect(() => renderReference(valid, { ...urls, clientBaseUrl: 'ftp://example.org' })).toThrow(/clientBaseUrl must be an http/);
  });
});
