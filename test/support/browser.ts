import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { REPO_ROOT } from '../../src/common/repo-root.js';

/** Where the browser tests leave screenshots and the files they download (gitignored). */
export const SCREENSHOTS = join(REPO_ROOT, 'test-results', 'screenshots');

/**
 * A full-page screenshot of the page as it is now, as `test-results/screenshots/<name>.png`, when
 * SCREENSHOTS=1 (to look at every page after a change: `SCREENSHOTS=1 npm run test:jest -- test/browser`).
 * Off by default: they took a third of the browser tests' time, and CI keeps no files.
 */
export async function screenshot(page: Page, name: string): Promise<void> {
  if (process.env.SCREENSHOTS !== '1') return;
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

/**
 * Debian's Chromium headless shell (the `chromium-headless-shell` package, installed by .ci/run when missing):
 * the same engine as Chromium without the browser's windows, as Playwright runs headless tests; the browser tests
 * took a third more CPU in the full browser. Playwright's own browser download cannot work here.
 */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium-headless-shell';

/** Headless Chromium with no traffic of its own (no updates, sync or background requests). */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`${CHROMIUM} is missing: apt-get install chromium-headless-shell (or set CHROMIUM_PATH); .ci/run installs it`);
  }
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/**
 * Records what goes wrong on a page from now on, a line each: console errors and warnings, page
 * errors, failed requests and requests to another origin than `origin`. The array fills as it happens.
 */
export function watch(page: Page, origin: string): string[] {
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') problems.push(`console ${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('requestfailed', (r) => {
    const error = r.failure()?.errorText ?? '';
    // A request the browser itself cancelled, not one that failed: going to the next page aborts the
    // last one's requests still in flight (its icon, fetched after `load`). A server that fails shows
    // as an HTTP status or as another network error (reset, refused, empty response).
    if (error === 'net::ERR_ABORTED') return;
    problems.push(`request failed: ${r.url()} ${error}`);
  });
  page.on('request', (r) => {
    if (new URL(r.url()).origin !== origin) problems.push(`request to another host: ${r.url()}`);
  });
  return problems;
}

/** axe-core's browser build, run in the page by `axeViolations`. */
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** The WCAG 2.1 A and AA rules of axe-core. */
const AXE_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];

interface AxeViolation {
  id: string;
  impact: string | null;
  nodes: { target: string[] }[];
}

/**
 * The WCAG 2.1 A and AA violations axe finds on the page as it is now, a line each. axe runs in the page
 * itself (evaluated there once per document: the page's content security policy does not apply to it) and
 * sends back its violations only: with every passing node as well, reading the answer cost the test's process
 * half a second a page.
 */
export async function axeViolations(page: Page): Promise<string[]> {
  if (!(await page.evaluate<boolean>('typeof window.axe === "object"'))) await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate<AxeViolation[]>(
    `axe.run(document, { runOnly: { type: 'tag', values: ${JSON.stringify(AXE_TAGS)} }, resultTypes: ['violations'] }).then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.map((n) => ({ target: n.target })) })))`,
  );
  return violations.map((v) => `axe ${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

/** How many pixels the page is wider than its viewport (a table or code block must scroll in its own box). */
export function overflow(page: Page): Promise<number> {
  return page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth');
}
