import { Problem } from '../../common/problem/problem.js';
import {
  accountSuspended,
  BARE_CHALLENGE,
  bearerToken,
  insufficientScope,
  invalidToken,
  isB64Token,
  missingToken,
  refuseSeveralAuthorizations,
  refuseTokenOutsideHeader,
  REJECTION_DESCRIPTIONS,
  uniqueName,
} from './bearer-header.js';

/** The problem `run` throws (it must throw one). */
function thrown(run: () => unknown): Problem {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(Problem);
    return error as Problem;
  }
  throw new Error('nothing thrown');
}

describe('bearerToken (RFC 6750 §2.1, RFC 9110 §11)', () => {
  it('reads the token after the scheme, whatever its case and the spaces around it', () => {
    expect(bearerToken('Bearer abc')).toBe('abc');
    expect(bearerToken('bearer abc')).toBe('abc');
    expect(bearerToken('BEARER    abc  ')).toBe('abc');
    expect(bearerToken('  Bearer abc')).toBe('abc');
  });

  it('answers a request with no credential with the bare challenge (no error code)', () => {
    for (const header of [undefined, '', '   ']) {
      const problem = thrown(() => bearerToken(header));
      expect(problem.code).toBe('missing_token');
      expect(problem.detail).toBe('This route needs a token: send "Authorization: Bearer <token>".');
      expect(problem.headers).toEqual({ 'WWW-Authenticate': BARE_CHALLENGE });
    }
  });

  it('names another scheme when it looks like one, never a pasted token', () => {
    expect(thrown(() => bearerToken('Basic dXNlcjpwYXNz')).detail).toBe(
      'This API does not accept the Basic scheme; send "Authorization: Bearer <token>".',
    );
    const pasted = 'eprc_0123456789abcdefghijklmnopqrstuv_abc123';
    const problem = thrown(() => bearerToken(pasted));
    expect(problem.code).toBe('missing_token');
    expect(problem.detail).toBe('This API does not accept this Authorization header; send "Authorization: Bearer <token>".');
    expect(problem.detail).not.toContain(pasted);
    expect(thrown(() => bearerToken('(((')).detail).toContain('this Authorization header');
    expect(thrown(() => bearerToken('Bearerx abc')).detail).toContain('the Bearerx scheme');
  });

  it('refuses an empty token after the scheme with invalid_token', () => {
    for (const header of ['Bearer', 'Bearer    ']) {
      const problem = thrown(() => bearerToken(header));
      expect(problem.code).toBe('invalid_token');
      expect(problem.detail).toBe('The bearer token is empty.');
    }
  });
});

describe('the challenges of a refusal', () => {
  it('carry the realm, the error and its description', () => {
    expect(BARE_CHALLENGE).toMatch(/^Bearer realm="[^"]+"$/);
    const invalid = invalidToken('Not recognised.');
    expect(invalid.code).toBe('invalid_token');
    expect(invalid.headers['WWW-Authenticate']).toBe(`${BARE_CHALLENGE}, error="invalid_token", error_description="Not recognised."`);
    expect(missingToken('Send one.').headers).toEqual({ 'WWW-Authenticate': BARE_CHALLENGE });
    const scope = insufficientScope();
    expect(scope.code).toBe('insufficient_scope');
    expect(scope.headers['WWW-Authenticate']).toBe(
      `${BARE_CHALLENGE}, error="insufficient_scope", error_description="The admin API needs the operator token.", scope="admin"`,
    );
    expect(accountSuspended('acme').code).toBe('account_suspended');
    expect(accountSuspended('acme').detail).toContain('"acme"');
  });

  it('describe every rejection in words a challenge can carry (no " or \\)', () => {
    const descriptions = Object.values(REJECTION_DESCRIPTIONS);
    expect(descriptions).toHaveLength(7);
    for (const description of descriptions) {
      expect(description.length).toBeGreaterThan(20);
      expect(description).not.toMatch(/["\\]/);
    }
    expect(new Set(descriptions).size).toBe(descriptions.length);
  });
});

describe('isB64Token', () => {
  it('accepts the b64token shape and nothing else', () => {
    for (const token of ['abc', 'eprc_0123_abc', 'a-b.c~d+e/f', 'abc==', 'A9']) expect(isB64Token(token)).toBe(true);
    for (const token of ['', 'a b', 'a=b', '=', 'é', 'a"b', 'a,b']) expect(isB64Token(token)).toBe(false);
  });
});

describe('a token outside the Authorization header', () => {
  const request = (url: string, headers: Record<string, string> = {}) => ({ url, headers });

  it('is refused in the query string under any spelling', () => {
    for (const url of [
      '/api/v1/me?access_token=x',
      '/api/v1/me?a=1&ACCESS_TOKEN=x',
      '/api/v1/me?%61ccess_token=x',
      '/api/v1/me?access_token[]=x',
      '/api/v1/me?access_token.x=y',
      '/?access_token=x',
    ]) {
      const problem = thrown(() => refuseTokenOutsideHeader(request(url)));
      expect(problem.code).toBe('bad_request');
      expect(problem.detail).toContain('never in the address');
    }
  });

  it('lets other parameters through', () => {
    for (const url of ['/api/v1/me', '/api/v1/me?', '/api/v1/declarations?access_tokens=1', '/api/v1/x?my_access_token=1']) {
      expect(() => refuseTokenOutsideHeader(request(url))).not.toThrow();
    }
  });

  it('is refused in a form body sent without an Authorization header, not with one', () => {
    const form = { 'content-type': 'application/x-www-form-urlencoded; charset=utf-8' };
    const problem = thrown(() => refuseTokenOutsideHeader(request('/api/v1/me', form)));
    expect(problem.detail).toContain('never in a form body');
    expect(() => refuseTokenOutsideHeader(request('/api/v1/me', { ...form, authorization: 'Bearer x' }))).not.toThrow();
    expect(() => refuseTokenOutsideHeader(request('/api/v1/me', { 'content-type': 'application/json' }))).not.toThrow();
    expect(() =>
      refuseTokenOutsideHeader(request('/api/v1/me', { 'content-type': 'text/application/x-www-form-urlencoded' })),
    ).not.toThrow();
  });
});

describe('several Authorization headers', () => {
  it('are refused; one or none is not', () => {
    expect(thrown(() => refuseSeveralAuthorizations({ headersDistinct: { authorization: ['Bearer a', 'Bearer b'] } })).detail).toBe(
      'Send one Authorization header, not several.',
    );
    expect(() => refuseSeveralAuthorizations({ headersDistinct: { authorization: ['Bearer a'] } })).not.toThrow();
    expect(() => refuseSeveralAuthorizations({ headersDistinct: {} })).not.toThrow();
    // A request object without the distinct headers (not Node's): nothing to refuse.
    expect(() => refuseSeveralAuthorizations({} as Parameters<typeof refuseSeveralAuthorizations>[0])).not.toThrow();
  });
});

describe('uniqueName', () => {
  it('gives each strategy instance a name of its own', () => {
    const first = uniqueName('client');
    const second = uniqueName('client');
    expect(first).toMatch(/^client#\d+$/);
    expect(second).not.toBe(first);
  });
});
