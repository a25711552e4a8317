import request from 'supertest';
import { ADMIN_TOKEN, type TestApp } from './test-app.js';

/** A response of the dashboard as a browser gets it (redirects not followed). */
export interface PageResponse {
  status: number;
  headers: Headers;
  html: string;
  location: string | null;
}

/**
 * A browser's part of the dashboard, without the browser: a cookie jar, forms posted with the
 * page's CSRF token, redirects left to the test. For the security tests (the flows in a real
 * browser are in test/browser/dashboard.e2e-spec.ts).
 */
export class DashboardClient {
  readonly cookies = new Map<string, string>();

  /** `language`: the browser's Accept-Language (English unless said; null sends none). */
  constructor(
    readonly origin: string,
    readonly language: string | null = 'en',
  ) {}

  async get(path: string): Promise<PageResponse> {
    return this.send(path, { method: 'GET' });
  }

  /** Posts a form (fields repeated when given an array). `csrf: false` leaves the token out. */
  async post(path: string, form: Record<string, string | string[]>, options: { csrf?: string | false } = {}): Promise<PageResponse> {
    const body = new URLSearchParams();
    for (const [name, value] of Object.entries(form)) for (const v of Array.isArray(value) ? value : [value]) body.append(name, v);
    if (options.csrf !== false) body.append('_csrf', options.csrf ?? (await this.csrfFor(path)));
    return this.send(path, { method: 'POST', body, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  }

  async upload(path: string, fields: Record<string, string>, file: { name: string; content: Buffer | string }): Promise<PageResponse> {
    const form = new FormData();
    form.append('_csrf', await this.csrfFor(path));
    for (const [name, value] of Object.entries(fields)) form.append(name, value);
    form.append('file', new Blob([file.content], { type: 'text/csv' }), file.name);
    return this.send(path, { method: 'POST', body: form });
  }

  /**
   * The check page's "Declare and file" (or `action: 'edit'`, "Change"): posts its sealed pending
   * declaration back with the typed name. Throws when `check` is not a check page.
   */
  async declare(check: PageResponse, name: string, action: 'file' | 'edit' = 'file'): Promise<PageResponse> {
    const pending = /name="pending" value="([^"]*)"/.exec(check.html)?.[1];
    const seal = /name="seal" value="([^"]*)"/.exec(check.html)?.[1];
    if (pending === undefined || seal === undefined)
      throw new Error(
        `not a check page (${check.status}): ${check.html.slice(check.html.indexOf('<main'), check.html.indexOf('<main') + 800)}`,
      );
    return this.post('/dashboard/declarations/file', { pending, seal, name, action });
  }

  /** The CSRF token of a page that holds a form (the token is per session, so any page of it does). */
  async csrfFor(path: string): Promise<string> {
    if (path.startsWith('/operator')) {
      // The operator's console has tokens of its own.
      return csrfOf((await this.get(path.startsWith('/operator/sign-in') ? '/operator/sign-in/link' : '/operator/clients/import')).html);
    }
    const page = await this.get(path.startsWith('/dashboard/sign-in') ? '/dashboard/sign-in/link' : '/dashboard/tokens');
    return csrfOf(page.html);
  }

  /** Signs in with a sign-in link URL: opens it, then continues. */
  async signIn(url: string): Promise<PageResponse> {
    const link = new URL(url);
    const page = await this.get(`${link.pathname}${link.search}`);
    return this.post('/dashboard/sign-in/link', { token: tokenOf(page.html) }, { csrf: csrfOf(page.html) });
  }

  private async send(path: string, init: RequestInit): Promise<PageResponse> {
    const cookie = [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    const res = await fetch(`${this.origin}${path}`, {
      ...init,
      redirect: 'manual',
      headers: {
        ...(init.headers as Record<string, string>),
        ...(cookie ? { cookie } : {}),
        ...(this.language ? { 'accept-language': this.language } : {}),
      },
    });
    for (const set of res.headers.getSetCookie()) {
      const [pair] = set.split(';');
      const at = pair!.indexOf('=');
      const name = pair!.slice(0, at);
      const value = pair!.slice(at + 1);
      if (value === '' || /expires=Thu, 01 Jan 1970/i.test(set)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    // As bytes decoded: a byte order mark stays (fetch's text() would drop it).
    return {
      status: res.status,
      headers: res.headers,
      html: Buffer.from(await res.arrayBuffer()).toString('utf8'),
      location: res.headers.get('location'),
    };
  }
}

export function csrfOf(html: string): string {
  const match = /name="_csrf" value="([^"]+)"/.exec(html);
  if (!match) throw new Error('no CSRF token on the page');
  return match[1]!;
}

function tokenOf(html: string): string {
  return /name="token" value="([^"]*)"/.exec(html)?.[1] ?? '';
}

/** A sign-in link made by the operator through the admin API. */
export async function signInLink(
  t: TestApp,
  clientId: string,
): Promise<{ url: string; id: string; status: number; body: Record<string, unknown>; headers: Record<string, string> }> {
  const res = await request(t.url)
    .post(`/api/v1/admin/clients/${encodeURIComponent(clientId)}/sign-in-links`)
    .set('authorization', `Bearer ${ADMIN_TOKEN}`);
  return {
    url: res.body.url as string,
    id: res.body.id as string,
    status: res.status,
    body: res.body as Record<string, unknown>,
    headers: res.headers as Record<string, string>,
  };
}

/**
 * A client's browser signed in to its dashboard, its person having chosen the browser's language
 * (`?lang=` on the link, remembered): the pages are in that language whatever the account's.
 * To see the account's language decide, sign in with `DashboardClient.signIn` instead.
 */
export async function signedIn(t: TestApp, clientId: string, language: string | null = 'en'): Promise<DashboardClient> {
  const browser = new DashboardClient(t.url, language);
  const url = new URL((await signInLink(t, clientId)).url);
  const chosen = language?.slice(0, 2).toLowerCase();
  if (chosen === 'fr' || chosen === 'en') url.searchParams.set('lang', chosen);
  const res = await browser.signIn(url.toString());
  if (res.status !== 303) throw new Error(`sign-in failed: ${res.status} ${res.html.slice(0, 300)}`);
  return browser;
}

/**
 * The « Nouvelle déclaration » form's fields for declaration lines `[stream, material, unit, quantity]`:
 * one row per material of a stream, each quantity in its unit's column (`quantity_kg`, `quantity_uvc`);
 * a blank line stays a blank row. `units` are the form's columns (the account's streams' units).
 */
export function formRows(
  lines: ReadonlyArray<readonly [string, string, string, string]>,
  units: readonly string[] = ['kg', 'uvc'],
): Record<string, string[]> {
  const rows: { stream: string; material: string; quantities: Record<string, string> }[] = [];
  for (const [stream, material, unit, quantity] of lines) {
    const same =
      material === '' || unit === ''
        ? undefined
        : rows.find((r) => r.stream === stream && r.material === material && !(unit in r.quantities));
    if (same) same.quantities[unit] = quantity;
    else rows.push({ stream, material, quantities: unit === '' ? {} : { [unit]: quantity } });
  }
  return {
    stream: rows.map((r) => r.stream),
    material: rows.map((r) => r.material),
    ...Object.fromEntries(units.map((unit) => [`quantity_${unit}`, rows.map((r) => r.quantities[unit] ?? '')])),
  };
}
