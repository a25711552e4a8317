import { Inject, Injectable } from '@nestjs/common';
import { Eta } from 'eta';
import type { Request, Response } from 'express';
import { REQUEST_ACCOUNT, type RequestWithAccount } from '../accounts/current-account.js';
import { CsrfProtection } from '../auth/sessions/csrf.js';
import type { Problem } from '../common/problem/problem.js';
import { APP_CONFIG } from '../config/config.module.js';
import type { AppConfig } from '../config/config.js';
import { DASHBOARD_SCRIPT_PATH, ICON_PATH, STYLESHEET_PATH } from '../site/site-pages.js';
import { VIEWS_DIR } from '../site/render-site.js';
import { messagesFor } from '../i18n/messages/index.js';
import { LANGUAGE_COOKIE, resolveLanguage } from '../i18n/resolve-language.js';

/**
 * The dashboard's pages load this origin's stylesheet, icon and one script (the copy button), post
 * their forms to this origin only, and cannot be framed.
 */
export const DASHBOARD_CONTENT_SECURITY_POLICY =
  "default-src 'none'; style-src 'self'; img-src 'self'; script-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";


const NAV = [
  { key: 'overview', path: '/dashboard', label: 'Overview' },
  { key: 'tokens', path: '/dashboard/tokens', label: 'API tokens' },
  { key: 'declarations', path: '/dashboard/declarations', label: 'Declarations' },
  { key: 'products', path: '/dashboard/products', label: 'Products' },
] as const;
export type NavKey = (typeof NAV)[number]['key'] | 'sign-in';

/** What every dashboard page gets besides its own data. */
export interface PageFrame {
  title: string;
  nav: NavKey;
}

/**
 * Renders the dashboard's pages with the site's template engine (Eta, escaping by default), views
 * and stylesheet: one look for the site and the dashboard. Server-rendered, readable without
 * JavaScript; every form gets the CSRF token of its page.
 */
@Injectable()
export class DashboardViews {
  private readonly eta = new Eta({ views: VIEWS_DIR, cache: true, autoEscape: true, autoTrim: [false, 'nl'] });
  private readonly baseUrl: string;

  constructor(
    private readonly csrf: CsrfProtection,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.baseUrl = config.publicBaseUrl;
  }

  render(req: Request, res: Response, template: string, frame: PageFrame, data: Record<string, unknown> = {}, status = 200): void {
    const account = (req as Request & RequestWithAccount)[REQUEST_ACCOUNT];
    const html = this.eta.render(`/dashboard/${template}`, {
      ...data,
      title: frame.title,
      documentTitle: `${frame.title} · Dashboard`,
      navKey: frame.nav,
      nav: account ? NAV : [],
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
      // Its people are told why, in their language, and what to do (issue 33): a page of its own.
      const { language } = resolveLanguage({ path: req.originalUrl, remembered: req.cookies?.[LANGUAGE_COOKIE], acceptLanguage: req.headers['accept-language'] });
      const words = messagesFor(language).problems.account_suspended;
      this.render(req, res, 'suspended', { title: words.title, nav: 'overview' }, { words, language, instance }, problem.status);
      return;
    }
    // The problem's headers (Retry-After, Allow…) and status were set by the ProblemFilter before it called here.
    this.render(req, res, 'error', { title: problem.title, nav: 'overview' }, { problem, instance, slug: problem.code.replace(/_/g, '-') }, problem.status);
  }
}
