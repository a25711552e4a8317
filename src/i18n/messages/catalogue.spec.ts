import { PROBLEM_TYPES } from '../../common/problem/problem.js';
import type { FieldCode } from '../field-params.js';
import { LANGUAGES, type Language } from '../language.js';
import { SAMPLE_PARAMS } from '../test-support.js';
import { MESSAGES, type Messages } from './index.js';

/** Arguments each function of a catalogue outside `fields` is said with. */
const SAMPLE_ARGS: Record<string, unknown[][]> = {
  'common.position': [
    [{}],
    [{ field: 'period' }],
    [{ field: 'colour' }],
    [{ line: 3 }],
    [{ line: 3, field: 'quantity' }],
    [{ line: 3, field: 'lines' }],
    [{ row: 5 }],
    [{ row: 5, field: 'quantity' }],
    [{ row: 5, field: 'x' }],
  ],
  'common.halfYear': [
    [2026, 1],
    [2026, 2],
  ],
  'dashboard.documentTitle': [['Déclarations'], ['Déclarations', true]],
  'dashboard.errorSummary.count': [[1], [3]],
  'dashboard.signIn.sent': [['nom@exemple.fr', 15]],
  'dashboard.signIn.mailOff': [[15]],
  'dashboard.link.failed': [[15]],
  'products.problems': [[1], [3]],
  'products.imported': [[2, 1, 0]],
  'products.salesRecorded': [
    [1, '2026-S1'],
    [3, '2026-S1'],
  ],
  'products.element': [['Verre', '410,5', 1]],
  'products.derivedTitle': [['2026-S1']],
  'products.contribution': [['BTL-75', '1 000', '410,5']],
  'products.contributionsOmitted': [['2 400', '1 000']],
  'products.unitsSold': [['EMB', '90\u202f000\u00a0UVC']],
  'products.lastFiled': [[2, '2026S1-R2-ABCD-EFGH']],
  'products.located': [
    ['Ligne 2 du fichier', 'Ce texte est trop long.'],
    [null, 'Ce texte est trop long.'],
  ],
  'operator.invitation.subject': [[{ company: 'Exemple SAS' }]],
  'operator.invitation.text': [
    [
      {
        company: 'Exemple SAS',
        clientId: 'exemple-sas',
        url: 'https://declarations.example/dashboard/sign-in/link?token=abc',
        until: '2027-03-01T10:00:00Z',
      },
    ],
  ],
  'operator.reminder.subject': [
    [{ company: 'Exemple SAS', period: '2025-S2', due: '2026-02-28' }],
    [{ company: 'Exemple SAS', period: '2026-S1', due: null }],
  ],
  'operator.reminder.text': [
    [
      {
        company: 'Exemple SAS',
        clientId: 'exemple-sas',
        period: '2025-S2',
        missing: [
          { stream: 'EMB', name: 'Emballages ménagers', due: '2026-02-28' },
          { stream: 'EPRO', name: 'Emballages professionnels', due: null },
        ],
        url: 'https://declarations.example/dashboard/sign-in/link?token=abc',
        until: '2027-03-01T10:00:00Z',
      },
    ],
  ],
  'dashboardPages.common.revisionN': [[2]],
  'dashboardPages.overview.waitingText': [[true], [false]],
  'dashboardPages.overview.periodsOf': [['Emballages ménagers']],
  'dashboardPages.overview.year': [['2026', '28 février 2027']],
  'dashboardPages.overview.yearNoDue': [['2026']],
  'dashboardPages.overview.tier': [
    [{ eco: 'Citeo', low: '8 400', high: '9 400', soFar: true, tier: 'Forfait de 80 € HT', known: false }],
    [{ eco: 'Citeo', low: '8 400', high: '8 400', soFar: false, tier: 'Forfait de 80 € HT', known: true }],
  ],
  'dashboardPages.overview.tierOpen': [
    [{ eco: 'Citeo', low: '8 400', high: '10 400', soFar: true, tiers: 'Forfait de 80 € HT ou Déclaration simplifiée', known: false }],
  ],
  'dashboardPages.overview.owes.tierFrom': [[{ eco: 'Citeo', tier: 'Déclaration simplifiée', year: '2025' }]],
  'dashboardPages.overview.owes.tierRange': [[{ eco: 'Citeo', tiers: 'Forfait de 80 € HT ou Déclaration simplifiée', year: '2025' }]],
  'dashboardPages.overview.owes.published': [['Citeo', 'Forfait de 80 € HT sous 10 000 UVC par an']],
  'dashboardPages.overview.owes.band': [
    [{ label: 'Forfait de 80 € HT', from: '0', below: '10 000', unit: 'UVC' }],
    [{ label: 'Déclaration simplifiée', from: '10 000', below: '500 000', unit: 'UVC' }],
    [{ label: 'Déclaration à l’UVC', from: '500 000', below: null, unit: 'UVC' }],
  ],
  'dashboardPages.overview.owes.deadlineOf': [['2026', '28 février 2027']],
  'dashboardPages.overview.owes.calendar': [
    ['Citeo', 'Déclaration des quantités de l’année N-1 entre le 1er janvier et la fin février de l’année N.'],
  ],
  'dashboardPages.overview.computedOn': [['25 novembre 2026', 3]],
  'dashboardPages.overview.sessionsText': [[1], [2]],
  'dashboardPages.tokens.revoked': [['eprc_OZQ40kG']],
  'dashboardPages.tokens.tokenLabel': [['ERP production']],
  'dashboardPages.tokens.expiresOn': [['30 juin 2027']],
  'dashboardPages.tokens.revokeQuestion': [['ERP production', 'eprc_OZQ40kG']],
  'dashboardPages.declaration.title': [['2026-S1', 2]],
  'dashboardPages.declaration.created': [[1, 'EPR-2026S1-R1-V3QPTVJT']],
  'dashboardPages.declaration.linesCaption': [[1], [4]],
  'dashboardPages.declaration.revisionsOf': [['2026-S1']],
  'dashboardPages.form.periodHint': [['2026-S1']],
  'dashboardPages.form.unitsSold': [['EMB', 'Emballages ménagers']],
  'dashboardPages.form.nothingStoredFrom': [['ventes.csv']],
  'dashboardPages.form.tooManyLines': [[200]],
  'dashboardPages.form.quantityIn': [['kg'], ['UVC']],
  'files.report.fileName': [['ventes']],
  'dashboardPages.form.reportHelp': [
    [3, 1000],
    [1234, 1000],
  ],
  'dashboardPages.error.heading': [[404]],
  'site.streamPage.eventRetired': [[2]],
  'mail.filed.subject': [[{ period: '2026-S1', receipt: 'EPR-2026S1-R1-V3QPTVJT' }]],
  'mail.filed.text': [
    [
      {
        company: 'Exemple SAS',
        period: '2026-S1',
        revision: 1,
        receipt: 'EPR-2026S1-R1-V3QPTVJT',
        name: 'Claire Martin',
        at: '26 novembre 2026 à 04:07, heure de Paris',
        lines: 4,
        totals: ['EMB 1 510,5 kg'],
        unitsSold: ['EMB 90\u202f000 UVC'],
        counts: [],
        url: 'https://declarations.example/dashboard/declarations/x',
        contact: 'contact@declarations.example',
        next: ['L’opérateur dépose votre déclaration annuelle.'],
      },
    ],
    [
      {
        company: 'Exemple SAS',
        period: '2026-S1',
        revision: 1,
        receipt: 'EPR-2026S1-R1-V3QPTVJT',
        name: 'Claire Martin',
        at: '26 novembre 2026 à 04:07, heure de Paris',
        lines: 4,
        totals: ['EMB 1 510,5 kg'],
        unitsSold: [],
        counts: ['EMB, Verre\u00a0: 95\u202f000 UVC', 'EMB, Papier-carton\u00a0: 85\u202f000 UVC'],
        url: 'https://declarations.example/dashboard/declarations/x',
        contact: null,
        next: ['L’opérateur dépose votre déclaration annuelle.'],
      },
    ],
  ],
  'dashboardPages.check.replaces': [[1, 'EPR-2026S1-R1-V3QPTVJT', '26 novembre 2026 à 04:07, heure de Paris']],
  'dashboardPages.check.unchanged': [[1, 'EPR-2026S1-R1-V3QPTVJT']],
  'dashboardPages.check.linesCaption': [[1], [4]],
  'dashboardPages.check.stale': [[2]],
  'dashboardPages.check.summaryLead': [
    [1, 1],
    [1000, 12],
  ],
  'dashboardPages.check.summaryCaption': [[1], [12]],
  'dashboardPages.check.summaryMore': [[100, 1000]],
  'dashboardPages.check.warningsMore': [[1], [997]],
  'dashboardPages.productFile.templateFile': [['xlsx']],
  'dashboardPages.productFile.columnsLead': [['mes-produits.xlsx']],
  'dashboardPages.productFile.where': [
    [5, 'Matière'],
    [5, undefined],
  ],
  'dashboardPages.productFile.refused.spreadsheet_too_big': [[16 * 1024 * 1024]],
  'dashboardPages.productFile.refused.too_many_rows': [[10000]],
  'dashboardPages.productFile.productsCaption': [[1], [3]],
  'dashboardPages.productFile.derivedProductsCaption': [[1], [60]],
  'dashboardPages.productFile.productsMore': [[50, 1000]],
  'dashboardPages.productFile.element': [
    ['Verre', '210', 1],
    ['Acier', '6', 2],
  ],
  'dashboardPages.filed.mailSent': [['conformite@exemple.fr']],
  'site.streamPage.tiersBy': [['UVC']],
  'dashboardPages.declaration.catalogueNumber': [[3]],
  'operatorPages.documentTitle': [['Clients'], ['Clients', true]],
  'operatorPages.scopeName': [['2026-S1'], ['2026-S2'], ['2026']],
  'operatorPages.mail.text': [
    [{ name: 'Camille Martin', url: 'https://declarations.example/operator/sign-in/link?token=abc', minutes: 15 }],
  ],
  'operatorPages.overview.lead': [['premier semestre 2026']],
  'operatorPages.overview.clientsCount': [[1], [12]],
  'operatorPages.overview.chartTitle': [['premier semestre 2026']],
  'operatorPages.clients.counts': [['premier semestre 2026']],
  'operatorPages.client.sessionSince': [['26 novembre 2026 à 04:07', '26 novembre 2026 à 05:07']],
  'operatorPages.client.linkUntil': [['3 décembre 2026 à 04:07']],
  'operatorPages.tools.sentCount': [[1], [3]],
  'operatorPages.declaration.title': [['EPR-2026S1-R1-V3QPTVJT']],
  'operatorPages.tools.periodExport': [['premier semestre 2026']],
  'operatorPages.tools.annualExport': [['2026', 'Citeo']],
  'operatorPages.periodExportEco': [['premier semestre 2026', 'Léko']],
  'mail.signIn.text': [[{ clientId: 'exemple-sas', minutes: 15, url: 'https://declarations.example/dashboard/sign-in/link?token=abc' }]],
};

