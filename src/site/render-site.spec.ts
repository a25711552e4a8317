import { HtmlValidate } from 'html-validate';
import { PROBLEM_TYPES } from '../common/problem/problem.js';
import { PUBLISHED_FILES, type ReferenceUrls, type RenderedFile } from '../reference/reference-documents.js';
import { renderReference } from '../reference/render-reference.js';
import { realSources } from '../reference/test-support.js';
import { HTML_CONTENT_TYPE, renderSite, type SiteFile } from './render-site.js';
import { LANGUAGES, SITE_PAGES, problemSlug } from './site-pages.js';

const urls: ReferenceUrls = {
  referenceBaseUrl: 'https://www.example.org/api/v1',
  clientBaseUrl: 'https://www.example.org/api/v1',
  siteUrl: 'https://www.example.org',
};

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** A fact as marked on a page: `data-fact="<file>#<pointer>"`, optional `data-value`, its text. */
interface Mark {
  file: string;
  pointer: string;
  value?: Json;
  text: string;
}

const ENTITIES: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'" };
const decode = (html: string) => html.replace(/&(amp|lt|gt|quot|#39);/g, (e) => ENTITIES[e]!);
const squash = (text: string) => text.replace(/\s+/g, ' ').trim();

/**
 * The marks of a page. The helpers of render-site.ts write each mark as one element holding only
 * text, so a regular expression reads them exactly.
 */
const MARK = /<(\w+)\b([^>]*?)\sdata-fact="([^"]*)"([^>]*)>([^<]*)<\/\1>/g;
function marksOf(html: string): Mark[] {
  return [...html.matchAll(MARK)].map((m) => {
    const [file, pointer] = decode(m[3]!).split('#') as [string, string];
    const value = /\sdata-value="([^"]*)"/.exec(m[2]! + m[4]!)?.[1];
    return { file, pointer, text: squash(decode(m[5]!)), ...(value === undefined ? {} : { value: JSON.parse(decode(value)) as Json }) };
  });
}

/** Every leaf of a JSON value (empty arrays and objects count as leaves), by JSON pointer. */
function leaves(value: Json, pointer = ''): Map<string, Json> {
  const out = new Map<string, Json>();
  const entries = Array.isArray(value)
    ? value.map((v, i) => [String(i), v] as const)
    : value && typeof value === 'object'
      ? Object.entries(value)
      : [];
  if (entries.length === 0) out.set(pointer, value);
  for (const [key, child] of entries) {
    for (const [p, v] of leaves(child, `${pointer}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`)) out.set(p, v);
  }
  return out;
}

/** A text for people: exactly `{fr, en}`. */
function isLocalized(value: Json | undefined): value is { fr: string; en: string } {
  return (
    value !== null &&
    typeof value === 'object' &&
    !Array.isArray(value) &&
    Object.keys(value).length === 2 &&
    typeof value.fr === 'string' &&
    typeof value.en === 'string'
  );
}

/** The leaves the pages of `lang` must show: a text for people in that language only (its other language is the other pages'). */
function leavesFor(document: Json, lang: string): string[] {
  return [...leaves(document).keys()].filter((pointer) => {
    const text = /^(.*)\/(fr|en)$/.exec(pointer);
    return !(text && text[2] !== lang && isLocalized(resolve(document, text[1]!)));
  });
}

/** Every text for people of a file that is a sentence (four words or more) and not a name, by JSON pointer. */
function sentences(document: Json): [string, { fr: string; en: string }][] {
  const found: [string, { fr: string; en: string }][] = [];
  const visit = (value: Json, pointer: string) => {
    if (isLocalized(value)) {
      if (!pointer.endsWith('/name') && value.en.split(/\s+/).length >= 4) found.push([pointer, value]);
      return;
    }
    if (value !== null && typeof value === 'object') {
      for (const [key, child] of Array.isArray(value) ? value.entries() : Object.entries(value)) visit(child, `${pointer}/${key}`);
    }
  };
  visit(document, '');
  return found;
}

function resolve(document: Json, pointer: string): Json | undefined {
  let node: Json | undefined = document;
  for (const raw of pointer.split('/').slice(1)) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    node = node !== null && typeof node === 'object' ? (node as Record<string, Json>)[key] : undefined;
    if (node === undefined) return undefined;
  }
  return node;
}

