/**
 * The words a French reader meets: the French pages of the built site, the dashboard's French
 * catalogue and the French e-mails use the glossary's terms (none of the words it rules out), and no
 * English code reaches them: no English catalogue sentence, no error or column code
 * (`invalid_csv_header`), no file name (`streams.json`), no deadline code (`eco-organism-payment`).
 */
import { PROBLEM_TYPES } from '../common/problem/problem.js';
import { GLOSSARY } from '../i18n/glossary.js';
import { MESSAGES } from '../i18n/messages/index.js';
import { PUBLISHED_FILES, type ReferenceUrls } from '../reference/reference-documents.js';
import { renderReference } from '../reference/render-reference.js';
import { realSources } from '../reference/test-support.js';
import { frenchTypographyProblems } from '../reference/validate-reference.js';
import { renderSite } from './render-site.js';
import { SITE_PAGES } from './site-pages.js';

const urls: ReferenceUrls = {
  referenceBaseUrl: 'https://www.example.org/api/v1',
  clientBaseUrl: 'https://www.example.org/api/v1',
  siteUrl: 'https://www.example.org',
};

const ENTITIES: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'" };

/** What a person reads on a page: no tags, no code or example blocks. */
function readable(html: string): string {
  return html
    .replace(/<(code|pre|script|style)\b[\s\S]*?<\/\1>/g, ' ')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&(amp|lt|gt|quot|#39);/g, (e) => ENTITIES[e]!)
    .replace(/\s+/g, ' ');
}

/** A text without what it quotes (« uvc » is how the glossary names the code to type) nor the given official titles. */
function ownWords(text: string, titles: readonly string[] = []): string {
  let own = text.replace(/«[^»]*»/g, ' ');
  for (const title of titles) own = own.split(title).join(' ');
  return own;
}

/** The words the glossary rules out in French, as a person would write them (lower case or capitalised). */
const AVOIDED = GLOSSARY.terms.flatMap((entry) =>
  entry.avoid.fr.map((word) => ({
    word,
    pattern: new RegExp(`(^|[^\\p{L}])(${escape(word)}|${escape(word[0]!.toUpperCase() + word.slice(1))})(?![\\p{L}])`, 'u'),
  })),
);

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/['’]/g, "['’]");
}

const codes = (documents: { streams: { streams: { deadlines: { id: string }[] }[] } }) => [
  ...Object.keys(PROBLEM_TYPES),
  ...Object.keys(MESSAGES.en.fields),
  ...documents.streams.streams.flatMap((stream) => stream.deadlines.map((deadline) => deadline.id)),
];

/** Every string of a catalogue section (functions are said below, with samples, where they reach a person). */
function strings(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (value && typeof value === 'object') return Object.values(value).flatMap(strings);
  return [];
}

/** English sentences of the catalogue (two words or more, not shared with French): none belongs on a French page. */
const ENGLISH = new Set(
  [MESSAGES.en.site, MESSAGES.en.dashboard, MESSAGES.en.dashboardPages]
    .flatMap(strings)
    .filter((text) => text.trim().split(/\s+/).length >= 2 && text.length >= 12),
);
for (const text of [MESSAGES.fr.site, MESSAGES.fr.dashboard, MESSAGES.fr.dashboardPages].flatMap(strings)) ENGLISH.delete(text);

/** `text` as a person reads it; `own` the same without what it quotes (where the glossary's ruled-out words may be named). */
function problemsOf(where: string, text: string, own: string, words: { codes: string[]; exempt?: boolean }): string[] {
  const found: string[] = [];
  for (const { word, pattern } of AVOIDED) if (pattern.test(own)) found.push(`${where}: « ${word} » (the glossary's term instead)`);
  for (const english of ENGLISH) if (text.includes(english)) found.push(`${where}: English « ${english} »`);
  if (!words.exempt) {
    for (const code of words.codes)
      if (new RegExp(`(^|[^\\w-])${escape(code)}($|[^\\w-])`).test(text)) found.push(`${where}: code ${code}`);
    for (const name of [...PUBLISHED_FILES, 'llms.txt'])
      if (new RegExp(`(^|[^\\w./-])${escape(name)}`).test(text)) found.push(`${where}: file name ${name}`);
  }
  return found;
}

