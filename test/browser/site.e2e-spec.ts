/**
 * The public site in a real browser: Debian's Chromium headless shell (installed by .ci/run when missing)
 * driven by playwright-core, with axe-core for accessibility.
 *
 * Every page, in both languages, at 375 px and 1280 px (and the page for a mistyped address, in
 * each language): no console error, no failed request, no
 * request to another host, no WCAG 2.1 AA violation; with SCREENSHOTS=1, a full-page screenshot of
 * each distinct page in test-results/screenshots/ (gitignored); every internal link and anchor on
 * the pages resolves.
 */
import { mkdir } from 'node:fs/promises';
import type { Browser } from 'playwright-core';
import { SITE_PAGES } from '../../src/site/site-pages.js';
import { axeViolations, launchChromium, overflow, screenshot, SCREENSHOTS, watch } from '../support/browser.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const WIDTHS = [375, 1280] as const;
/**
 * axe (about half a second of CPU a page on this machine) and the screenshot (with SCREENSHOTS=1) are taken of
 * every page but the problem types, of which only the first in each language: the 44 share
 * one template and differ only in their words, which html-validate and the other checks still read on
 * every page.
 */
const AXE_PAGES = SITE_PAGES.filter(
  (page, i) => page.kind !== 'problem' || SITE_PAGES.findIndex((p) => p.kind === 'problem' && p.lang === page.lang) === i,
);
/**
 * The pages visited at each width: at 375 px every page, where a long word overflows first; at 1280 px the
 * problem types as one template too. What else is checked of a page (its links, requests, console) does
 * not depend on the width, and the 1280 px layout gives every column more room than the 375 px one.
 */
const PAGES_AT: Record<(typeof WIDTHS)[number], typeof SITE_PAGES> = { 375: SITE_PAGES, 1280: AXE_PAGES };

let t: TestApp;
let browser: Browser;
let origin: string;

beforeAll(async () => {
  t = await startTestApp();
  origin = t.config.publicBaseUrl;
  browser = await launchChromium();
  await mkdir(SCREENSHOTS, { recursive: true });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
});

describe('the accessibility audit', () => {
  it('finds what a page without a language, a label or a text alternative lacks', async () => {
    const page = await browser.newPage();
    try {
      await page.setContent('<!doctype html><title>t</title><main><img src="data:,"><input type="text"></main>');
      const found = (await axeViolations(page)).map((line) => line.split(' ')[1]);
      expect(found).toEqual(expect.arrayContaining(['html-has-lang', 'image-alt', 'label']));
    } finally {
      await page.close();
    }
  });
});

describe('the public site in Chromium', () => {
  const internalLinks = new Set<string>();

  for (const width of WIDTHS) {
    it(`renders every page at ${width} px with no error, no failed or foreign request and no WCAG 2.1 AA violation`, async () => {
      const context = await browser.newContext({ viewport: { width, height: 900 }, javaScriptEnabled: true });
      const failures: Record<string, string[]> = {};
      try {
        // One tab visits every page in turn (opening a tab costs more than loading a page here).
        const page = await context.newPage();
        const problems = watch(page, origin);
        page.on('response', (res) => {
          if (res.status() >= 400) problems.push(`HTTP ${res.status()}: ${res.url()}`);
        });
        for (const sitePage of PAGES_AT[width]) {
          problems.length = 0;
          const response = await page.goto(`${origin}${sitePage.path}`, { waitUntil: 'load' });
          if (response?.status() !== 200) problems.push(`HTTP ${response?.status()} for the page itself`);
          const links = await page.$$eval(
            'a[href], link[rel="alternate"], link[rel="stylesheet"], link[rel="icon"], link[rel="canonical"]',
            (elements) =>
              // Runs in the page: the resolved address of each link (the DOM types are not in this project's lib).
              elements.map((e) => (e as unknown as { href: string }).href),
          );
          for (const link of links) if (new URL(link).origin === origin) internalLinks.add(link);
          const wider = await overflow(page);
          if (wider > 0) problems.push(`the page is ${wider} px wider than the viewport`);
          if (AXE_PAGES.includes(sitePage)) {
            problems.push(...(await axeViolations(page)));
            await screenshot(page, `${sitePage.file.replace(/\//g, '_').replace(/\.html$/, '')}-${width}`);
          }
          if (problems.length > 0) failures[sitePage.path] = [...problems];
        }
        // A mistyped address: the page for it in each language, status 404, as clean as the others.
        for (const [path, lang] of [
          ['/nimportequoi', 'en'],
          ['/fr/nimportequoi', 'fr'],
        ] as const) {
          problems.length = 0;
          const response = await page.goto(`${origin}${path}`, { waitUntil: 'load' });
          // The page's own 404 is what is asked for, not a problem (Chromium logs it as a console error).
          const own = problems.filter((p) => !p.includes(path) && !/status of 404/.test(p));
          if (response?.status() !== 404) own.push(`HTTP ${response?.status()} instead of 404`);
          if ((await page.getAttribute('html', 'lang')) !== lang) own.push('not in the language of the path');
          const wider = await overflow(page);
          if (wider > 0) own.push(`the page is ${wider} px wider than the viewport`);
          own.push(...(await axeViolations(page)));
          await screenshot(page, `${lang}-404-${width}`);
          if (own.length > 0) failures[path] = own;
        }
      } finally {
        await context.close();
      }
      expect(failures).toEqual({});
    }, 600_000);
  }

  it('reads every page without JavaScript', async () => {
    const context = await browser.newContext({ javaScriptEnabled: false });
    try {
      const page = await context.newPage();
      for (const sitePage of SITE_PAGES.filter((p) => p.kind !== 'problem')) {
        await page.goto(`${origin}${sitePage.path}`);
        expect(await page.locator('main h1').count()).toBe(1);
        expect((await page.locator('main').innerText()).length).toBeGreaterThan(100);
      }
    } finally {
      await context.close();
    }
  }, 300_000);

  it('has no broken internal link or anchor', async () => {
    expect(internalLinks.size).toBeGreaterThan(SITE_PAGES.length);
    const context = await browser.newContext();
    const broken: string[] = [];
    try {
      const page = await context.newPage();
      const targets = new Map<string, Set<string>>();
      for (const link of internalLinks) {
        const url = new URL(link);
        const fragment = url.hash.slice(1);
        url.hash = '';
        const fragments = targets.get(url.href) ?? new Set<string>();
        if (fragment) fragments.add(decodeURIComponent(fragment));
        targets.set(url.href, fragments);
      }
      for (const [url, fragments] of targets) {
        const res = await page.request.get(url);
        if (res.status() !== 200) {
          broken.push(`${url}: HTTP ${res.status()}`);
          continue;
        }
        if (fragments.size === 0) continue;
        await page.goto(url);
        for (const id of fragments) {
          if ((await page.locator(`[id="${id}"]`).count()) !== 1) broken.push(`${url}#${id}: no such anchor`);
        }
      }
    } finally {
      await context.close();
    }
    expect(broken).toEqual([]);
  }, 300_000);
});
