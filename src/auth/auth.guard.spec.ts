import type { RefusedActions } from '../audit/refused-actions.js';
import 'reflect-metadata';
import { jest } from '@jest/globals';
import type { ExecutionContext } from '@nestjs/common';
import passport from 'passport';
import type { Repository } from 'typeorm';
import type { AccountsService } from '../accounts/accounts.service.js';
import type { PreparedStatements } from '../database/prepared-statements.js';
import { type Audience, AUDIENCE_KEY } from '../caller/audience.js';
import { Problem } from '../common/problem/problem.js';
import type { AppConfig } from '../config/config.js';
import type { FailedAuthentications } from '../rate-limit/failed-authentications.js';
import { AdminCredential } from './operators/admin-credential.js';
import { bearerToken, REJECTION_DESCRIPTIONS } from './bearer/bearer-header.js';
import { ClientBearerStrategy } from './bearer/client-bearer.strategy.js';
import { OperatorBearerStrategy } from './bearer/operator-bearer.strategy.js';
import type { OperatorsService } from './operators/operators.service.js';
import type { SessionsService } from './sessions/sessions.service.js';
import { AuthGuard } from './auth.guard.js';
import type { OperatorSessionsService } from './operators/operator-sessions.service.js';
import type { ClientTokenEntity } from './tokens/client-token.entity.js';
import { AUTHENTICATED_CLIENT } from '../caller/current-client.js';
import { AUTHENTICATED_OPERATOR, OPERATOR_SESSION } from '../caller/actor.js';
import { generateToken, hashToken, OPERATOR_TOKEN_PREFIX } from '../common/token-format.js';
import { AuthenticationCache } from './tokens/authentication-cache.js';
import { ClientTokenVerifier } from './tokens/client-token-verifier.js';
import { ClientTokensRepository } from './tokens/client-tokens.repository.js';
import { TokenUseRecorder } from './tokens/token-use-recorder.js';

const ADMIN = 'admin-secret-0123456789-0123456789-abcdef';
const REALM = 'Bearer realm="epr-declarations"';

interface Row {
  id: string;
  clientId: string;
  tokenHash: string;
  expiresAt: Date | null;
  revokedAt: Date | null;
}

/** The token lookup answered from memory as the SQL would, and a repository for the use record; every database call is recorded. */
function fakeDatabase(rows: Row[]) {
  const calls: string[] = [];
  const statements = {
    // As the SQL answers: the tokens of the hashes looked up together, each with its hash.
    query: async (_statement: unknown, [hashes]: [string[]]) => {
      calls.push('lookup');
      return rows
        .filter((r) => hashes.includes(r.tokenHash))
        .map((r) => ({
          tokenHash: r.tokenHash,
          tokenId: r.id,
          revoked: r.revokedAt !== null,
          expired: r.expiresAt === null ? null : r.expiresAt.getTime() <= Date.now(),
          ...ACCOUNT,
          clientId: r.clientId,
          mode: 'live',
          status: 'active',
        }));
    },
  };
  const repository = {
    query: async (_sql: string, [ids]: [string[]]) => {
      calls.push(`update ${ids.join(',')}`);
      return [];
    },
  };
  return {
    calls,
    repository: repository as unknown as Repository<ClientTokenEntity>,
    statements: statements as unknown as PreparedStatements,
  };
}

const ACCOUNT = {
  confirmedAt: new Date('2025-01-02T03:04:05Z'),
  email: 'a@example.fr',
  company: 'Acme',
  country: 'FR',
  plan: 'business',
  streams: ['EMB'],
  idus: ['X'],
};
const { confirmedAt, ...PROFILE } = ACCOUNT;

const good = generateToken();
const revoked = generateToken();
const expired = generateToken();
const unknown = generateToken();
const other = generateToken();
const rows: Row[] = [
  { id: 't-good', clientId: 'acme', tokenHash: hashToken(good), expiresAt: null, revokedAt: null },
  { id: 't-other', clientId: 'acme', tokenHash: hashToken(other), expiresAt: null, revokedAt: null },
  { id: 't-revoked', clientId: 'acme', tokenHash: hashToken(revoked), expiresAt: null, revokedAt: new Date(Date.now() - 1000) },
  { id: 't-expired', clientId: 'acme', tokenHash: hashToken(expired), expiresAt: new Date(Date.now() - 1000), revokedAt: null },
];

const operatorGood = generateToken(OPERATOR_TOKEN_PREFIX);
const operatorRevoked = generateToken(OPERATOR_TOKEN_PREFIX);
const operatorUnknown = generateToken(OPERATOR_TOKEN_PREFIX);
/** What OperatorsService.verify answers (from its table) for the operator tokens of these cases. */
const OPERATOR_OUTCOMES = new Map<string, unknown>([
  [operatorGood, { ok: true, operator: { kind: 'operator', id: 'op-1', name: 'Alice' } }],
  [operatorRevoked, { ok: false, reason: 'revoked' }],
]);

