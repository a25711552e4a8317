import { brotliCompressSync, constants as zlibConstants, gzipSync } from 'node:zlib';

// How the prebuilt public files (reference files, site) are compressed: by the build, and at start-up
// when the reference index is rendered again for other base URLs.

/** Compressed variants written next to every published file. */
export const COMPRESSED_VARIANTS = [
  { suffix: '.gz', encoding: 'gzip', compress: gzip },
  { suffix: '.br', encoding: 'br', compress: brotli },
] as const;

/** gzip, level 9. Node writes a zero mtime in the header, so the bytes are reproducible. */
export function gzip(body: Buffer): Buffer {
  return gzipSync(body, { level: 9 });
}

/** Brotli, quality 11 (text mode). */
export function brotli(body: Buffer): Buffer {
  return brotliCompressSync(body, {
    params: {
      [zlibConstants.BROTLI_PARAM_QUALITY]: 11,
      [zlibConstants.BROTLI_PARAM_MODE]: zlibConstants.BROTLI_MODE_TEXT,
      [zlibConstants.BROTLI_PARAM_SIZE_HINT]: body.length,
    },
  });
}