describe('the words of French pages and e-mails', () => {
  let documents: Awaited<ReturnType<typeof realSources>>;
  let pages: { path: string; text: string }[];
  let lawTitles: string[];

  beforeAll(async () => {
    documents = await realSources();
    const site = renderSite(renderReference(structuredClone(documents), urls), urls);
    pages = SITE_PAGES.filter((page) => page.lang === 'fr').map((page) => ({
      path: page.path,
      text: readable(site.find((file) => file.paths.includes(page.path))!.body.toString('utf8')),
    }));
    // Official titles are quoted as published (« …des producteurs d’emballages… »): not the service's own words.
    lawTitles = documents.law.law.map((entry) => entry.title.fr.replace(/\s+/g, ' '));
  });

  it('has a glossary whose French is written the French way, one entry per concept', () => {
    expect(new Set(GLOSSARY.terms.map((entry) => entry.id)).size).toBe(GLOSSARY.terms.length);
    for (const id of ['stream', 'uvc', 'revision', 'idu', 'eco_organism', 'filing_tier'])
      expect(GLOSSARY.terms.map((e) => e.id)).toContain(id);
    const wrong = GLOSSARY.terms.flatMap((entry) =>
      [entry.term.fr, entry.definition.fr].flatMap((text) => frenchTypographyProblems(text).map((problem) => `${entry.id}: ${problem}`)),
    );
    expect(wrong).toEqual([]);
  });

  it('finds a planted word the glossary rules out, a code and a file name', () => {
    expect(
      problemsOf('planted', 'La révision 2 ; voir streams.json et « eco-organism-payment ».', 'La révision 2 ; voir streams.json et .', {
        codes: codes(documents),
      }),
    ).toEqual([
      "planted: « révision » (the glossary's term instead)",
      'planted: code eco-organism-payment',
      'planted: file name streams.json',
    ]);
  });

  it("uses the glossary's terms on every French page of the site, and no English sentence, code or file name", () => {
    const found = pages.flatMap((page) =>
      problemsOf(page.path, page.text, ownWords(page.text, lawTitles), {
        codes: codes(documents),
        // The developers' page and the error types document the API's codes and files by design.
        exempt: /^\/fr\/(developers|problems)/.test(page.path),
      }),
    );
    expect(found).toEqual([]);
  });

  it("uses the glossary's terms in the dashboard's French catalogue, and no English sentence", () => {
    const found = [MESSAGES.fr.dashboard, MESSAGES.fr.dashboardPages]
      .flatMap(strings)
      .flatMap((text, i) => problemsOf(`dashboard text ${i}: ${text.slice(0, 60)}`, text, ownWords(text), { codes: codes(documents) }));
    expect(found).toEqual([]);
  });

  it('writes French e-mails with no code, file name or English sentence, and the reference data’s words on who files', () => {
    const w = documents.pricing.who_files;
    const fr = MESSAGES.fr;
    const mails = {
      filed: fr.mail.filed.text({
        company: 'Exemple SAS',
        period: '2026-S1',
        revision: 2,
        receipt: 'EPR-2026S1-R2-V3QPTVJT',
        name: 'Claire Martin',
        at: '26 novembre 2026 à 04:07, heure de Paris',
        lines: 4,
        totals: ['EMB 1 510,5 kg'],
        unitsSold: ['EMB 90\u202f000 UVC'],
        counts: ['EMB, Verre\u00a0: 95\u202f000 UVC'],
        url: 'https://declarations.example/dashboard/declarations/x',
        contact: 'contact@declarations.example',
        next: [w.operator_does.fr, w.you_still_do.fr, w.by_when.fr],
      }),
      signIn: fr.mail.signIn.text({ clientId: 'exemple-sas', minutes: 15, url: 'https://declarations.example/dashboard/sign-in/link' }),
      invitation: fr.operator.invitation.text({
        company: 'Exemple SAS',
        clientId: 'exemple-sas',
        url: 'https://declarations.example/dashboard/sign-in/link',
        until: '2026-12-05T10:00:00Z',
      }),
      reminder: fr.operator.reminder.text({
        company: 'Exemple SAS',
        clientId: 'exemple-sas',
        period: '2026-S1',
        missing: [{ name: 'Emballages ménagers', stream: 'EMB', due: '2027-02-28' }],
        url: 'https://declarations.example/dashboard/sign-in/link',
        until: '2026-12-05T10:00:00Z',
      }),
    };
    const found = Object.entries(mails).flatMap(([name, mail]) => {
      const text = mail.replace(/https?:\/\/\S+/g, ' ');
      return problemsOf(`e-mail ${name}`, text, ownWords(text), { codes: codes(documents) });
    });
    expect(found).toEqual([]);
    expect(mails.filed).toContain(w.operator_does.fr.replace(/\s+/g, ' ').trim().slice(0, 40));
  });
});
