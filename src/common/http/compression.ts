import { brotliCompressSync, constants as zlibConstants, gzipSync } from 'node:zlib';

// How the prebuilt public files (reference files, site) are compressed: by the build, at start-up
// when the reference index is rendered again for other base URLs, and on a file's first request when
// this instance renders the site under other base URLs than the build.

/** Compressed variants written next to every published file. */
export const COMPRESSED_VARIANTS = [
  { suffix: '.gz', encoding: 'gzip', compress: gzip },
  { suffix: '.br', encoding: 'br', compress: brotli },
] as const;

/** gzip, level 9. Node writes a zero mtime in the header, so the bytes are reproducible. */
export function gzip(body: Buffer): Buffer {
  return gzipSync(body, { level: 9 });
}

/**
 * Brotli's quality for a file compressed while a request waits, as web servers compress on the fly:
 * the largest site page (115 KB) in 3–5 ms at 5, against 200–265 ms at 11 (for about 12 % more bytes),
 * which would hold every other request of the process meanwhile.
 */
export const ON_DEMAND_BROTLI_QUALITY = 5;

/** Brotli (text mode), at the build's quality 11 unless told. */
export function brotli(body: Buffer, quality = 11): Buffer {
  return brotliCompressSync(body, {
    params: {
      [zlibConstants.BROTLI_PARAM_QUALITY]: quality,
      [zlibConstants.BROTLI_PARAM_MODE]: zlibConstants.BROTLI_MODE_TEXT,
      [zlibConstants.BROTLI_PARAM_SIZE_HINT]: body.length,
    },
  });
}
