import 'reflect-metadata';
import type { ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { DataSource } from 'typeorm';
import { MultipartBody } from '../../common/http/request-body.js';
import { Problem } from '../../common/problem/problem.js';
import { AUDIENCE_KEY, type Audience, FORM_KEY } from '../../caller/audience.js';
import { AUTHENTICATED_CLIENT } from '../../caller/current-client.js';
import { CSRF_FIELD, CsrfInterceptor, CsrfProtection } from './csrf.js';
import { cookieSettings } from './session-cookie.js';
import { ServiceSecretsRepository } from '../../database/service-secrets.repository.js';
import type { SessionsService } from './sessions.service.js';
import type { OperatorSessionsService } from '../operators/operator-sessions.service.js';

/** The service's secret as PostgreSQL keeps it: the first value inserted wins, every replica reads it. */
function secretStore() {
  const queries: string[] = [];
  let stored: string | undefined;
  const dataSource = {
    query: async (sql: string, params: string[] = []) => {
      queries.push(sql.trim().split(/\s+/).slice(0, 2).join(' '));
      if (sql.startsWith('INSERT')) stored ??= params[1];
      return sql.startsWith('SELECT') ? [{ value: stored }] : [];
    },
  } as unknown as DataSource;
  return { dataSource, queries };
}

async function protection(store = secretStore(), publicBaseUrl = 'http://localhost:3000') {
  const csrf = new CsrfProtection(
    new ServiceSecretsRepository(store.dataSource),
    { cookies: cookieSettings(publicBaseUrl) } as unknown as SessionsService,
    { cookies: cookieSettings(publicBaseUrl, 'epr_operator') } as unknown as OperatorSessionsService,
  );
  await csrf.onModuleInit();
  return csrf;
}

interface Browser {
  cookies: Record<string, string>;
  /** The last Set-Cookie options of each cookie. */
  options: Record<string, Record<string, unknown>>;
}

/** A request of `browser` (its cookies), signed in to `sessionId` or not, with a body. */
function requestOf(browser: Browser, sessionId?: string, body?: unknown) {
  const req = {
    method: 'POST',
    headers: {},
    cookies: { ...browser.cookies },
    body,
    [AUTHENTICATED_CLIENT]: sessionId === undefined ? undefined : { clientId: 'acme', sessionId },
  };
  const res = {
    cookie: (name: string, value: string, options: Record<string, unknown>) => {
      browser.cookies[name] = value;
      browser.options[name] = options;
    },
  };
  return { req: req as never, res: res as never };
}

const newBrowser = (): Browser => ({ cookies: {}, options: {} });

describe('CsrfProtection', () => {
  it('makes its HMAC key once, in PostgreSQL, for every replica', async () => {
    const store = secretStore();
    const first = await protection(store);
    const second = await protection(store);
    expect(store.queries).toEqual(['INSERT INTO', 'SELECT value', 'INSERT INTO', 'SELECT value']);
    // A token of one replica is good on the other.
    const browser = newBrowser();
    const token = first.token(requestOf(browser, 's-1').req, requestOf(browser, 's-1').res);
    expect(() => second.check(requestOf(browser, 's-1', { [CSRF_FIELD]: token }).req)).not.toThrow();
  });

  it('accepts the page’s token with its cookie, in the same session, from a form or a multipart form', async () => {
    const csrf = await protection();
    const browser = newBrowser();
    const { req, res } = requestOf(browser, 's-1');
    const token = csrf.token(req, res);
    expect(browser.cookies.epr_csrf).toBeDefined();
    expect(browser.options.epr_csrf).toMatchObject({ httpOnly: true, sameSite: 'strict', path: '/', secure: false });
    expect(() => csrf.check(requestOf(browser, 's-1', { [CSRF_FIELD]: token }).req)).not.toThrow();
    expect(() => csrf.check(requestOf(browser, 's-1', new MultipartBody({ [CSRF_FIELD]: token }, {})).req)).not.toThrow();
  });

  it('refuses (403 csrf_failed) another session’s token, a missing or made-up one, a missing cookie, a token in the wrong place', async () => {
    const csrf = await protection();
    const browser = newBrowser();
    const token = csrf.token(requestOf(browser, 's-1').req, requestOf(browser, 's-1').res);
    const refused = (req: never) => {
      try {
        csrf.check(req);
      } catch (error) {
        expect(error).toBeInstanceOf(Problem);
        expect(error).toMatchObject({
          code: 'csrf_failed',
          status: 403,
          detail: 'This form has expired or did not come from this site: reload the page and send it again.',
        });
        return true;
      }
      return false;
    };
    // The same client's next session (a new sign-in): the token is bound to the session, not to the client.
    expect(refused(requestOf(browser, 's-2', { [CSRF_FIELD]: token }).req)).toBe(true);
    expect(refused(requestOf(browser, undefined, { [CSRF_FIELD]: token }).req)).toBe(true);
    expect(refused(requestOf(browser, 's-1', {}).req)).toBe(true);
    expect(refused(requestOf(browser, 's-1', undefined).req)).toBe(true);
    expect(refused(requestOf(browser, 's-1', { [CSRF_FIELD]: 'abc.def' }).req)).toBe(true);
    expect(refused(requestOf(browser, 's-1', { [CSRF_FIELD]: [token] }).req)).toBe(true);
    expect(refused(requestOf(browser, 's-1', new MultipartBody({}, {})).req)).toBe(true);
    expect(refused(requestOf(newBrowser(), 's-1', { [CSRF_FIELD]: token }).req)).toBe(true);
    expect(refused(requestOf(browser, 's-1', { token }).req)).toBe(true);
  });

  it('before sign-in a token is bound to no session (the sign-in forms), and is no good once signed in', async () => {
    const csrf = await protection();
    const browser = newBrowser();
    const token = csrf.token(requestOf(browser).req, requestOf(browser).res);
    expect(() => csrf.check(requestOf(browser, undefined, { [CSRF_FIELD]: token }).req)).not.toThrow();
    expect(() => csrf.check(requestOf(browser, 's-1', { [CSRF_FIELD]: token }).req)).toThrow(Problem);
  });

  it('on https its cookie is __Host- and Secure', async () => {
    const csrf = await protection(secretStore(), 'https://epr.example.org');
    const browser = newBrowser();
    const token = csrf.token(requestOf(browser, 's-1').req, requestOf(browser, 's-1').res);
    expect(Object.keys(browser.cookies)).toEqual(['__Host-epr_csrf']);
    expect(browser.options['__Host-epr_csrf']).toMatchObject({ secure: true, sameSite: 'strict', httpOnly: true, path: '/' });
    expect(() => csrf.check(requestOf(browser, 's-1', { [CSRF_FIELD]: token }).req)).not.toThrow();
  });
});

describe('CsrfInterceptor', () => {
  function run(audience: Audience | undefined, method: string, options: { form?: boolean } = {}) {
    const handler = () => undefined;
    class Controller {}
    if (audience) Reflect.defineMetadata(AUDIENCE_KEY, audience, handler);
    if (options.form) Reflect.defineMetadata(FORM_KEY, true, Controller);
    const checked: unknown[] = [];
    const csrf = { check: (req: unknown) => void checked.push(req) } as unknown as CsrfProtection;
    const req = { method };
    const context = {
      getHandler: () => handler,
      getClass: () => Controller,
      switchToHttp: () => ({ getRequest: () => req }),
    } as unknown as ExecutionContext;
    let handled = false;
    new CsrfInterceptor(csrf, new Reflector()).intercept(context, { handle: () => ((handled = true), undefined) as never });
    return { checked: checked.length, handled };
  }

  it('checks every POST of a dashboard page and of a public form; nothing else', () => {
    expect(run('session', 'POST')).toEqual({ checked: 1, handled: true });
    expect(run('public', 'POST', { form: true })).toEqual({ checked: 1, handled: true });
    expect(run('session', 'PUT')).toEqual({ checked: 1, handled: true });
    expect(run('session', 'DELETE')).toEqual({ checked: 1, handled: true });
    for (const method of ['GET', 'HEAD', 'OPTIONS']) {
      expect(run('session', method)).toEqual({ checked: 0, handled: true });
      expect(run('public', method, { form: true })).toEqual({ checked: 0, handled: true });
    }
    expect(run('public', 'POST')).toEqual({ checked: 0, handled: true });
    expect(run('client', 'POST')).toEqual({ checked: 0, handled: true });
    expect(run('admin', 'POST')).toEqual({ checked: 0, handled: true });
    expect(run(undefined, 'POST')).toEqual({ checked: 0, handled: true });
  });
});
