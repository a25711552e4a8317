import { Inject, Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import { REQUEST_ACCOUNT, type RequestWithAccount } from '../accounts/current-account.js';
import { CsrfProtection } from '../auth/sessions/csrf.js';
import type { FieldError, Problem } from '../common/problem/problem.js';
import { APP_CONFIG } from '../config/config.module.js';
import type { AppConfig } from '../config/config.js';
import { DASHBOARD_SCRIPT_PATH, ICON_PATH, STYLESHEET_PATH } from '../site/site-pages.js';
import { views } from '../common/views.js';
import { fieldMessage, fieldPosition } from '../i18n/field-messages.js';
import { formatDate, formatDateTime, formatList, formatNumber, formatQuantity, unitSymbol } from '../i18n/format.js';
import { LANGUAGES, type Language } from '../i18n/language.js';
import { languageDefinition } from '../i18n/languages.js';
import { MESSAGES, type Messages } from '../i18n/messages/index.js';
import { pageLanguage, switchHref } from './page-language.js';
import { ReferenceCatalogue } from '../reference/reference-catalogue.js';

/**
 * The dashboard's pages load this origin's stylesheet, icon and one script (the copy button), post
 * their forms to this origin only, and cannot be framed.
 */
export const DASHBOARD_CONTENT_SECURITY_POLICY =
  "default-src 'none'; style-src 'self'; img-src 'self'; script-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

const NAV = [
  { key: 'overview', path: '/dashboard' },
  { key: 'declarations', path: '/dashboard/declarations' },
  { key: 'products', path: '/dashboard/products' },
] as const;
/** `tokens` is reached from the header's « Pour votre logiciel » corner, not the main menu. */
export type NavKey = (typeof NAV)[number]['key'] | 'tokens' | 'sign-in';

/** What every dashboard page gets besides its own data. */
export interface PageFrame {
  title: string;
  nav: NavKey;
  /**
   * The page shows the client's data (declarations, products): it says they are the live ones, as
   * a dashboard session always reaches (test data are reached only with a test token).
   */
  liveData?: boolean;
}

/**
 * Renders the dashboard's pages with the site's template engine (Eta, escaping by default), views
 * and stylesheet: one look for the site and the dashboard. Server-rendered, readable without
 * JavaScript; every form gets the CSRF token of its page.
 */
@Injectable()
export class DashboardViews {
  private readonly baseUrl: string;
  private readonly secureCookies: boolean;

  constructor(
    private readonly csrf: CsrfProtection,
    private readonly catalogue: ReferenceCatalogue,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.baseUrl = config.publicBaseUrl;
    this.secureCookies = new URL(config.publicBaseUrl).protocol === 'https:';
  }

  /** The language of this request's page (see page-language.ts). */
  language(req: Request, res: Response): Language {
    return pageLanguage(req, res, this.secureCookies);
  }

  /** The catalogue of this request's page. */
  messages(req: Request, res: Response): Messages {
    return MESSAGES[this.language(req, res)];
  }

  render(req: Request, res: Response, template: string, frame: PageFrame, data: Record<string, unknown> = {}, status = 200): void {
    const account = (req as Request & RequestWithAccount)[REQUEST_ACCOUNT];
    const lang = this.language(req, res);
    const m = MESSAGES[lang];
    const html = views.render(`/dashboard/${template}`, {
      ...data,
      lang,
      m,
      d: m.dashboard,
      p: m.dashboardPages,
      f: { ...formatters(lang), stream: this.streamName(lang) },
      colon: languageDefinition(lang).typography === 'french' ? '\u00a0:' : ':',
      /** The site's prefix of the page's language (`/fr`, `''`): the links to the site. */
      sitePrefix: languageDefinition(lang).sitePrefix,
      /** The same page in each other language, named in itself. */
      switches: LANGUAGES.filter((other) => other !== lang).map((other) => ({
        lang: other,
        name: languageDefinition(other).ownName,
        href: switchHref(req, other),
      })),
      title: frame.title,
      documentTitle: m.dashboard.documentTitle(frame.title, status >= 400),
      navKey: frame.nav,
      liveData: frame.liveData === true && account !== undefined,
      nav: account ? NAV.map((item) => ({ ...item, label: m.dashboard.nav[item.key] })) : [],
      client: account ? { id: account.clientId, company: account.profile.company } : null,
      csrf: this.csrf.token(req, res),
      stylesheet: STYLESHEET_PATH,
      icon: ICON_PATH,
      script: DASHBOARD_SCRIPT_PATH,
      baseUrl: this.baseUrl,
    });
    res.status(status);
    res.setHeader('Content-Type', 'text/html; charset=utf-8');
    res.setHeader('Content-Security-Policy', DASHBOARD_CONTENT_SECURITY_POLICY);
    res.setHeader('Cache-Control', 'no-store');
    res.send(req.method === 'HEAD' ? undefined : html);
  }

  /** A stream code as a person reads it: its name, the code in brackets ("Household packaging (EMB)"). */
  private streamName(language: Language) {
    return (code: string) => {
      const name = this.catalogue.stream(code)?.name[language];
      return name ? `${name} (${code})` : code;
    };
  }

  /**
   * An error on a dashboard address, as a page: a request without a live session is sent to sign
   * in (303), anything else gets a page with the problem's status, title and detail.
   */
  renderProblem(req: Request, res: Response, problem: Problem, instance: string): void {
    if (problem.code === 'session_required') {
      res.setHeader('Cache-Control', 'no-store');
      res.redirect(303, '/dashboard/sign-in?session=ended');
      return;
    }
    if (problem.code === 'account_suspended') {
      // Its people are told why, in their language, and what to do: a page of its own.
      const language = pageLanguage(req, res);
      const words = MESSAGES[language].problems.account_suspended;
      this.render(req, res, 'suspended', { title: words.title, nav: 'overview' }, { words, language, instance }, problem.status);
      return;
    }
    // The problem's headers (Retry-After, Allow…) and status were set by the ProblemFilter before it called here.
    const page = problemPage(this.language(req, res), problem, instance);
    this.render(
      req,
      res,
      'error',
      { title: page.title, nav: 'overview' },
      { ...page.data, slug: problem.code.replace(/_/g, '-') },
      problem.status,
    );
  }
}

/** A problem as a page in `language` (the dashboard's and the console's): its title, what it means, the fields in words. */
export function problemPage(language: Language, problem: Problem, instance: string) {
  const m = MESSAGES[language];
  const known = Object.hasOwn(m.problems, problem.code) ? m.problems[problem.code as keyof Messages['problems']] : undefined;
  const errors = Array.isArray(problem.extensions.errors) ? (problem.extensions.errors as FieldError[]) : [];
  return {
    title: known?.title ?? m.dashboardPages.error.heading(problem.status),
    data: { problem, explanation: known?.explanation ?? m.common.unknownProblem, errors: localizeErrors(language, errors), instance },
  };
}

/** A problem of a form or a file as a person reads it: where (in words) and what to do; never the API's detail or pointer. */
export interface PersonError {
  where: string | undefined;
  message: string;
}

export function localizeErrors(language: Language, errors: readonly FieldError[]): PersonError[] {
  return errors.map((error) => ({ where: fieldPosition(language, error), message: fieldMessage(language, error) }));
}

/** The formats a page writes numbers, quantities and times with, in its language (Intl, Europe/Paris). */
function formatters(language: Language) {
  return {
    number: (value: number | string) => formatNumber(language, value),
    quantity: (value: number | string, unit: string) => formatQuantity(language, value, unit),
    unit: (unit: string) => unitSymbol(language, unit),
    date: (value: string | Date) => formatDate(language, value),
    dateTime: (value: string | Date) => formatDateTime(language, value),
    name: (names: Record<string, string> | null | undefined, fallback = '') => names?.[language] ?? fallback,
    /** `a, b or c`, in the page's language. */
    list: (items: readonly string[]) => formatList(language, items, 'or'),
  };
}
