import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import type { ReferenceUrls } from '../reference/reference-documents.js';
import { SOURCE_DIR } from '../reference/test-support.js';
import { buildSite } from './build-site.js';

const urls: ReferenceUrls = {
  referenceBaseUrl: 'https://www.example.org/api/v1',
  clientBaseUrl: 'https://www.example.org/api/v1',
  siteUrl: 'https://www.example.org',
};

describe('buildSite', () => {
  let work: string;

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'site-build-'));
  });

  afterAll(async () => {
    await rm(work, { recursive: true, force: true });
  });

  async function readTree(dir: string): Promise<Map<string, Buffer>> {
    const names = (await readdir(dir, { recursive: true, withFileTypes: true }))
      .filter((e) => e.isFile())
      .map((e) => relative(dir, join(e.parentPath, e.name)));
    return new Map(await Promise.all(names.sort().map(async (name) => [name, await readFile(join(dir, name))] as const)));
  }

  it('writes byte-identical folders from the same sources, with the reference files at their API paths', async () => {
    await buildSite({ sourceDir: SOURCE_DIR, outDir: join(work, 'a'), urls });
    await buildSite({ sourceDir: SOURCE_DIR, outDir: join(work, 'b'), urls });
    const a = await readTree(join(work, 'a'));
    const b = await readTree(join(work, 'b'));
    expect([...a.keys()]).toEqual([...b.keys()]);
    for (const [name, body] of a) expect({ name, same: body.equals(b.get(name)!) }).toEqual({ name, same: true });
    for (const name of [
      'index.html',
      'fr/index.html',
      'problems/not-found.html',
      'assets/site.css',
      'sitemap.xml',
      'robots.txt',
      'llms.txt',
      'api/v1/streams.json',
      'api/v1/index.json',
    ]) {
      expect(a.has(name)).toBe(true);
      expect(a.has(`${name}.br`) && a.has(`${name}.gz`)).toBe(true);
    }
  }, 120_000);
});
