import { Inject, Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import { CsrfProtection } from '../auth/sessions/csrf.js';
import { AUTHENTICATED_OPERATOR, type RequestWithOperator } from '../caller/actor.js';
import type { Problem } from '../common/problem/problem.js';
import { views } from '../common/views.js';
import { APP_CONFIG } from '../config/config.module.js';
import type { AppConfig } from '../config/config.js';
import { DASHBOARD_CONTENT_SECURITY_POLICY, problemPage } from '../dashboard/dashboard-views.js';
import { pageLanguage, switchHref } from '../dashboard/page-language.js';
import { formatDate, formatDateTime, formatNumber } from '../i18n/format.js';
import { LANGUAGES, type Language } from '../i18n/language.js';
import { languageDefinition } from '../i18n/languages.js';
import { MESSAGES, type Messages } from '../i18n/messages/index.js';
import { ReferenceCatalogue } from '../reference/reference-catalogue.js';
import { ICON_PATH, STYLESHEET_PATH } from '../site/site-pages.js';

const NAV = [
  { key: 'overview', path: '/operator' },
  { key: 'clients', path: '/operator/clients' },
  { key: 'tools', path: '/operator/tools' },
] as const;
export type ConsoleNav = (typeof NAV)[number]['key'] | 'sign-in';

/**
 * Renders the operator's console (views/operator/, layout views/layouts/operator.eta) with the
 * dashboard's engine, stylesheet, security policy and rules for the page's language; every form
 * gets the console's own CSRF token. Server-rendered, no script.
 */
@Injectable()
export class OperatorViews {
  private readonly secureCookies: boolean;

  constructor(
    private readonly csrf: CsrfProtection,
    private readonly catalogue: ReferenceCatalogue,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.secureCookies = new URL(config.publicBaseUrl).protocol === 'https:';
  }

  language(req: Request, res: Response): Language {
    return pageLanguage(req, res, this.secureCookies);
  }

  messages(req: Request, res: Response): Messages {
    return MESSAGES[this.language(req, res)];
  }

  render(
    req: Request,
    res: Response,
    template: string,
    frame: { title: string; nav: ConsoleNav },
    data: Record<string, unknown> = {},
    status = 200,
  ): void {
    const operator = (req as Request & RequestWithOperator)[AUTHENTICATED_OPERATOR];
    const lang = this.language(req, res);
    const m = MESSAGES[lang];
    const html = views.render(`/operator/${template}`, {
      ...data,
      lang,
      m,
      o: m.operatorPages,
      f: formatters(lang, this.catalogue),
      colon: languageDefinition(lang).typography === 'french' ? '\u00a0:' : ':',
      /** The same page in each other language, named in itself. */
      switches: LANGUAGES.filter((other) => other !== lang).map((other) => ({
        lang: other,
        name: languageDefinition(other).ownName,
        href: switchHref(req, other),
      })),
      title: frame.title,
      documentTitle: m.operatorPages.documentTitle(frame.title, status >= 400),
      navKey: frame.nav,
      nav: operator ? NAV.map((item) => ({ ...item, label: m.operatorPages.nav[item.key] })) : [],
      operatorName: operator?.kind === 'operator' ? operator.name : null,
      csrf: this.csrf.token(req, res),
      stylesheet: STYLESHEET_PATH,
      icon: ICON_PATH,
    });
    res.status(status);
    res.setHeader('Content-Type', 'text/html; charset=utf-8');
    res.setHeader('Content-Security-Policy', DASHBOARD_CONTENT_SECURITY_POLICY);
    res.setHeader('Cache-Control', 'no-store');
    res.send(req.method === 'HEAD' ? undefined : html);
  }

  /** A problem on a console address, as a page: without a console session, to sign in (303); else the problem in words. */
  renderProblem(req: Request, res: Response, problem: Problem, instance: string): void {
    if (problem.code === 'session_required') {
      res.setHeader('Cache-Control', 'no-store');
      res.redirect(303, '/operator/sign-in');
      return;
    }
    const page = problemPage(this.language(req, res), problem, instance);
    this.render(req, res, 'error', { title: page.title, nav: 'overview' }, page.data, problem.status);
  }
}

/** The formats of the console's pages, in their language (Intl, Europe/Paris). */
function formatters(language: Language, catalogue: ReferenceCatalogue) {
  return {
    number: (value: number | string) => formatNumber(language, value),
    date: (value: string | Date) => formatDate(language, value),
    dateTime: (value: string | Date) => formatDateTime(language, value),
    stream: (code: string) => {
      const name = catalogue.stream(code)?.name[language];
      return name ? `${name} (${code})` : code;
    },
  };
}
