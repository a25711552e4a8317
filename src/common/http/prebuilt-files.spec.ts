import { createHash } from 'node:crypto';
import type { OutgoingHttpHeaders } from 'node:http';
import type { Request, Response } from 'express';
import {
  acceptsEncoding,
  type Encoding,
  PUBLIC_CACHE_CONTROL,
  PrebuiltFiles,
  type PrebuiltFile,
  representation,
} from './prebuilt-files.js';

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
    for (const [method, url] of [
      ['POST', '/pricing'],
      ['GET', '/pricing/'],
      ['GET', '/Pricing'],
      ['GET', '/other'],
    ]) {
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

  it("answers 304 to any of the file's ETags (weak comparison) or a later If-Modified-Since, with the headers of its kind", () => {
    const file = lazyFile('p', { 'Content-Security-Policy': "default-src 'none'" });
    const files = new PrebuiltFiles(new Map([['/p', file]]));
    const first = call(files, 'GET', '/p', { 'accept-encoding': 'br' });
    expect(first.headers).toMatchObject({
      'Cache-Control': PUBLIC_CACHE_CONTROL,
      Vary: 'Accept-Encoding',
      'Content-Security-Policy': "default-src 'none'",
    });
    const etag = first.headers!.ETag as string;
    const again = call(files, 'GET', '/p', { 'if-none-match': `W/${etag}` });
    expect(again.status).toBe(304);
    expect(again.headers!['Content-Security-Policy']).toBe("default-src 'none'");
    expect(call(files, 'GET', '/p', { 'if-none-match': '"other"' }).status).toBe(200);
    expect(call(files, 'GET', '/p', { 'if-modified-since': 'Mon, 23 Nov 2026 00:00:00 GMT' }).status).toBe(304);
    expect(call(files, 'GET', '/p', { 'if-modified-since': 'Sat, 21 Nov 2026 00:00:00 GMT' }).status).toBe(200);
    // The very date of Last-Modified: not modified since (RFC 9110 §13.1.3, "not later than").
    expect(call(files, 'GET', '/p', { 'if-modified-since': file.lastModified }).status).toBe(304);
  });
});

describe('PrebuiltFiles.answer (before any other middleware)', () => {
  function answer(files: PrebuiltFiles, method: string, url: string, headers: Record<string, string> = {}) {
    const sent: { status?: number; headers?: string[]; body?: Buffer } = {};
    const req = {
      method,
      url,
      headers,
      acceptsEncodings: (e: string) => (headers['accept-encoding'] ?? '').includes(e),
    } as unknown as Request;
    const res = {
      writeHead(status: number, h: string[]) {
        sent.status = status;
        sent.headers = h;
        return this;
      },
      end(body?: Buffer) {
        sent.body = body;
      },
    } as unknown as Response;
    const path = files.answer(req, res, 'req-1');
    const pairs = new Map<string, string>();
    for (let i = 0; i < (sent.headers?.length ?? 0); i += 2) pairs.set(sent.headers![i]!.toLowerCase(), sent.headers![i + 1]!);
    return { path, ...sent, pairs, count: (sent.headers?.length ?? 0) / 2 };
  }

  it("sends the security headers, the file's own taking precedence, and the request id, in one list", () => {
    const security = { 'Content-Security-Policy': "default-src 'self'", 'X-Content-Type-Options': 'nosniff' };
    const files = new PrebuiltFiles(new Map([['/p', lazyFile('p', { 'content-security-policy': "default-src 'none'" })]]), security);
    const ok = answer(files, 'GET', '/p?x=1', { 'accept-encoding': 'br' });
    expect(ok.path).toBe('/p');
    expect(ok.status).toBe(200);
    expect(ok.body!.toString()).toBe('br:p');
    expect(ok.pairs.get('content-security-policy')).toBe("default-src 'none'");
    expect(ok.pairs.get('x-content-type-options')).toBe('nosniff');
    expect(ok.pairs.get('x-request-id')).toBe('req-1');
    expect(ok.pairs.get('content-encoding')).toBe('br');
    expect(ok.count).toBe(ok.pairs.size);
    const notModified = answer(files, 'GET', '/p', { 'if-none-match': ok.pairs.get('etag')! });
    expect(notModified.status).toBe(304);
    expect(notModified.body).toBeUndefined();
    expect(notModified.pairs.get('x-content-type-options')).toBe('nosniff');
    expect(notModified.pairs.get('x-request-id')).toBe('req-1');
    const head = answer(files, 'HEAD', '/p');
    expect(head.body).toBeUndefined();
    expect(head.pairs.get('content-length')).toBe(String(Buffer.from('identity:p').length));
  });

  it('does nothing for another method or path', () => {
    const files = new PrebuiltFiles(new Map([['/p', lazyFile('p')]]));
    for (const [method, url] of [
      ['POST', '/p'],
      ['GET', '/p/'],
      ['GET', '/P'],
      ['GET', '/q'],
    ]) {
      const result = answer(files, method!, url!);
      expect({ method, url, path: result.path, status: result.status }).toEqual({ method, url, path: undefined, status: undefined });
    }
  });
});

