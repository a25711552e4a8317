import type { OutgoingHttpHeaders } from 'node:http';
import type { Request, Response } from 'express';
import { type Encoding, PUBLIC_CACHE_CONTROL, PrebuiltFiles, type PrebuiltFile, representation } from './prebuilt-files.js';

/** A file whose variants are made when first asked for, counting how often. */
function lazyFile(text: string, headers: OutgoingHttpHeaders = {}): PrebuiltFile & { made: Encoding[] } {
  const made: Encoding[] = [];
  const variants: Partial<Record<Encoding, ReturnType<typeof representation>>> = {};
  return {
    made,
    contentType: 'text/html; charset=utf-8',
    lastModified: 'Sun, 22 Nov 2026 00:00:00 GMT',
    cacheControl: PUBLIC_CACHE_CONTROL,
    headers,
    variant: (encoding) => (variants[encoding] ??= (made.push(encoding), representation(Buffer.from(`${encoding}:${text}`), encoding))),
  };
}

function call(files: PrebuiltFiles, method: string, url: string, headers: Record<string, string> = {}) {
  const sent: { status?: number; headers?: OutgoingHttpHeaders; body?: Buffer; next: boolean } = { next: false };
  const req = {
    method,
    originalUrl: url,
    headers,
    acceptsEncodings: (e: string) => (headers['accept-encoding'] ?? '').includes(e),
  } as unknown as Request;
  const res = {
    writeHead(status: number, h: OutgoingHttpHeaders) {
      sent.status = status;
      sent.headers = h;
      return this;
    },
    end(body?: Buffer) {
      sent.body = body;
    },
  } as unknown as Response;
  files.use(req, res, () => (sent.next = true));
  return sent;
}

describe('PrebuiltFiles', () => {
  it('answers GET and HEAD of its exact paths (query ignored) and passes everything else on', () => {
    const files = new PrebuiltFiles(new Map([['/pricing', lazyFile('p')]]));
    expect(call(files, 'GET', '/pricing?x=1').status).toBe(200);
    const head = call(files, 'HEAD', '/pricing');
    expect(head.status).toBe(200);
    expect(head.body).toBeUndefined();
    expect(head.headers!['Content-Length']).toBe(Buffer.from('identity:p').length);
    for (const [method, url] of [['POST', '/pricing'], ['GET', '/pricing/'], ['GET', '/Pricing'], ['GET', '/other']]) {
      expect(call(files, method!, url!).next).toBe(true);
    }
  });

  it('chooses brotli, then gzip, and builds each variant only once', () => {
    const file = lazyFile('p');
    const files = new PrebuiltFiles(new Map([['/p', file]]));
    const br = call(files, 'GET', '/p', { 'accept-encoding': 'gzip, br' });
    expect(br.headers!['Content-Encoding']).toBe('br');
    expect(br.body!.toString()).toBe('br:p');
    expect(call(files, 'GET', '/p', { 'accept-encoding': 'gzip' }).body!.toString()).toBe('gzip:p');
    expect(call(files, 'GET', '/p').headers!['Content-Encoding']).toBeUndefined();
    call(files, 'GET', '/p', { 'accept-encoding': 'gzip, br' });
    expect([...file.made].sort()).toEqual(['br', 'gzip', 'identity']);
  });

  it('answers 304 to any of the file\'s ETags (weak comparison) or a later If-Modified-Since, with the headers of its kind', () => {
    const file = lazyFile('p', { 'Content-Security-Policy': "default-src 'none'" });
    const files = new PrebuiltFiles(new Map([['/p', file]]));
    const first = call(files, 'GET', '/p', { 'accept-encoding': 'br' });
    expect(first.headers).toMatchObject({ 'Cache-Control': PUBLIC_CACHE_CONTROL, Vary: 'Accept-Encoding', 'Content-Security-Policy': "default-src 'none'" });
    const etag = first.headers!.ETag as string;
    const again = call(files, 'GET', '/p', { 'if-none-match': `W/${etag}` });
    expect(again.status).toBe(304);
    expect(again.headers!['Content-Security-Policy']).toBe("default-src 'none'");
    expect(call(files, 'GET', '/p', { 'if-none-match': '"other"' }).status).toBe(200);
    expect(call(files, 'GET', '/p', { 'if-modified-since': 'Mon, 23 Nov 2026 00:00:00 GMT' }).status).toBe(304);
    expect(call(files, 'GET', '/p', { 'if-modified-since': 'Sat, 21 Nov 2026 00:00:00 GMT' }).status).toBe(200);
  });
});
