import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { buildReference } from './build-reference.js';
import { PUBLISHED_FILES, type ReferenceUrls } from '../reference-documents.js';
import { SOURCE_DIR } from '../test-support.js';

const urls: ReferenceUrls = {
  referenceBaseUrl: 'http://localhost:3000/api/v1',
  clientBaseUrl: 'http://localhost:3000/api/v1',
  siteUrl: 'http://localhost:3000',
};

async function readAll(dir: string): Promise<Map<string, Buffer>> {
  const names = (await readdir(dir)).sort();
  return new Map(await Promise.all(names.map(async (name) => [name, await readFile(join(dir, name))] as const)));
}

describe('buildReference', () => {
  let work: string;

  beforeEach(async () => {
    work = await mkdtemp(join(tmpdir(), 'reference-build-'));
  });

  afterEach(async () => {
    await rm(work, { recursive: true, force: true });
  });

  it('writes every file with gzip and brotli variants, and removes stale files', async () => {
    const outDir = join(work, 'out');
    await mkdir(outDir);
    await writeFile(join(outDir, 'stale.json'), '{}');

    const written = await buildReference({ sourceDir: SOURCE_DIR, outDir, urls });

    const expected = PUBLISHED_FILES.flatMap((name) => [name, `${name}.gz`, `${name}.br`]);
    expect(written.map((f) => f.path)).toEqual(expected.map((name) => join(outDir, name)));
    const files = await readAll(outDir);
    expect([...files.keys()]).toEqual([...expected].sort());
    for (const name of PUBLISHED_FILES) {
      const body = files.get(name)!;
      expect(gunzipSync(files.get(`${name}.gz`)!).equals(body)).toBe(true);
      expect(brotliDecompressSync(files.get(`${name}.br`)!).equals(body)).toBe(true);
      expect(files.get(`${name}.gz`)!.readUInt32LE(4)).toBe(0); // gzip header mtime
    }
    for (const file of written) expect(file.bytes).toBe(files.get(file.path.slice(outDir.length + 1))!.length);
  });

  it('is deterministic: building twice gives identical bytes', async () => {
    const first = join(work, 'first');
    const second = join(work, 'second');
    await buildReference({ sourceDir: SOURCE_DIR, outDir: first, urls });
    await buildReference({ sourceDir: SOURCE_DIR, outDir: second, urls });
    await buildReference({ sourceDir: SOURCE_DIR, outDir: first, urls });

    const a = await readAll(first);
    const b = await readAll(second);
    expect([...a.keys()]).toEqual([...b.keys()]);
    for (const [name, body] of a) expect(body.equals(b.get(name)!)).toBe(true);
  });

  it('refuses an output directory that contains the sources', async () => {
    await expect(buildReference({ sourceDir: join(work, 'src'), outDir: work, urls })).rejects.toThrow();
  });
});