function setup({ adminDisabled = false, overFailureLimit = false, cacheListening = false } = {}) {
  const adminToken = adminDisabled ? undefined : ADMIN;
  const { calls, repository, statements } = fakeDatabase(rows);
  const accountListeners: ((clientId: string) => void)[] = [];
  const accounts = {
    onAccountChanged: (listener: (clientId: string) => void) => accountListeners.push(listener),
  } as unknown as AccountsService;
  // Off unless listening (as when PostgreSQL's announcements do not reach the replica): every verify reads the fake table.
  const cache = new AuthenticationCache({ ttlMs: 10_000, maxEntries: 100 });
  if (cacheListening) cache.listening(true);
  const uses = new TokenUseRecorder(new ClientTokensRepository(repository, statements));
  const verifier = new ClientTokenVerifier(new ClientTokensRepository(repository, statements), cache, uses, accounts);
  // The verifier, and the use records' flush (as the app does before it stops).
  const tokens = { verify: verifier.verify.bind(verifier), beforeApplicationShutdown: () => uses.beforeApplicationShutdown() };
  const admin = new AdminCredential({ adminToken } as AppConfig);
  // OperatorsService itself (its SQL) is covered end to end in test/admin/operators-audit.e2e-spec.ts.
  const operatorCalls: string[] = [];
  const operators = {
    verify: async (token: string) => {
      operatorCalls.push(token);
      return OPERATOR_OUTCOMES.get(token) ?? { ok: false, reason: 'unknown' };
    },
  } as unknown as OperatorsService;
  const failures: string[] = [];
  const failedAuthentications = {
    refuseIfOverLimit: () => {
      if (overFailureLimit) throw new Problem('rate_limited', 'Too many failed authentications from this address.');
    },
    record: () => void failures.push('failure'),
  } as unknown as FailedAuthentications;
  const sessions = {
    cookies: { session: 'epr_session' },
    resolve: async (secret: unknown) =>
      secret === 'good-session' || secret === 'suspended-session'
        ? {
            sessionId: 's-1',
            clientId: 'acme',
            account: { clientId: 'acme', confirmedAt: null, profile: PROFILE },
            suspended: secret === 'suspended-session',
          }
        : undefined,
  } as unknown as SessionsService;
  const clientStrategy = new ClientBearerStrategy(verifier, admin);
  const operatorStrategy = new OperatorBearerStrategy(operators, verifier);
  const refused: number[] = [];
  const refusals = { record: async (_req: unknown, problem: Problem) => void refused.push(problem.status) } as unknown as RefusedActions;
  const operatorSessions = {
    cookies: { session: 'epr_operator_session' },
    resolve: async (secret: unknown) =>
      secret === 'good-console-session' ? { sessionId: 'os-1', operatorId: 'op-1', name: 'Alice' } : undefined,
  } as unknown as OperatorSessionsService;
  const guard = new AuthGuard(admin, failedAuthentications, sessions, refusals, clientStrategy, operatorStrategy, operatorSessions);
  return { guard, calls, tokens, failures, refused, operatorCalls, cache, accountListeners, clientStrategy, operatorStrategy };
}

function call(audience: { method?: Audience; class?: Audience }, authorization?: string | string[]) {
  const handler = () => undefined;
  class SomeController {}
  if (audience.method) Reflect.defineMetadata(AUDIENCE_KEY, audience.method, handler);
  if (audience.class) Reflect.defineMetadata(AUDIENCE_KEY, audience.class, SomeController);
  // As Node leaves them: the first of several headers in `headers`, all of them in `headersDistinct`.
  const all = authorization === undefined ? [] : [authorization].flat();
  const req: Record<string | symbol, unknown> & { headers: Record<string, string> } = {
    url: '/api/v1/somewhere',
    headers: all.length === 0 ? {} : { authorization: all[0]! },
    headersDistinct: all.length === 0 ? {} : { authorization: all },
  };
  const headers: Record<string, string> = {};
  const res = { setHeader: (name: string, value: string) => void (headers[name.toLowerCase()] = value) };
  const context = {
    getHandler: () => handler,
    getClass: () => SomeController,
    switchToHttp: () => ({ getRequest: () => req, getResponse: () => res }),
  } as unknown as ExecutionContext;
  return { context, req, headers };
}

async function rejection(promise: Promise<unknown>): Promise<Problem> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(Problem);
    return error as Problem;
  }
  throw new Error('expected the guard to refuse');
}