describe('PrebuiltFiles, what the mutation run found untested', () => {
  function answer(files: PrebuiltFiles, url: string, headers: Record<string, string> = {}, requestId = 'req-1') {
    const sent: { status?: number; headers?: string[]; body?: Buffer } = {};
    const req = { method: 'GET', url, headers } as unknown as Request;
    const res = {
      writeHead(status: number, h: string[]) {
        sent.status = status;
        sent.headers = h;
        return this;
      },
      end(body?: Buffer) {
        sent.body = body;
      },
    } as unknown as Response;
    files.answer(req, res, requestId);
    return sent;
  }
  const named = (headers: string[] | undefined, name: string) =>
    (headers ?? []).filter((_, i) => i % 2 === 0 && headers![i]!.toLowerCase() === name);

  it('lists the paths it answers', () => {
    expect(
      new PrebuiltFiles(
        new Map([
          ['/a', lazyFile('a')],
          ['/b', lazyFile('b')],
        ]),
      ).paths(),
    ).toEqual(['/a', '/b']);
  });

  it('sends the bytes as they are when the client accepts neither brotli nor gzip', () => {
    const files = new PrebuiltFiles(new Map([['/p', lazyFile('p')]]));
    const plain = call(files, 'GET', '/p', { 'accept-encoding': 'deflate' });
    expect(plain.body!.toString()).toBe('identity:p');
    expect(plain.headers!['Content-Encoding']).toBeUndefined();
  });

  it("asks a file for its variants only while preparing each encoding's response, never again", () => {
    const file = lazyFile('p');
    const asked: Encoding[] = [];
    const counting: PrebuiltFile = { ...file, variant: (encoding) => (asked.push(encoding), file.variant(encoding)) };
    const files = new PrebuiltFiles(new Map([['/p', counting]]));
    for (const encoding of ['br', 'gzip', 'deflate']) call(files, 'GET', '/p', { 'accept-encoding': encoding });
    const prepared = asked.length;
    expect(prepared).toBeGreaterThan(0);
    for (const encoding of ['br', 'gzip', 'deflate']) {
      call(files, 'GET', '/p', { 'accept-encoding': encoding });
      answer(files, '/p', { 'accept-encoding': encoding });
    }
    expect(asked).toHaveLength(prepared);
  });

  it("sends one X-Request-Id, the current request's, however many requests came before", () => {
    const files = new PrebuiltFiles(new Map([['/p', lazyFile('p')]]));
    const first = answer(files, '/p', {}, 'first');
    const etag = first.headers![first.headers!.indexOf('ETag') + 1]!;
    expect(answer(files, '/p', { 'if-none-match': etag }, 'second').status).toBe(304);
    for (const [headers, id] of [
      [{}, 'third'],
      [{ 'if-none-match': etag }, 'fourth'],
    ] as const) {
      const sent = answer(files, '/p', headers, id);
      expect(named(sent.headers, 'x-request-id')).toHaveLength(1);
      expect(sent.headers![sent.headers!.length - 1]).toBe(id);
    }
  });

  it('leaves out a security header whose value is undefined', () => {
    const files = new PrebuiltFiles(new Map([['/p', lazyFile('p')]]), { 'X-Absent': undefined, 'X-Present': 'yes' });
    const sent = answer(files, '/p');
    expect(named(sent.headers, 'x-absent')).toEqual([]);
    expect(named(sent.headers, 'x-present')).toHaveLength(1);
  });

  it('answers If-None-Match: * (spaces around it too) with 304, and an empty one, a stranger, or a strong tag holding "W/" with 200', () => {
    const files = new PrebuiltFiles(new Map([['/p', lazyFile('p')]]));
    const etag = call(files, 'GET', '/p').headers!.ETag as string;
    expect(call(files, 'GET', '/p', { 'if-none-match': '*' }).status).toBe(304);
    expect(call(files, 'GET', '/p', { 'if-none-match': ' * ' }).status).toBe(304);
    expect(call(files, 'GET', '/p', { 'if-none-match': '' }).status).toBe(200);
    expect(call(files, 'GET', '/p', { 'if-none-match': `"W/${etag.slice(1)}` }).status).toBe(200);
    // One of a list, spaces after the commas, weak or not.
    expect(call(files, 'GET', '/p', { 'if-none-match': `"other",  W/${etag}` }).status).toBe(304);
    expect(call(files, 'GET', '/p', { 'if-none-match': `${etag}, "other"` }).status).toBe(304);
  });
});

describe('representation: strong ETags', () => {
  it('is 27 base64url characters of the SHA-256 of the bytes, suffixed with the encoding but for identity', () => {
    const body = Buffer.from('some bytes');
    const hash = createHash('sha256').update(body).digest('base64url').slice(0, 27);
    expect(representation(body, 'identity')).toEqual({ body, etag: `"${hash}"` });
    expect(representation(body, 'gzip').etag).toBe(`"${hash}-gzip"`);
    expect(representation(body, 'br').etag).toBe(`"${hash}-br"`);
    expect(hash).toMatch(/^[A-Za-z0-9_-]{27}$/);
  });
});

describe('acceptsEncoding (RFC 9110 §12.5.3)', () => {
  it.each([
    ['gzip, deflate, br', 'br', true],
    ['gzip, deflate, br', 'gzip', true],
    ['gzip', 'br', false],
    ['br;q=0, gzip', 'br', false],
    ['BR;Q=0.5', 'br', true],
    ['*', 'br', true],
    ['*;q=0', 'gzip', false],
    ['gzip;q=0, *', 'gzip', false],
    ['identity', 'gzip', false],
    // Weights: spaces allowed around each part; a malformed weight, or another parameter, is ignored.
    ['br; q=0', 'br', false],
    ['br;q =0', 'br', false],
    ['br;q= 0', 'br', false],
    ['br;q=0 ', 'br', false],
    ['br;q=0.000', 'br', false],
    ['br;q=0x', 'br', true],
    ['br;xq=0', 'br', true],
    ['br;level=1', 'br', true],
  ])('%s accepts %s: %s', (field, coding, accepted) => {
    expect(acceptsEncoding(field, coding)).toBe(accepted);
  });
});
