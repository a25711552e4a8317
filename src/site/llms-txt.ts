/**
 * llms.txt (https://llmstxt.org/): the service, its reference files, its pages and its client API
 * in Markdown, for people and language models; written in English with a French section. It lists
 * the site's pages, so the site renders it (reference data knows nothing of pages).
 */
import {
  CLIENT_API_ENDPOINTS,
  INDEX_FILE,
  REFERENCE_DOCUMENTS,
  type IndexDocument,
  type LocalizedText,
  type ReferenceDocumentName,
  type ReferenceDocuments,
  type ReferenceUrls,
} from '../reference/reference-documents.js';
import { CLIENT_AUTH_DESCRIPTION } from '../reference/render-reference.js';
import { ROOT_LANGUAGE, SITE_PAGES } from './site-pages.js';
import { LANGUAGE_REGISTRY } from '../i18n/languages.js';
import type { Language } from '../i18n/language.js';

const LICENCE_URL = 'https://creativecommons.org/licenses/by/4.0/';

/** Where the site serves it. */
export const LLMS_PATH = '/llms.txt';

/**
 * The words of llms.txt that speak to people, in English and French: the file is written in English,
 * with a French section that says the same to a French reader. Codes, addresses and data come from
 * the sources.
 */
const LLMS_TEXT = {
  en: {
    summary: (updated: string) =>
      `The reference data needs no key, was last updated on ${updated} and is published under the CC BY 4.0 licence.`,
    verification:
      'Every legal reference, date, eco-organism, material line, filing tier and deadline carries its source URLs, a `verification` label ' +
      '(`official_text`: read in an official text, `secondary_source`: read in a secondary source only, or `unverified`) ' +
      'and the date it was last `checked` against them. Every text for people is in French and English (`{fr, en}`). ' +
      'This is not legal advice: check against the official texts.',
    streams: 'Streams the service accepts:',
    whoFiles: 'Who files what with the eco-organism (the same in every plan):',
    tiers: 'filing tiers by yearly count of',
    noUpperBound: (from: string, unit: string) => `from ${from} ${unit}`,
    range: (from: string, below: string, unit: string) => (from === '0' ? `under ${below} ${unit}` : `${from} to under ${below} ${unit}`),
  },
  fr: {
    heading: 'En français',
    summary: (updated: string) =>
      `Elles sont en accès libre, sans clé, ont été mises à jour le ${updated} et sont publiées sous licence CC\u00a0BY\u00a04.0.`,
    verification:
      'Chaque référence légale, date, éco-organisme, ligne de matériau, niveau de déclaration et échéance porte ses sources, un niveau de vérification ' +
      '(`official_text`\u00a0: lu dans un texte officiel, `secondary_source`\u00a0: lu dans une source secondaire seulement, ou `unverified`\u00a0: non vérifié) ' +
      'et la date de sa dernière vérification (`checked`). Chaque texte destiné aux personnes existe en français et en anglais (`{fr, en}`). ' +
      'Ceci n’est pas un conseil juridique\u00a0: vérifiez dans les textes officiels.',
    streams: 'Filières acceptées par le service\u00a0:',
    whoFiles: 'Qui déclare quoi à l’éco-organisme (de même dans chaque offre)\u00a0:',
    files: 'Fichiers de référence\u00a0:',
    pages: 'Pages en français\u00a0:',
    declarable: (from: string) => `déclarable à partir du ${from}`,
    until: (until: string, next: string | null) => `jusqu’au ${until}${next ? ` (puis \`${next}\`)` : ''}`,
  },
} as const;

const DOCUMENT_TITLES: Record<ReferenceDocumentName, { title: LocalizedText; description: LocalizedText }> = {
  pricing: {
    title: { en: 'Pricing', fr: 'Tarifs' },
    description: {
      en: "the service's own plans and yearly prices (EUR, VAT excluded), not eco-organism tariffs",
      fr: 'les offres du service et leurs prix annuels (en euros, hors TVA), qui ne sont pas des barèmes d’éco-organismes',
    },
  },
  streams: {
    title: { en: 'Streams', fr: 'Filières' },
    description: {
      en: 'the EPR streams the service accepts, with eco-organisms and their filing tiers, units, material codes and the shape of the IDU',
      fr: 'les filières REP acceptées par le service, avec les éco-organismes et leurs niveaux de déclaration, les unités, les codes de matériaux et la forme de l’IDU',
    },
  },
  law: {
    title: { en: 'Law', fr: 'Textes' },
    description: {
      en: 'French and EU legal texts on packaging EPR, each with its reference, date, official URL and sources',
      fr: 'les textes français et européens sur la REP emballages, chacun avec sa référence, sa date, son adresse officielle et ses sources',
    },
  },
  obligations: {
    title: { en: 'Obligations', fr: 'Obligations' },
    description: {
      en: 'what a packaging producer must do in France, with legal basis, periodicity and deadlines where sourced',
      fr: 'ce que doit faire en France un metteur sur le marché de produits emballés, avec la base légale, la périodicité et les échéances sourcées',
    },
  },
};

/** Titles of the site's pages in llms.txt (each problem type has its own page, linked from `problems`). */
const PAGE_TITLES: Record<(typeof SITE_PAGES)[number]['kind'], LocalizedText> = {
  notFound: { en: 'Page not found', fr: 'Page introuvable' },
  home: { en: 'Home', fr: 'Accueil' },
  start: {
    en: 'Getting started: for producers, how to become a client and what to have ready',
    fr: 'Pour commencer\u00a0: pour les metteurs sur le marché, devenir client et ce qu’il faut préparer',
  },
  pricing: { en: 'Pricing', fr: 'Tarifs' },
  streams: {
    en: 'Streams: units, material categories, eco-organisms, legal basis',
    fr: 'Filières\u00a0: unités, catégories de matériaux, éco-organismes, base légale',
  },
  law: { en: 'Law: each legal text with its date and sources', fr: 'Textes\u00a0: chaque texte avec sa date et ses sources' },
  obligations: {
    en: 'Obligations: what a producer must do, with deadlines',
    fr: 'Obligations\u00a0: ce que doit faire un producteur, avec les échéances',
  },
  abroad: {
    en: 'Selling from abroad: the producer, the eco-organism, the IDU for marketplaces, the authorised representative, printed paper',
    fr: 'Vendre depuis l’étranger\u00a0: le producteur, l’éco-organisme, l’IDU pour les places de marché, le représentant autorisé, les imprimés',
  },
  glossary: {
    en: 'Glossary: the words of the service, one term per concept, in French and English',
    fr: 'Glossaire\u00a0: les mots du service, un terme par notion, en français et en anglais',
  },
  developers: {
    en: 'Developers: how to get a token, the API in short with examples',
    fr: 'Développeurs\u00a0: obtenir un jeton, l’API en bref avec des exemples',
  },
  problems: {
    en: 'Error types: one page per problem `type` of the API',
    fr: 'Types d’erreur\u00a0: une page par `type` de problème de l’API',
  },
  problem: { en: 'Error type', fr: 'Type d’erreur' },
};

export function renderLlmsTxt(sources: ReferenceDocuments, index: IndexDocument, urls: ReferenceUrls): string {
  const en = LLMS_TEXT.en;
  const fr = LLMS_TEXT.fr;
  const lines: string[] = [];
  lines.push(`# ${index.name}`, '');
  lines.push(`> ${oneLine(index.description.en)} ${en.summary(index.updated)}`, '');
  lines.push(en.verification, '');
  lines.push(en.streams, '');
  for (const stream of sources.streams.streams) {
    lines.push(
      `- \`${stream.code}\`: ${stream.name.en} (${stream.name.fr}), ${stream.legal_item}, ${stream.status}; ` +
        `units ${stream.units.map((u) => `\`${u}\``).join(', ')}; declarations from ${stream.declarable_from}` +
        (stream.declarable_until
          ? ` until ${stream.declarable_until}${stream.replaced_by ? ` (then \`${stream.replaced_by}\`)` : ''}`
          : ''),
    );
    for (const organism of stream.eco_organisms) {
      const tiers = organism.filing?.tiers ?? [];
      if (tiers.length === 0) continue;
      const unit = `\`${organism.filing!.count_unit}\``;
      const bounds = tiers.map((tier) => {
        const range =
          tier.uvc_per_year.below === null
            ? en.noUpperBound(String(tier.uvc_per_year.from), unit)
            : en.range(String(tier.uvc_per_year.from), String(tier.uvc_per_year.below), unit);
        return `${range}: ${tier.label.en} (\`${tier.filing}\`, ${tier.verification})`;
      });
      lines.push(`  - ${organism.name}, ${en.tiers} ${unit}: ${bounds.join('; ')}`);
    }
  }
  lines.push('', 'Units of declaration lines:', '');
  for (const unit of sources.streams.units) lines.push(`- \`${unit.code}\` (${unit.kind}): ${oneLine(unit.meaning.en)}`);
  lines.push('', 'Plans of the service (yearly, VAT excluded):', '');
  for (const plan of sources.pricing.plans) {
    lines.push(
      `- \`${plan.id}\`: ${plan.name}, ${plan.price.amount} ${plan.price.currency} per ${plan.price.billing_period}; ` +
        `streams ${plan.streams.map((s) => `\`${s}\``).join(', ')}`,
    );
  }
  lines.push('', en.whoFiles, '', ...whoFiles(sources, 'en'));
  lines.push('', '## Reference data', '');
  lines.push(
    `- [Index document](${urls.referenceBaseUrl}/${INDEX_FILE}): machine-readable entry point listing every reference file and the client API`,
  );
  for (const name of REFERENCE_DOCUMENTS) {
    const { title, description } = DOCUMENT_TITLES[name];
    lines.push(`- [${title.en}](${index.endpoints[name]}): ${description.en}`);
  }
  lines.push(
    `- [Declaration template](${index.endpoints.declaration_template}): a blank CSV declaration file (header and one example row per unit) ` +
      'to fill in a spreadsheet and send to `POST /declarations?period=…` as `text/csv`',
  );
  lines.push('', '## Pages', '');
  lines.push('The same data as web pages, in English and in French (under `/fr/`):', '');
  for (const page of SITE_PAGES.filter((p) => p.kind !== 'problem')) {
    const language = page.lang === ROOT_LANGUAGE ? '' : ` (${LANGUAGE_REGISTRY.get(page.lang).ownName.toLowerCase()})`;
    lines.push(`- [${PAGE_TITLES[page.kind].en}${language}](${urls.siteUrl}${page.path})`);
  }
  lines.push('', '## Client API', '');
  lines.push(`Base URL: ${index.client_api.base}`, '');
  lines.push(`Authentication: ${CLIENT_AUTH_DESCRIPTION}`, '');
  lines.push(
    ...Object.entries(CLIENT_API_ENDPOINTS).map(([endpoint, description]) => `- \`${endpoint}\`: ${description}`),
    `- [OpenAPI documentation (Swagger UI)](${urls.siteUrl}/docs): every route, schema and error response`,
    `- [OpenAPI document](${urls.siteUrl}/docs/openapi.json): the same, as an OpenAPI 3 JSON file to generate a client from`,
  );
  lines.push('', '## Licence', '');
  lines.push(
    `- [CC BY 4.0](${LICENCE_URL}): the reference content may be shared and adapted with attribution to ${index.name}`,
    ...(index.contact ? [`- Contact: ${index.contact}`] : []),
  );
  lines.push('', `## ${fr.heading}`, '');
  lines.push(`> ${oneLine(index.description.fr)} ${fr.summary(frenchDate(index.updated))}`, '');
  lines.push(fr.verification, '');
  lines.push(fr.streams, '');
  for (const stream of sources.streams.streams) {
    lines.push(
      `- \`${stream.code}\`\u00a0: ${stream.name.fr}, ${stream.legal_item}, ${fr.declarable(frenchDate(stream.declarable_from))}` +
        (stream.declarable_until ? `, ${fr.until(frenchDate(stream.declarable_until), stream.replaced_by)}` : ''),
    );
  }
  lines.push('', fr.whoFiles, '', ...whoFiles(sources, 'fr'));
  lines.push('', fr.files, '');
  for (const name of REFERENCE_DOCUMENTS) {
    const { title, description } = DOCUMENT_TITLES[name];
    lines.push(`- [${title.fr}](${index.endpoints[name]})\u00a0: ${description.fr}`);
  }
  lines.push('', fr.pages, '');
  for (const page of SITE_PAGES.filter((p) => p.kind !== 'problem' && p.lang === 'fr')) {
    lines.push(`- [${PAGE_TITLES[page.kind].fr}](${urls.siteUrl}${page.path})`);
  }
  return `${lines.join('\n')}\n`;
}

/** The statement of who files what (pricing.json `who_files`), one item a line. */
function whoFiles(sources: ReferenceDocuments, lang: Language): string[] {
  const w = sources.pricing.who_files;
  return [w.you_give, w.operator_does, w.you_still_do, w.by_when].map((text) => `- ${oneLine(text[lang])}`);
}

/** An ISO date as French running text writes it: "25 novembre 2026", "1er juillet 2026". */
function frenchDate(iso: string): string {
  const date = new Intl.DateTimeFormat('fr-FR', { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' }).format(
    new Date(`${iso}T00:00:00Z`),
  );
  return date.replace(/^1 /, '1er ');
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