describe('AuthGuard decisions', () => {
  it('lets a dashboard page (session audience) in with a live session cookie only, never with a bearer token', async () => {
    const { guard, calls } = setup();
    const withCookie = call({ class: 'session' });
    (withCookie.req as Record<string, unknown>).cookies = { epr_session: 'good-session' };
    await expect(guard.canActivate(withCookie.context)).resolves.toBe(true);
    expect(withCookie.req[AUTHENTICATED_CLIENT]).toEqual(
      expect.objectContaining({ clientId: 'acme', tokenId: null, sessionId: 's-1', mode: 'live' }),
    );
    expect(withCookie.headers['cache-control']).toBe('no-store');

    const wrongCookie = call({ class: 'session' });
    (wrongCookie.req as Record<string, unknown>).cookies = { epr_session: 'ended-session' };
    const ended = await rejection(guard.canActivate(wrongCookie.context));
    expect(ended.code).toBe('session_required');
    expect(ended.detail).toBe('Sign in to the dashboard to see this page.');
    // A client token is no way into a page, and is not even looked up.
    const bearer = call({ class: 'session' }, `Bearer ${generateToken()}`);
    expect((await rejection(guard.canActivate(bearer.context))).code).toBe('session_required');
    expect(calls).toEqual([]);
  });

  it('refuses a live dashboard session of a suspended account, saying so, and leaves no client on the request', async () => {
    const { guard } = setup();
    const attempt = call({ class: 'session' });
    (attempt.req as Record<string, unknown>).cookies = { epr_session: 'suspended-session' };
    expect((await rejection(guard.canActivate(attempt.context))).code).toBe('account_suspended');
    expect(attempt.req[AUTHENTICATED_CLIENT]).toBeUndefined();
  });

  it('counts a session cookie that names no live session as a failed authentication of its address; no cookie is none', async () => {
    const { guard, failures } = setup();
    const withCookie = (value: string) => {
      const attempt = call({ class: 'session' });
      (attempt.req as Record<string, unknown>).cookies = { epr_session: value };
      return attempt;
    };
    await expect(guard.canActivate(withCookie('good-session').context)).resolves.toBe(true);
    expect(failures).toEqual([]);
    expect((await rejection(guard.canActivate(withCookie('eprs_forged').context))).code).toBe('session_required');
    expect(failures).toEqual(['failure']);
    // No cookie (or another cookie only): sent to sign in, nothing counted.
    expect((await rejection(guard.canActivate(call({ class: 'session' }).context))).code).toBe('session_required');
    const otherCookie = call({ class: 'session' });
    (otherCookie.req as Record<string, unknown>).cookies = { epr_csrf: 'x' };
    expect((await rejection(guard.canActivate(otherCookie.context))).code).toBe('session_required');
    expect(failures).toEqual(['failure']);
  });

  it('refuses a session cookie from an address over its failed authentications before looking it up, even a good one (429)', async () => {
    const { guard, failures } = setup({ overFailureLimit: true });
    const lookups: unknown[] = [];
    const sessions = (guard as unknown as { sessions: { resolve: (secret: unknown) => Promise<unknown> } }).sessions;
    const resolve = sessions.resolve;
    sessions.resolve = async (secret) => (lookups.push(secret), resolve(secret));
    for (const value of ['good-session', 'eprs_forged']) {
      const attempt = call({ class: 'session' });
      (attempt.req as Record<string, unknown>).cookies = { epr_session: value };
      expect((await rejection(guard.canActivate(attempt.context))).code).toBe('rate_limited');
    }
    expect(lookups).toEqual([]);
    // Without a cookie there is nothing to refuse: the page sends to sign in.
    const anonymous = call({ class: 'session' });
    await expect(guard.canActivate(anonymous.context)).rejects.toMatchObject({ code: 'session_required' });
    expect(lookups).toEqual([undefined]);
    expect(failures).toEqual([]);
  });

  it('lets a console page (operator audience) in with a live console session cookie only, as that operator; a dashboard session or a token opens nothing', async () => {
    const { guard, failures, calls, operatorCalls } = setup();
    const withCookie = (cookies?: Record<string, string>, authorization?: string) => {
      const attempt = call({ class: 'operator' }, authorization);
      if (cookies) (attempt.req as Record<string, unknown>).cookies = cookies;
      return attempt;
    };
    const live = withCookie({ epr_operator_session: 'good-console-session' });
    await expect(guard.canActivate(live.context)).resolves.toBe(true);
    expect(live.req[AUTHENTICATED_OPERATOR]).toEqual({ kind: 'operator', id: 'op-1', name: 'Alice' });
    expect(live.req[OPERATOR_SESSION]).toBe('os-1');
    expect(live.headers['cache-control']).toBe('no-store');
    expect(failures).toEqual([]);

    const ended = await rejection(guard.canActivate(withCookie({ epr_operator_session: 'ended' }).context));
    expect([ended.code, ended.detail]).toEqual(['session_required', "Sign in to the operator's console to see this page."]);
    expect(failures).toEqual(['failure']);
    // No console cookie: sent to sign in, nothing counted, whatever else is sent.
    for (const attempt of [withCookie(), withCookie({ epr_session: 'good-session' }), withCookie(undefined, `Bearer ${operatorGood}`)]) {
      expect((await rejection(guard.canActivate(attempt.context))).code).toBe('session_required');
    }
    expect(failures).toEqual(['failure']);
    expect([calls, operatorCalls]).toEqual([[], []]);
  });

  it('refuses a console cookie from an address over its failed authentications before looking it up (429); no cookie is sent to sign in', async () => {
    const { guard } = setup({ overFailureLimit: true });
    const attempt = call({ class: 'operator' });
    (attempt.req as Record<string, unknown>).cookies = { epr_operator_session: 'good-console-session' };
    expect((await rejection(guard.canActivate(attempt.context))).code).toBe('rate_limited');
    expect((await rejection(guard.canActivate(call({ class: 'operator' }).context))).code).toBe('session_required');
  });

  it('opens public routes without any credential and without touching the response', async () => {
    const { guard, calls } = setup();
    const { context, headers } = call({ method: 'public' });
    await expect(guard.canActivate(context)).resolves.toBe(true);
    expect(headers).toEqual({});
    expect(calls).toEqual([]);
  });

  it('treats a route without audience metadata as a client route (deny by default)', async () => {
    const { guard } = setup();
    const problem = await rejection(guard.canActivate(call({}).context));
    expect(problem.code).toBe('missing_token');
    expect(problem.status).toBe(401);
    expect(problem.headers['WWW-Authenticate']).toBe(REALM);
  });

  it('lets the method override the class (public class, admin method)', async () => {
    const { guard } = setup();
    const problem = await rejection(guard.canActivate(call({ class: 'public', method: 'admin' }).context));
    expect(problem.code).toBe('missing_token');
    await expect(guard.canActivate(call({ class: 'admin', method: 'public' }).context)).resolves.toBe(true);
  });

  describe('client routes', () => {
    it('accepts a valid token, marks the request and the response no-store', async () => {
      const { guard, calls, tokens } = setup();
      const { context, req, headers } = call({ method: 'client' }, `Bearer ${good}`);
      await expect(guard.canActivate(context)).resolves.toBe(true);
      expect(req[AUTHENTICATED_CLIENT]).toEqual({
        clientId: 'acme',
        tokenId: 't-good',
        mode: 'live',
        account: { clientId: 'acme', confirmedAt, profile: PROFILE },
      });
      expect(req.clientId).toBe('acme');
      expect(headers['cache-control']).toBe('no-store');
      // The token handed to passport is not left on the request for later layers.
      expect(Object.getOwnPropertySymbols(req).map((key) => req[key])).not.toContain(good);
      expect(calls).toEqual(['lookup']); // the use is written later, batched
      await tokens.beforeApplicationShutdown();
      expect(calls).toEqual(['lookup', 'update t-good']);
    });

    it('verifies the token through passport: passport-http-bearer reads it, the strategy of this app validates it', async () => {
      const { guard, clientStrategy, operatorStrategy } = setup();
      const authenticate = jest.spyOn(passport, 'authenticate');
      const validate = jest.spyOn(clientStrategy, 'validate');
      try {
        await expect(guard.canActivate(call({ method: 'client' }, `Bearer   ${good}`).context)).resolves.toBe(true);
        expect(authenticate).toHaveBeenCalledWith(clientStrategy.passportName, expect.anything(), expect.any(Function));
        // The header as the guard read it (several spaces allowed), and nothing else of the request.
        expect(validate).toHaveBeenCalledWith(good, expect.any(Function));
        // Each app has strategies of its own (two apps in one process are two replicas in the tests).
        expect(setup().clientStrategy.passportName).not.toBe(clientStrategy.passportName);
        expect(operatorStrategy.passportName).not.toBe(clientStrategy.passportName);
      } finally {
        authenticate.mockRestore();
        validate.mockRestore();
      }
    });

    it('accepts the scheme in any case (RFC 9110 §11.1)', async () => {
      const { guard } = setup();
      for (const scheme of ['bearer', 'BEARER', 'bEaReR']) {
        await expect(guard.canActivate(call({ method: 'client' }, `${scheme} ${good}`).context)).resolves.toBe(true);
      }
    });

    it.each([
      ['a malformed token', 'not-a-token'],
      ['a token of another shape', `eprx_${'a'.repeat(32)}_abcdef`],
      ['a token with a wrong checksum', `${good.slice(0, -1)}${good.endsWith('a') ? 'b' : 'a'}`],
      ['a truncated token', good.slice(0, -3)],
    ])('refuses %s with invalid_token before any database read', async (_label, token) => {
      const { guard, calls } = setup();
      const problem = await rejection(guard.canActivate(call({ method: 'client' }, `Bearer ${token}`).context));
      expect(problem.code).toBe('invalid_token');
      expect(problem.headers['WWW-Authenticate']).toMatch(
        /^Bearer realm="epr-declarations", error="invalid_token", error_description="[^"]+"$/,
      );
      expect(calls).toEqual([]);
    });

    it.each([
      ['unknown', unknown, /not recognised/],
      ['revoked', revoked, /revoked/],
      ['expired', expired, /expired/],
    ])('refuses an %s token with invalid_token after one lookup, without recording a use', async (_label, token, description) => {
      const { guard, calls } = setup();
      const problem = await rejection(guard.canActivate(call({ method: 'client' }, `Bearer ${token}`).context));
      expect(problem.code).toBe('invalid_token');
      expect(problem.detail).toMatch(description);
      expect(problem.headers['WWW-Authenticate']).toMatch(
        new RegExp(`^Bearer realm="epr-declarations", error="invalid_token", error_description="[^"]*${description.source}[^"]*"$`),
      );
      expect(calls).toEqual(['lookup']);
    });

    it('refuses a missing header with the bare challenge (no error code)', async () => {
      const { guard } = setup();
      for (const header of [undefined, '', '   ']) {
        const problem = await rejection(guard.canActivate(call({ method: 'client' }, header).context));
        expect(problem.code).toBe('missing_token');
        expect(problem.headers['WWW-Authenticate']).toBe(REALM);
      }
    });

    it('refuses other schemes with 401, naming the expected one', async () => {
      const { guard, calls } = setup();
      const problem = await rejection(guard.canActivate(call({ method: 'client' }, 'Basic dXNlcjpwYXNz').context));
      expect(problem.status).toBe(401);
      expect(problem.headers['WWW-Authenticate']).toBe(REALM);
      expect(problem.detail).toContain('Basic');
      expect(problem.detail).toContain('Bearer');
      expect(calls).toEqual([]);
    });

    it('never echoes a token sent without a scheme', async () => {
      const { guard } = setup();
      const problem = await rejection(guard.canActivate(call({ method: 'client' }, good).context));
      expect(problem.status).toBe(401);
      expect(JSON.stringify(problem)).not.toContain(good);
      expect(problem.detail).not.toContain(good);
    });

    it('refuses a token passport cannot read (a space in it) as malformed, without a database read', async () => {
      const { guard, calls } = setup();
      const problem = await rejection(guard.canActivate(call({ method: 'client' }, `Bearer ${good} x`).context));
      expect([problem.code, problem.detail]).toEqual(['invalid_token', REJECTION_DESCRIPTIONS.malformed]);
      expect(calls).toEqual([]);
    });

    it('refuses an empty bearer token with invalid_token', async () => {
      const { guard } = setup();
      const problem = await rejection(guard.canActivate(call({ method: 'client' }, 'Bearer ').context));
      expect(problem.code).toBe('invalid_token');
      expect(problem.headers['WWW-Authenticate']).toContain('error="invalid_token"');
    });

    it('refuses the admin token with invalid_token, without a database read', async () => {
      const { guard, calls } = setup();
      const problem = await rejection(guard.canActivate(call({ method: 'client' }, `Bearer ${ADMIN}`).context));
      expect(problem.code).toBe('invalid_token');
      expect(calls).toEqual([]);
    });
  });

  describe('admin routes', () => {
    it('accepts the admin token, marks the request with the operator identity and the response no-store', async () => {
      const { guard, calls } = setup();
      const { context, req, headers } = call({ method: 'admin' }, `Bearer ${ADMIN}`);
      await expect(guard.canActivate(context)).resolves.toBe(true);
      expect(req[AUTHENTICATED_OPERATOR]).toEqual({ kind: 'admin' });
      expect(headers['cache-control']).toBe('no-store');
      expect(calls).toEqual([]);
    });

    it('answers a valid client token with 403 insufficient_scope, without recording a use', async () => {
      jest.useFakeTimers();
      try {
        const { guard, calls } = setup();
        const problem = await rejection(guard.canActivate(call({ method: 'admin' }, `Bearer ${good}`).context));
        expect(problem.code).toBe('insufficient_scope');
        expect(problem.status).toBe(403);
        expect(problem.headers['WWW-Authenticate']).toMatch(/^Bearer realm="epr-declarations", error="insufficient_scope"/);
        // Uses are written 100 ms later: none was noted.
        await jest.advanceTimersByTimeAsync(200);
        expect(calls).toEqual(['lookup']);
      } finally {
        jest.useRealTimers();
      }
    });

    it('answers a wrong token with 401 invalid_token, and no token with the bare challenge', async () => {
      const { guard } = setup();
      const wrong = await rejection(guard.canActivate(call({ method: 'admin' }, `Bearer ${ADMIN}x`).context));
      expect(wrong.code).toBe('invalid_token');
      expect(wrong.headers['WWW-Authenticate']).toContain('error="invalid_token"');
      const revokedClient = await rejection(guard.canActivate(call({ method: 'admin' }, `Bearer ${revoked}`).context));
      expect(revokedClient.code).toBe('invalid_token');
      const none = await rejection(guard.canActivate(call({ method: 'admin' }).context));
      expect(none.code).toBe('missing_token');
      expect(none.headers['WWW-Authenticate']).toBe(REALM);
    });

    it('is disabled (403 admin_api_disabled, saying how to enable it) without ADMIN_TOKEN, whatever is sent', async () => {
      const { guard } = setup({ adminDisabled: true });
      for (const header of [undefined, `Bearer ${ADMIN}`, `Bearer ${good}`]) {
        const problem = await rejection(guard.canActivate(call({ method: 'admin' }, header).context));
        expect(problem.code).toBe('admin_api_disabled');
        expect(problem.status).toBe(403);
        expect(problem.detail).toMatch(/set ADMIN_TOKEN/i);
      }
    });
  });
});

