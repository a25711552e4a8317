/**
 * Builds the public reference files: `node dist/scripts/build-reference.js`
 * (run by `npm run build` and `npm run build:reference`).
 *
 * Reads `reference-data/`, validates it and writes `dist/reference/` (the files the service
 * serves) and `dist/site/` (the public site with those files, for any static host) with the
 * base URLs of the configuration (PUBLIC_BASE_URL, REFERENCE_BASE_URL,
 * CLIENT_BASE_URL). Exits 1 with every problem listed on stderr when the
 * configuration or the sources are invalid.
 */
import { join, relative } from 'node:path';
import { ConfigError, loadConfig } from '../src/config/config.js';
import { buildReference } from '../src/reference/build/build-reference.js';
import { REPO_ROOT as root } from '../src/common/repo-root.js';
import { ReferenceValidationError } from '../src/reference/validate-reference.js';
import { buildSite } from '../src/site/build-site.js';

async function main(): Promise<number> {
  try {
    const config = loadConfig();
    const sourceDir = join(root, 'reference-data');
    const urls = {
      referenceBaseUrl: config.referenceBaseUrl,
      clientBaseUrl: config.clientBaseUrl,
      siteUrl: config.publicBaseUrl,
      contact: config.contactEmail ?? null,
    };
    const written = await buildReference({ sourceDir, outDir: join(root, 'dist', 'reference'), urls });
    for (const file of written) console.log(`wrote ${relative(root, file.path)} (${file.bytes} bytes)`);
    const site = await buildSite({ sourceDir, outDir: join(root, 'dist', 'site'), urls });
    console.log(`wrote dist/site/ (${site.length} files, ${site.reduce((sum, f) => sum + f.bytes, 0)} bytes)`);
    return 0;
  } catch (error) {
    if (error instanceof ReferenceValidationError || error instanceof ConfigError) {
      console.error(error.message);
      return 1;
    }
    throw error;
  }
}

process.exitCode = await main();