interface Said {
  /** `fields.required#2`: the key, and which sample it was said with. */
  key: string;
  path: string;
  text: string;
}

/** Every text of a catalogue, functions said with each of their samples. */
function said(messages: Messages): Said[] {
  const out: Said[] = [];
  const walk = (value: unknown, path: string) => {
    if (typeof value === 'string') out.push({ key: path, path, text: value });
    else if (typeof value === 'function') {
      const code = path.startsWith('fields.') ? (path.slice('fields.'.length) as FieldCode) : undefined;
      const samples = code ? SAMPLE_PARAMS[code].map((p) => [p]) : SAMPLE_ARGS[path];
      if (!samples) throw new Error(`no sample arguments for ${path}`);
      samples.forEach((args, i) => {
        const text = (value as (...a: unknown[]) => unknown)(...args);
        if (text !== undefined) out.push({ key: `${path}#${i}`, path, text: String(text) });
      });
    } else if (value && typeof value === 'object') {
      for (const [key, child] of Object.entries(value)) walk(child, path ? `${path}.${key}` : key);
    } else throw new Error(`${path}: a catalogue holds strings and functions, not ${typeof value}`);
  };
  walk(messages, '');
  return out;
}

/** The key paths of a catalogue, each with the kind of its value. */
function shape(value: unknown, path = ''): string[] {
  if (typeof value === 'string' || typeof value === 'function') return [`${path}: ${typeof value}`];
  return Object.entries(value as object).flatMap(([key, child]) => shape(child, path ? `${path}.${key}` : key));
}