describe('kept authentications (AuthenticationCache)', () => {
  const lookups = (calls: string[]) => calls.filter((c) => c === 'lookup').length;

  it('reads a token once while listening, and hands every request the same frozen client', async () => {
    const { guard, calls } = setup({ cacheListening: true });
    const first = call({ class: 'client' }, `Bearer ${good}`);
    const second = call({ class: 'client' }, `Bearer ${good}`);
    await guard.canActivate(first.context);
    await guard.canActivate(second.context);
    expect(lookups(calls)).toBe(1);
    const client = second.req[AUTHENTICATED_CLIENT] as { account: { profile: { streams: string[] } } };
    expect(client).toBe(first.req[AUTHENTICATED_CLIENT]);
    expect(client).toEqual(expect.objectContaining({ clientId: 'acme', tokenId: 't-good' }));
    expect(Object.isFrozen(client) && Object.isFrozen(client.account) && Object.isFrozen(client.account.profile.streams)).toBe(true);
    expect(() => client.account.profile.streams.push('X')).toThrow(TypeError);
  });

  it('reads every time while not listening (the embedded database, or the notifications connection down)', async () => {
    const { guard, calls } = setup();
    await guard.canActivate(call({ class: 'client' }, `Bearer ${good}`).context);
    await guard.canActivate(call({ class: 'client' }, `Bearer ${good}`).context);
    expect(lookups(calls)).toBe(2);
  });

  it('keeps no refusal: a revoked, expired or unknown token is read again on every request', async () => {
    const { guard, calls } = setup({ cacheListening: true });
    for (const token of [revoked, expired, generateToken()]) {
      for (let i = 0; i < 2; i++) await rejection(guard.canActivate(call({ class: 'client' }, `Bearer ${token}`).context));
    }
    expect(lookups(calls)).toBe(6);
  });

  it('reads the token again after its client changed: announced by PostgreSQL or by a confirmation on this replica', async () => {
    const { guard, calls, cache, accountListeners } = setup({ cacheListening: true });
    const use = () => guard.canActivate(call({ class: 'client' }, `Bearer ${good}`).context);
    await use();
    cache.changed('someone-else');
    await use();
    expect(lookups(calls)).toBe(1);
    cache.changed('acme');
    await use();
    expect(lookups(calls)).toBe(2);
    for (const listener of accountListeners) listener('acme');
    await use();
    expect(lookups(calls)).toBe(3);
  });
});