describe('renderSite', () => {
  let reference: RenderedFile[];
  let site: SiteFile[];
  let documents: Map<string, Json>;
  let pages: { path: string; lang: string; html: string }[];

  beforeAll(async () => {
    reference = renderReference(await realSources(), urls);
    site = renderSite(reference, urls);
    documents = new Map(
      PUBLISHED_FILES.filter((name) => name.endsWith('.json')).map((name) => [
        name,
        JSON.parse(reference.find((f) => f.name === name)!.body.toString('utf8')) as Json,
      ]),
    );
    pages = SITE_PAGES.map((page) => ({
      path: page.path,
      lang: page.lang,
      html: site.find((f) => f.paths.includes(page.path))!.body.toString('utf8'),
    }));
  });

  it('renders one page per path, in English and French, each linking to the other language and to its JSON file', () => {
    expect(pages).toHaveLength(SITE_PAGES.length);
    for (const page of SITE_PAGES) {
      const html = pages.find((p) => p.path === page.path)!.html;
      expect(html).toContain(`<html lang="${page.lang}">`);
      expect(html).toContain(`<link rel="alternate" hreflang="${page.lang}" href="${urls.siteUrl}${page.path}">`);
      for (const other of page.alternates)
        expect(html).toContain(`<link rel="alternate" hreflang="${other.lang}" href="${urls.siteUrl}${other.path}">`);
      expect(html).toContain(`<link rel="alternate" type="application/json" href="${page.json}">`);
      for (const other of page.alternates) expect(html).toContain(`href="${other.path}" hreflang="${other.lang}"`);
    }
  });

  it('has a page for every problem type of the API, in both languages', () => {
    for (const code of Object.keys(PROBLEM_TYPES) as (keyof typeof PROBLEM_TYPES)[]) {
      for (const prefix of ['', '/fr']) {
        const html = pages.find((p) => p.path === `${prefix}/problems/${problemSlug(code)}`)?.html;
        expect(html).toContain(`<code>${code}</code>`);
        expect(html).toContain(`"type": "${urls.siteUrl}/problems/${problemSlug(code)}"`);
        expect(html).toContain(`HTTP/1.1 ${PROBLEM_TYPES[code].status}\nContent-Type: application/problem+json\n`);
      }
    }
  });

  it('marks only facts that are in the files, as the files hold them', () => {
    const wrong: string[] = [];
    let count = 0;
    for (const page of pages) {
      for (const mark of marksOf(page.html)) {
        count++;
        const document = documents.get(mark.file);
        const value = document === undefined ? undefined : resolve(document, mark.pointer);
        const where = `${page.path} ${mark.file}#${mark.pointer}`;
        if (value === undefined) wrong.push(`${where}: not in the file`);
        else if (mark.value !== undefined) {
          if (JSON.stringify(mark.value) !== JSON.stringify(value))
            wrong.push(`${where}: data-value ${JSON.stringify(mark.value)} ≠ ${JSON.stringify(value)}`);
          if (mark.text === '') wrong.push(`${where}: shown as nothing`);
        } else if (typeof value !== 'string' && typeof value !== 'number')
          wrong.push(`${where}: ${JSON.stringify(value)} shown without data-value`);
        else if (mark.text !== squash(String(value)))
          wrong.push(`${where}: shows ${JSON.stringify(mark.text)}, the file holds ${JSON.stringify(value)}`);
      }
    }
    expect(wrong).toEqual([]);
    expect(count).toBeGreaterThan(500);
  });

  it('shows every text for people of every file (titles, descriptions, deadlines, notes, bases…) on the pages of each language, in that language', () => {
    for (const lang of LANGUAGES) {
      const marked = new Set(pages.filter((p) => p.lang === lang).flatMap((p) => marksOf(p.html).map((m) => `${m.file}#${m.pointer}`)));
      const missing: string[] = [];
      for (const [file, document] of documents) {
        for (const pointer of leavesFor(document, lang)) {
          if (pointer.endsWith(`/${lang}`) && isLocalized(resolve(document, pointer.slice(0, -3))) && !marked.has(`${file}#${pointer}`))
            missing.push(`${file}#${pointer}`);
        }
      }
      expect({ lang, missing }).toEqual({ lang, missing: [] });
    }
  });

  it('shows each text for people in the language of the page: no French page holds the English of a text that has French, and the other way round', () => {
    const wrong: string[] = [];
    for (const page of pages) {
      const other = page.lang === 'fr' ? 'en' : 'fr';
      const text = squash(decode(page.html.replace(/<[^>]*>/g, ' ')));
      for (const mark of marksOf(page.html)) {
        const parent = mark.pointer.replace(/\/(fr|en)$/, '');
        if (mark.pointer.endsWith(`/${other}`) && !parent.endsWith('/name') && isLocalized(resolve(documents.get(mark.file)!, parent)))
          wrong.push(`${page.path}: marks ${mark.file}#${mark.pointer}`);
      }
      for (const [file, document] of documents) {
        for (const [pointer, value] of sentences(document)) {
          if (text.includes(squash(value[other]))) wrong.push(`${page.path}: shows the ${other} text of ${file}#${pointer}`);
        }
      }
    }
    expect(wrong).toEqual([]);
  });

  it('shows no data key, no index and no null-like filler on the pages for people', () => {
    // Every key of every file, e.g. `declarable_until`, `unit_requirements`, `due`, `month`.
    const keys = new Set<string>();
    const collect = (value: Json) => {
      if (Array.isArray(value)) value.forEach(collect);
      else if (value !== null && typeof value === 'object') {
        for (const [key, child] of Object.entries(value)) {
          keys.add(key);
          collect(child);
        }
      }
    };
    for (const document of documents.values()) collect(document);
    const snake = [...keys].filter((key) => key.includes('_'));
    const found: string[] = [];
    for (const page of pages.filter((p) => !/\/(developers|problems)/.test(p.path))) {
      const text = squash(decode(page.html.replace(/<(code|pre)\b[^>]*>[^<]*<\/\1>/g, ' ').replace(/<[^>]*>/g, ' ')));
      for (const key of snake) if (new RegExp(`(^|[^\\w])${key}($|[^\\w])`).test(text)) found.push(`${page.path}: key ${key}`);
      // A key followed by an index, as "deadlines 1 due month 2" (keys that are ordinary words aside).
      for (const key of [...keys].filter((k) => k.length > 4 && k !== 'version'))
        if (new RegExp(`(^|\\s)${key} \\d+\\b`).test(text)) found.push(`${page.path}: "${key} <index>"`);
      for (const filler of [/\bnull\b/, /\bundefined\b/, /\bNaN\b/, /\[object/, /non renseigné/, /\bnot set\b/, /\{|\}/])
        if (filler.test(text)) found.push(`${page.path}: ${filler}`);
    }
    expect(found).toEqual([]);
  });

  it('writes French formats on French pages and English ones on English pages: money, dates, numbers, apostrophes and spacing', () => {
    // Only ASCII white space is squashed: the no-break spaces are what is checked.
    const text = (path: string) =>
      decode(
        pages
          .find((p) => p.path === path)!
          .html.replace(/<(code|pre)\b[^>]*>[^<]*<\/\1>/g, ' ')
          .replace(/<[^>]*>/g, ' '),
      ).replace(/[ \t\r\n]+/g, ' ');
    const plan = (documents.get('pricing.json') as { plans: { price: { amount: string } }[] }).plans[0]!.price.amount;
    expect(text('/fr/pricing')).toContain(`${plan.replace('.', ',')}\u00a0€`);
    expect(text('/pricing')).toContain(`€${plan}`);
    for (const path of ['/fr/pricing', '/pricing']) expect(text(path)).not.toMatch(/\bEUR\b/);
    // A deadline as a sentence, with its date for the quantities of the data's year.
    const year = Number((documents.get('index.json') as { updated: string }).updated.slice(0, 4));
    expect(text('/fr/streams')).toContain(`Pour les quantités de ${year}\u00a0: au plus tard le 28 février ${year + 1}`);
    expect(text('/streams')).toContain(`For the quantities of ${year}: by 28 February ${year + 1}`);
    expect(text('/fr/streams')).toMatch(/10\u202f000/);
    expect(text('/streams')).toMatch(/10,000/);
    for (const page of pages.filter((p) => p.lang === 'fr')) {
      const t = text(page.path);
      expect({ path: page.path, straight: /\p{L}'\p{L}/u.test(t), space: / [:;?!](\s|$)/.test(t) }).toEqual({
        path: page.path,
        straight: false,
        space: false,
      });
      // The title is French all through: no English name of the service after it.
      expect(/<title>([^<]*)<\/title>/.exec(page.html)![1]).not.toMatch(/API|Declarations/);
    }
  });

  it('states no date, price or code outside a marked fact', () => {
    // Codes the files hold (stream, material, unit, plan and law ids), as whole words.
    const codes = new Set<string>();
    for (const document of documents.values()) {
      for (const [pointer, value] of leaves(document)) {
        if (
          typeof value === 'string' &&
          /\/(code|id|units\/\d+|streams\/\d+|legal_basis\/\d+|law\/\d+)$/.test(pointer) &&
          /[A-Z0-9_-]/.test(value)
        )
          codes.add(value);
      }
    }
    const found: string[] = [];
    for (const page of pages) {
      // The page's text with the marked facts, tags and attribute values removed.
      const text = decode(page.html.replace(MARK, ' ').replace(/<[^>]*>/g, ' '));
      for (const match of text.matchAll(/\b\d{4}-\d{2}-\d{2}\b|\b\d+[.,]\d{2}\b/g)) found.push(`${page.path}: ${match[0]}`);
      for (const code of codes) {
        if (new RegExp(`(^|[^\\w-])${code.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}($|[^\\w-])`).test(text))
          found.push(`${page.path}: ${code}`);
      }
    }
    expect(found).toEqual([]);
  });

  it('writes valid HTML (html-validate, recommended rules) on every page', async () => {
    const validator = new HtmlValidate({ extends: ['html-validate:recommended'] });
    const errors: string[] = [];
    for (const file of site.filter((f) => f.contentType === HTML_CONTENT_TYPE)) {
      const report = await validator.validateString(file.body.toString('utf8'), file.file);
      for (const result of report.results)
        for (const m of result.messages) errors.push(`${file.file}:${m.line}:${m.column} ${m.ruleId} ${m.message}`);
    }
    expect(errors).toEqual([]);
  });

  it('uses no inline script or style, and loads nothing from another host', () => {
    for (const page of pages) {
      expect(page.html).not.toMatch(/<script|\sstyle=|<style|\son[a-z]+=/i);
      for (const [, url] of page.html.matchAll(/<(?:link|img|script)\b[^>]*\s(?:href|src)="([^"]*)"/g)) {
        if (/^https?:/.test(url!)) expect(url!.startsWith(`${urls.siteUrl}/`)).toBe(true);
      }
    }
  });

  it('lists every page in sitemap.xml, with both languages, and points robots.txt to it', () => {
    const sitemap = site.find((f) => f.file === 'sitemap.xml')!.body.toString('utf8');
    for (const page of SITE_PAGES) expect(sitemap).toContain(`<loc>${urls.siteUrl}${page.path}</loc>`);
    expect(site.find((f) => f.file === 'robots.txt')!.body.toString('utf8')).toContain(`Sitemap: ${urls.siteUrl}/sitemap.xml`);
  });

  it('tells the facts the fact-check of 28 November 2026 corrected: two approvals, Adelphe’s flat fee, the Code named as the Code, no ended stream offered', () => {
    const text = (path: string) =>
      squash(decode(pages.find((p) => p.path === path)!.html.replace(/<[^>]*>/g, ' '))).replace(/ ([,.:])/g, '$1');
    const streams = text('/fr/streams');
    // The one-year approvals of 27 December 2023, then their renewal for five years: two lines, not one merged period.
    for (const name of ['Citeo', 'Adelphe', 'Léko']) {
      expect(streams).toContain(`1er janvier 2024: ${name}, agréé jusqu’au 31 décembre 2024`);
      expect(streams).toContain(`1er janvier 2025: ${name}, agrément reconduit jusqu’au 31 décembre 2029`);
      expect(streams).not.toContain(`${name}, agréé jusqu’au 31 décembre 2029`);
    }
    // Spaces squashed: the page's no-break spaces read as spaces here.
    expect(streams).toContain(
      'Déclarer chez Adelphe Ce que vous déclarez dépend du nombre d’UVC que vous mettez sur le marché chaque année: Forfait annuel de 80 € HT — moins de 10 000 UVC par an.',
    );
    expect(streams).toContain('(« Emballages des ménages et papiers graphiques »)');
    // A link to the whole Code is named as the Code; the penalties article has its own address.
    const html = pages.find((p) => p.path === '/fr/obligations')!.html;
    expect(html).not.toMatch(
      /href="https:\/\/www\.legifrance\.gouv\.fr\/codes\/texte_lc\/LEGITEXT000006074220"[^>]*>Code de l’environnement, article/,
    );
    expect(pages.find((p) => p.path === '/fr/law')!.html).toContain(
      'href="https://www.legifrance.gouv.fr/codes/article_lc/LEGIARTI000041583338"',
    );
    // The home page offers the streams in force only; food-service packaging ended on 30 June 2026.
    expect(text('/fr/')).not.toContain('Emballages de la restauration');
  });
});