const texts = Object.fromEntries(LANGUAGES.map((language) => [language, said(MESSAGES[language])])) as Record<Language, Said[]>;
const person = (language: Language) => texts[language].filter(({ path }) => !path.startsWith('site.'));

describe('the catalogues', () => {
  it('have every key in every language, of the same kind', () => {
    const english = shape(MESSAGES.en);
    for (const language of LANGUAGES) expect(shape(MESSAGES[language])).toEqual(english);
  });

  it('explain every problem code of the API, for people and for developers', () => {
    const codes = Object.keys(PROBLEM_TYPES).sort();
    for (const language of LANGUAGES) {
      expect(Object.keys(MESSAGES[language].problems).sort()).toEqual(codes);
      expect(Object.keys(MESSAGES[language].site.problemTypes).sort()).toEqual(codes);
    }
  });

  it('have a message for every validation code, said with each sample of its parameters', () => {
    for (const language of LANGUAGES) {
      expect(Object.keys(MESSAGES[language].fields).sort()).toEqual(Object.keys(SAMPLE_PARAMS).sort());
    }
  });

  // Words that are the same in both languages: codes, units, names, and French words English shares.
  const SAME_IN_BOTH = new Set([
    // The check page's column of consumer sales units: the abbreviation both languages use.
    'dashboardPages.check.units',
    // The operator's console: words spelled alike in both languages.
    'operatorPages.nav.label',
    'operatorPages.nav.clients',
    'operatorPages.overview.clientsCount',
    'operatorPages.clients.title',
    'operatorPages.client.actions',
    'operatorPages.tools.exports',
    'operatorPages.declaration.client',
    // The per-product templates' formats, by the names of the programs.
    'dashboardPages.productFile.templateName.xlsx',
    'dashboardPages.productFile.templateName.ods',
    'dashboardPages.productFile.templateName.csv',
    // The unit's symbol, and a message said as it is when it has no position.
    'products.kg',
    'products.located',
    'site.facts.code',
    'site.facts.description',
    'site.facts.date',
    'site.facts.notes',
    'site.facts.sources',
    'site.about.version',
    'site.footer.contact',
    'site.dev.links',
    'site.dev.name',
    'site.dev.description',
    'site.dev.contact',
    'site.nav.obligations',
    'site.problems.code',
    'site.problems.type',
    'site.values.active',
    'dashboardPages.common.none',
    // The badge of a test token: « test » is the French word too (« jeton de test »).
    'dashboardPages.tokens.modeBadges.test',
    // The error report's column names that French shares.
    'files.report.type',
    'files.report.message',
    // A product file's GTIN column: the same word in French.
    'files.columns.products.gtin',
  ]);

  it('say nothing in French exactly as in English, but codes, units and names', () => {
    const english = new Map(texts.en.map(({ key, text }) => [key, text]));
    const same = texts.fr
      .filter(({ key, path, text }) => english.get(key) === text && !SAME_IN_BOTH.has(path))
      .map(({ key, text }) => `${key}: ${text}`);
    expect(same).toEqual([]);
    // And the list holds only words that are the same.
    const french = new Map(texts.fr.map(({ key, text }) => [key, text]));
    expect([...SAME_IN_BOTH].filter((path) => french.get(path) !== english.get(path))).toEqual([]);
  });

  it('never show JSON syntax, a pointer, an undefined value or an empty quotation to a person', () => {
    for (const language of LANGUAGES) {
      const bad = person(language).filter(({ text }) =>
        /[{}[\]]|\/(lines|rows|period|query|headers)\b|undefined|NaN|\bnull\b|\[object|« *»|“”|\s{2,}(?!\n)|\s[.,]/u.test(
          text.replace(/\n\n/g, '\n'),
        ),
      );
      expect(bad.map(({ key, text }) => `${key}: ${text}`)).toEqual([]);
    }
  });

  it('never name a field by its key in French (the columns of an English file aside)', () => {
    const keys = /(?<!\p{L})(period|lines|quantity|material|stream|unit|field|pointer|detail)(?!\p{L})/u;
    const bad = person('fr').filter(({ path, text }) => path !== 'fields.invalid_csv_header' && keys.test(text));
    expect(bad.map(({ key, text }) => `${key}: ${text}`)).toEqual([]);
  });

  it('set French typography: ’, a no-break space before : and inside « », a narrow one before ; ! ?', () => {
    const problems = person('fr').flatMap(({ key, text }) => {
      const found: string[] = [];
      if (/['"]/.test(text)) found.push('straight quote or apostrophe');
      // A colon of a time (11:05), an address (https://) or an ISO date-time is not punctuation.
      for (const match of text.matchAll(/(?<!\d):(?!\d)(?!\/\/)/g))
        if (text[match.index - 1] !== '\u00a0') found.push(`colon at ${match.index}`);
      // A semicolon between two words is a CSV example (flux;matériau;unité;quantité).
      for (const match of text.matchAll(/(?<!\p{L});|;(?!\p{L})|[!?](?=\s|$)/gu))
        if (text[match.index - 1] !== '\u202f') found.push(`${match[0]} at ${match.index}`);
      if (/«(?!\u00a0)|(?<!\u00a0)»/.test(text)) found.push('guillemets without no-break spaces');
      return found.map((problem) => `${key}: ${problem}: ${text}`);
    });
    expect(problems).toEqual([]);
  });

  it('write the English apostrophe as ’ too', () => {
    expect(
      person('en')
        .filter(({ text }) => /'/.test(text))
        .map(({ key }) => key),
    ).toEqual([]);
  });
});