describe('bearerToken', () => {
  it('takes the token after the scheme, tolerating extra spaces', () => {
    expect(bearerToken(`Bearer ${good}`)).toBe(good);
    expect(bearerToken(`Bearer    ${good}  `)).toBe(good);
  });
});

describe('last_used_at', () => {
  it('is written for every token used meanwhile in one statement, 100 ms after the first use', async () => {
    jest.useFakeTimers();
    try {
      const { tokens, calls } = setup();
      await tokens.verify(good);
      await tokens.verify(other);
      expect(calls.filter((c) => c.startsWith('update'))).toEqual([]);
      await jest.advanceTimersByTimeAsync(100);
      expect(calls.filter((c) => c.startsWith('update'))).toEqual(['update t-good,t-other']);
    } finally {
      jest.useRealTimers();
    }
  });

  it('is written at most once a minute per token by this process', async () => {
    const { tokens, calls } = setup();
    const now = jest.spyOn(Date, 'now');
    try {
      const start = 1_900_000_000_000;
      now.mockReturnValue(start);
      await tokens.verify(good);
      await tokens.verify(good);
      now.mockReturnValue(start + 59_999);
      await tokens.verify(good);
      await tokens.beforeApplicationShutdown(); // writes the uses noted so far
      expect(calls.filter((c) => c.startsWith('update'))).toEqual(['update t-good']);
      now.mockReturnValue(start + 60_000);
      await tokens.verify(good);
      await tokens.beforeApplicationShutdown();
      expect(calls.filter((c) => c.startsWith('update'))).toEqual(['update t-good', 'update t-good']);
    } finally {
      now.mockRestore();
    }
  });

  describe('failed authentications', () => {
    it('refuses an address over its budget before reading any token, on client and admin routes alike', async () => {
      const { guard, calls, failures } = setup({ overFailureLimit: true });
      for (const [audience, token] of [
        ['client', good],
        ['admin', ADMIN],
      ] as const) {
        const problem = await rejection(guard.canActivate(call({ method: audience }, `Bearer ${token}`).context));
        expect(problem.code).toBe('rate_limited');
      }
      expect(calls).toEqual([]);
      expect(failures).toEqual([]);
      await expect(guard.canActivate(call({ method: 'public' }).context)).resolves.toBe(true);
    });

    it('counts every 401 of the address, and nothing else', async () => {
      const { guard, failures } = setup();
      await rejection(guard.canActivate(call({ method: 'client' }).context));
      await rejection(guard.canActivate(call({ method: 'client' }, `Bearer ${unknown}`).context));
      await rejection(guard.canActivate(call({ method: 'admin' }, `Bearer ${ADMIN}x`).context));
      expect(failures).toHaveLength(3);
      await guard.canActivate(call({ method: 'client' }, `Bearer ${good}`).context);
      await guard.canActivate(call({ method: 'admin' }, `Bearer ${ADMIN}`).context);
      await guard.canActivate(call({ method: 'public' }, 'Bearer nonsense').context);
      expect((await rejection(guard.canActivate(call({ method: 'admin' }, `Bearer ${good}`).context))).status).toBe(403);
      expect(failures).toHaveLength(3);
    });
  });
});

