import { cookieSettings, SESSION_IDLE_MS, SESSION_LIFETIME_MS } from './session-cookie.js';

describe('session rules', () => {
  it('30 minutes idle, 12 hours at most', () => {
    expect(SESSION_IDLE_MS).toBe(30 * 60 * 1000);
    expect(SESSION_LIFETIME_MS).toBe(12 * 60 * 60 * 1000);
  });

  it('cookies on https: __Host- names, Secure, HttpOnly, SameSite=Lax, path /', () => {
    expect(cookieSettings('https://epr.example.org')).toEqual({
      session: '__Host-epr_session',
      csrf: '__Host-epr_csrf',
      options: { httpOnly: true, sameSite: 'lax', secure: true, path: '/' },
    });
    expect(cookieSettings('https://epr.example.org:8443/base').session).toBe('__Host-epr_session');
  });

  it('on plain http (a local start): the same names without the prefix, not Secure', () => {
    expect(cookieSettings('http://localhost:3000')).toEqual({
      session: 'epr_session',
      csrf: 'epr_csrf',
      options: { httpOnly: true, sameSite: 'lax', secure: false, path: '/' },
    });
  });
});
