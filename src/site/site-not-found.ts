import type { Request, Response } from 'express';
import type { PageProblems } from '../common/problem/page-problems.js';
import { HTML_CONTENT_TYPE } from './render-site.js';
import { SITE_CONTENT_SECURITY_POLICY, type SiteFiles } from './site-files.js';
import { languageOfPath } from './site-pages.js';

/** Paths that belong to programs (the API, its documentation, health checks): they keep problem+json. */
const API_PATHS = /^\/(api|docs|health)(\/|$)/;

/** Where a French reader guesses the dashboard is: sent to its sign-in, in French. */
const FRENCH_DASHBOARD = /^\/fr\/dashboard(\/.*)?$/;

/** Whether the request asks for HTML: a browser (`Accept: text/html`), not an API client. */
function wantsHtml(req: Request): boolean {
  return (req.headers.accept ?? '').split(',').some((item) => {
    const [type = '', ...params] = item.split(';').map((part) => part.trim().toLowerCase());
    const q = params.find((param) => param.startsWith('q='));
    return type === 'text/html' && (q === undefined || Number(q.slice(2)) > 0);
  });
}

/**
 * The site's answer to an address that does not exist: for a browser, a page in the language of
 * the path with links back (status 404); `/fr/dashboard…` goes to the dashboard's sign-in in
 * French. API clients, and every path of the API, keep their problem+json.
 */
export function siteNotFound(files: SiteFiles): PageProblems {
  return {
    handles: (req) =>
      (req.method === 'GET' || req.method === 'HEAD') && (FRENCH_DASHBOARD.test(req.path) || (!API_PATHS.test(req.path) && wantsHtml(req))),
    render: (req: Request, res: Response) => {
      res.setHeader('Cache-Control', 'no-store');
      if (FRENCH_DASHBOARD.test(req.path)) {
        res.redirect(303, '/dashboard/sign-in?lang=fr');
        return;
      }
      const body = files.notFound[languageOfPath(req.path)];
      res.status(404);
      res.setHeader('Content-Type', HTML_CONTENT_TYPE);
      res.setHeader('Content-Security-Policy', SITE_CONTENT_SECURITY_POLICY);
      res.setHeader('Content-Length', body.length);
      res.end(req.method === 'HEAD' ? undefined : body);
    },
  };
}