describe('AuthGuard, more decisions', () => {
  it.each(['client', 'admin'] as const)(
    'refuses a token in the query string with 400 before reading any, not as a failed authentication (%s route)',
    async (audience) => {
      const { guard, calls, failures, operatorCalls } = setup();
      const attempt = call({ method: audience }, `Bearer ${good}`);
      attempt.req.url = `/api/v1/somewhere?access_token=${good}`;
      expect((await rejection(guard.canActivate(attempt.context))).code).toBe('bad_request');
      expect([calls, failures, operatorCalls]).toEqual([[], [], []]);
    },
  );

  it('refuses several Authorization headers with 400 before reading any, not as a failed authentication', async () => {
    const { guard, calls, failures } = setup();
    const { context, headers } = call({ method: 'client' }, [`Bearer ${good}`, `Bearer ${good}`]);
    const problem = await rejection(guard.canActivate(context));
    expect([problem.status, problem.code]).toEqual([400, 'bad_request']);
    expect(problem.detail).toBe('Send one Authorization header, not several.');
    expect(headers['cache-control']).toBe('no-store');
    expect(calls).toEqual([]);
    expect(failures).toEqual([]);
    await expect(guard.canActivate(call({ method: 'client' }, [`Bearer ${good}`]).context)).resolves.toBe(true);
  });

  it('accepts an operator token on admin routes, leaving the operator on the request, without a client lookup', async () => {
    const { guard, calls, operatorCalls, failures } = setup();
    const { context, req } = call({ method: 'admin' }, `Bearer ${operatorGood}`);
    await expect(guard.canActivate(context)).resolves.toBe(true);
    expect(req[AUTHENTICATED_OPERATOR]).toEqual({ kind: 'operator', id: 'op-1', name: 'Alice' });
    expect(operatorCalls).toEqual([operatorGood]);
    expect(calls).toEqual([]);
    expect(failures).toEqual([]);
  });

  it.each([
    ['revoked', operatorRevoked, 'The operator token was revoked.'],
    ['unknown', operatorUnknown, 'The operator token is not recognised.'],
  ])('refuses a %s operator token with 401 invalid_token, counted as a failure', async (_label, token, description) => {
    const { guard, calls, failures } = setup();
    const problem = await rejection(guard.canActivate(call({ method: 'admin' }, `Bearer ${token}`).context));
    expect([problem.status, problem.code, problem.detail]).toEqual([401, 'invalid_token', description]);
    expect(problem.headers['WWW-Authenticate']).toBe(`${REALM}, error="invalid_token", error_description="${description}"`);
    expect(calls).toEqual([]);
    expect(failures).toEqual(['failure']);
  });

  it.each([
    ['a token passport can read', `${ADMIN}x`],
    ['a token passport cannot read (a space in it, as an admin token may have)', `${ADMIN} x`],
  ])('says what is wrong with a token that is not a client token at all on admin routes: %s', async (_label, token) => {
    const { guard, operatorCalls } = setup();
    const problem = await rejection(guard.canActivate(call({ method: 'admin' }, `Bearer ${token}`).context));
    expect(problem.detail).toBe('The token is not the admin token.');
    expect(problem.headers['WWW-Authenticate']).toBe(
      `${REALM}, error="invalid_token", error_description="The token is not the admin token."`,
    );
    expect(operatorCalls).toEqual([]);
  });

  it('answers a client token on admin routes with the insufficient_scope challenge (RFC 6750 §3.1)', async () => {
    const { guard } = setup();
    const problem = await rejection(guard.canActivate(call({ method: 'admin' }, `Bearer ${good}`).context));
    expect(problem.detail).toBe('Client tokens cannot call the admin API; it needs ADMIN_TOKEN or an operator token.');
    expect(problem.headers['WWW-Authenticate']).toBe(
      `${REALM}, error="insufficient_scope", error_description="The admin API needs the operator token.", scope="admin"`,
    );
  });

  it.each([
    ['the admin token', ADMIN],
    ['an operator token', operatorGood],
  ])('refuses %s on client routes, saying so, without any lookup', async (_label, token) => {
    const { guard, calls, operatorCalls } = setup();
    const problem = await rejection(guard.canActivate(call({ method: 'client' }, `Bearer ${token}`).context));
    const description = 'The admin token is not valid on the client API; use a client token issued by the operator.';
    expect([problem.status, problem.code, problem.detail]).toEqual([401, 'invalid_token', description]);
    expect(problem.headers['WWW-Authenticate']).toBe(`${REALM}, error="invalid_token", error_description="${description}"`);
    expect(calls).toEqual([]);
    expect(operatorCalls).toEqual([]);
  });

  it.each([
    ['a malformed token', 'not-a-token', REJECTION_DESCRIPTIONS.malformed],
    ['a wrong checksum', `${good.slice(0, -1)}${good.endsWith('a') ? 'b' : 'a'}`, REJECTION_DESCRIPTIONS.checksum],
    ['an unknown token', unknown, REJECTION_DESCRIPTIONS.unknown],
    ['an expired token', expired, REJECTION_DESCRIPTIONS.expired],
  ])('describes %s on client routes', async (_label, token, description) => {
    const { guard } = setup();
    const problem = await rejection(guard.canActivate(call({ method: 'client' }, `Bearer ${token}`).context));
    expect(problem.detail).toBe(description);
  });

  it('refuses an empty bearer token on admin routes too, as a failed authentication, recorded as a refused operator action', async () => {
    const { guard, failures, refused } = setup();
    const problem = await rejection(guard.canActivate(call({ method: 'admin' }, 'Bearer   ').context));
    expect([problem.status, problem.code, problem.detail]).toEqual([401, 'invalid_token', 'The bearer token is empty.']);
    expect(problem.headers['WWW-Authenticate']).toBe(`${REALM}, error="invalid_token", error_description="The bearer token is empty."`);
    expect(failures).toEqual(['failure']);
    expect(refused).toEqual([401]);
    // A client route's failed authentication is no operator action.
    await rejection(guard.canActivate(call({ method: 'client' }, 'Bearer   ').context));
    expect(refused).toEqual([401]);
  });
});

