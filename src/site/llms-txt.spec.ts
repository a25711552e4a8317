import type { ReferenceUrls, RenderedFile } from '../reference/reference-documents.js';
import { renderReference } from '../reference/render-reference.js';
import { realSources } from '../reference/test-support.js';
import { renderSite } from './render-site.js';

const urls: ReferenceUrls = {
  referenceBaseUrl: 'https://data.example.org/reference/v1/',
  clientBaseUrl: 'https://api.example.org/client/v1',
  siteUrl: 'https://www.example.org',
};

/** llms.txt as the site renders it from the published files. */
const llms = (files: RenderedFile[], at: ReferenceUrls = urls) => {
  const file = renderSite(files, at).find((f) => f.paths.includes('/llms.txt'))!;
  expect(file.contentType).toBe('text/markdown; charset=utf-8');
  return file.body.toString('utf8');
};

describe('llms.txt', () => {
  it('writes llms.txt with a title, a summary, and links to every file, the API docs and the licence', async () => {
    const sources = await realSources();
    const text = llms(renderReference(sources, urls));
    const lines = text.split('\n');

    expect(lines[0]).toBe(`# ${sources.service.name}`);
    expect(lines[1]).toBe('');
    expect(lines[2]).toMatch(/^> \S/);
    expect(text.match(/^## /gm)).toHaveLength(5);
    for (const path of ['/', '/pricing', '/streams', '/law', '/obligations', '/developers', '/problems', '/fr/', '/fr/pricing']) {
      expect(text).toContain(`](https://www.example.org${path})`);
    }
    for (const name of ['index.json', 'pricing.json', 'streams.json', 'law.json', 'obligations.json']) {
      expect(text).toContain(`](https://data.example.org/reference/v1/${name})`);
    }
    expect(text).toContain('Base URL: https://api.example.org/client/v1');
    expect(text).toContain('Authorization: Bearer <token>');
    for (const endpoint of ['`GET /me`', '`GET /declarations`', '`GET /declarations/{id}`', '`POST /declarations`'])
      expect(text).toContain(endpoint);
    expect(text).toContain('/docs/openapi.json)');
    // The parts that speak to people, in French too.
    const french = text.slice(text.indexOf('\n## En français\n'));
    expect(french).toContain(`> ${sources.service.description.fr.replace(/\s+/g, ' ').trim()}`);
    expect(french).toContain('Ceci n’est pas un conseil juridique');
    for (const stream of sources.streams.streams) expect(french).toContain(`- \`${stream.code}\`\u00a0: ${stream.name.fr}`);
    expect(french).toContain('](https://data.example.org/reference/v1/streams.json)\u00a0: les filières REP');
    expect(french).toContain('](https://www.example.org/fr/obligations)');
    expect(french).toContain('- `EPRO`\u00a0: Emballages professionnels, L541-10-1 2°, déclarable à partir du 1er juillet 2026');
    expect(french).not.toContain('](https://www.example.org/obligations)');
    // Filing tiers, for a reader that computes a producer's tier.
    expect(text).toContain(
      '  - Citeo, filing tiers by yearly count of `uvc`: under 10000 `uvc`: €80 flat fee (`flat_fee`, secondary_source);',
    );
    expect(text).toContain('](https://www.example.org/docs)');
    expect(text).toContain('[CC BY 4.0](https://creativecommons.org/licenses/by/4.0/)');
    for (const stream of sources.streams.streams) expect(text).toContain(`\`${stream.code}\``);
    expect(text.endsWith('\n')).toBe(true);
    expect(text).not.toMatch(/\n\n\n/);
  });

  it('names the configured contact address, and none when none is configured', async () => {
    const sources = await realSources();
    const withContact = { ...urls, contact: 'contact@exemple.fr' };
    expect(llms(renderReference(sources, withContact), withContact)).toContain('- Contact: contact@exemple.fr');
    expect(llms(renderReference(sources, urls))).not.toContain('Contact:');
  });
});
