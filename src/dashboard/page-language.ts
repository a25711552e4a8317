import type { Request, Response } from 'express';
import { REQUEST_ACCOUNT, type RequestWithAccount } from '../accounts/current-account.js';
import { isLanguage, type Language } from '../i18n/language.js';
import { LANGUAGE_COOKIE, resolveLanguage } from '../i18n/resolve-language.js';

/** The remembered choice lives a year (a person who chose a language keeps it on this browser). */
const REMEMBER_MS = 365 * 86_400_000;
const CHOSEN = Symbol('dashboard language');

type WithLanguage = Request & RequestWithAccount & { [CHOSEN]?: Language; cookies?: Record<string, unknown> };

/**
 * The language of a dashboard page, in this order: `?lang=fr|en` on any dashboard address (the
 * language switch, the public site's link, an e-mail's link; remembered in a cookie), the
 * remembered choice, once signed in the account's language, the browser's `Accept-Language`
 * (English for a browser that reads none of the service's languages), French. Decided once per request.
 */
export function pageLanguage(req: Request, res: Response, secure = false): Language {
  const r = req as WithLanguage;
  if (r[CHOSEN]) return r[CHOSEN];
  const asked = typeof req.query?.lang === 'string' ? req.query.lang.trim().toLowerCase() : undefined;
  let language: Language;
  if (isLanguage(asked)) {
    language = asked;
    if (r.cookies?.[LANGUAGE_COOKIE] !== asked && !res.headersSent) {
      res.cookie(LANGUAGE_COOKIE, asked, { path: '/', httpOnly: true, sameSite: 'lax', maxAge: REMEMBER_MS, secure });
    }
  } else {
    const remembered = r.cookies?.[LANGUAGE_COOKIE];
    const accept = req.headers['accept-language'];
    language = resolveLanguage({
      remembered: typeof remembered === 'string' ? remembered : undefined,
      account: r[REQUEST_ACCOUNT]?.language,
      acceptLanguage: typeof accept === 'string' ? accept : undefined,
    }).language;
  }
  r[CHOSEN] = language;
  return language;
}

/** The address of this page in the other language: the same path and query, `lang` set. */
export function switchHref(req: Request, language: Language): string {
  const url = new URL(req.originalUrl, 'http://dashboard.invalid');
  url.searchParams.set('lang', language);
  return `${url.pathname}${url.search}`;
}