describe('bearerToken, more headers', () => {
  const refusal = (header: string | undefined): Problem => {
    try {
      bearerToken(header);
    } catch (error) {
      if (error instanceof Problem) return error;
      throw error;
    }
    throw new Error('expected a refusal');
  };

  it('tolerates spaces and tabs around the scheme, and keeps what follows it whole', () => {
    expect(bearerToken(`  Bearer ${good}`)).toBe(good);
    expect(bearerToken(`Bearer\t${good}`)).toBe(good);
    expect(bearerToken('Bearer a b')).toBe('a b');
  });

  it('asks for a token when the header is missing or blank', () => {
    for (const header of [undefined, '', ' \t ']) {
      const problem = refusal(header);
      expect([problem.code, problem.detail]).toEqual(['missing_token', 'This route needs a token: send "Authorization: Bearer <token>".']);
      expect(problem.headers).toEqual({ 'WWW-Authenticate': REALM });
    }
  });

  it('refuses a scheme without a token as an empty token', () => {
    for (const header of ['Bearer', 'bearer  ']) {
      expect([refusal(header).code, refusal(header).detail]).toEqual(['invalid_token', 'The bearer token is empty.']);
    }
  });

  it.each([
    ['Digest realm="x"', 'the Digest scheme'],
    ['Bearerx abc', 'the Bearerx scheme'],
    ['Twenty-letter-scheme abc', 'the Twenty-letter-scheme scheme'],
    ['Twenty-one-characters abc', 'this Authorization header'],
    ['Token1 abc', 'this Authorization header'],
    ['1Token abc', 'this Authorization header'],
    ['(x) abc', 'this Authorization header'],
    ['Bearer:abc', 'this Authorization header'],
    ['x abc', 'the x scheme'],
  ])('refuses the scheme of %j, naming it only when it looks like one', (header, named) => {
    const problem = refusal(header);
    expect([problem.code, problem.detail]).toEqual([
      'missing_token',
      `This API does not accept ${named}; send "Authorization: Bearer <token>".`,
    ]);
    expect(problem.headers).toEqual({ 'WWW-Authenticate': REALM });
  });
});
