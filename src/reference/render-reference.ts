import {
  CLIENT_API_ENDPOINTS,
  INDEX_FILE,
  LLMS_FILE,
  REFERENCE_DOCUMENTS,
  contentTypeOf,
  type IndexDocument,
  type JsonSchema,
  type PublishedFileName,
  type ReferenceDocumentName,
  type ReferenceSources,
  type ReferenceUrls,
  type RenderedFile,
  TEMPLATE_FILE,
} from './reference-documents.js';
import { writeDeclarationCsv } from '../declarations/csv/declaration-csv-writer.js';
import { validateReference } from './validate-reference.js';
import { SITE_PAGES } from '../site/site-pages.js';

const LICENCE_URL = 'https://creativecommons.org/licenses/by/4.0/';

/** The sentence the index document and llms.txt use to describe client authentication. */
export const CLIENT_AUTH_DESCRIPTION =
  'Each client system sends its own token in the header "Authorization: Bearer <token>" (RFC 6750). ' +
  'The operator issues the token during onboarding; it is shown once and the service stores only its SHA-256 hash.';

const DOCUMENT_TITLES: Record<ReferenceDocumentName, { title: string; description: string }> = {
  pricing: {
    title: 'Pricing',
    description: "the service's own plans and yearly prices (EUR, VAT excluded), not eco-organism tariffs",
  },
  streams: {
    title: 'Streams',
    description: 'the EPR streams the service accepts, with eco-organisms, units and material codes',
  },
  law: {
    title: 'Law',
    description: 'French and EU legal texts on packaging EPR, each with its reference, date, official URL and sources',
  },
  obligations: {
    title: 'Obligations',
    description: 'what a packaging producer must do in France, with legal basis, periodicity and deadlines where sourced',
  },
};

/** Titles of the site's pages in llms.txt (each problem type has its own page, linked from `problems`). */
const PAGE_TITLES: Record<(typeof SITE_PAGES)[number]['kind'], string> = {
  home: 'Home',
  pricing: 'Pricing',
  streams: 'Streams: units, material categories, eco-organisms, legal basis',
  law: 'Law: each legal text with its date and sources',
  obligations: 'Obligations: what a producer must do, with deadlines',
  developers: 'Developers: how to get a token, the API in short with examples',
  problems: 'Error types: one page per problem `type` of the API',
  problem: 'Error type',
};

/**
 * Renders every published file from the sources: the four reference
 * documents, the index document and llms.txt. The sources are validated first
 * (a `ReferenceValidationError` is thrown if they are not valid).
 *
 * Deterministic: the output depends only on the sources and the URLs.
 */
export function renderReference(sources: ReferenceSources, urls: ReferenceUrls): RenderedFile[] {
  validateReference(sources);
  const base = normaliseUrls(urls);

  const files: [PublishedFileName, string][] = REFERENCE_DOCUMENTS.map((name) => [
    `${name}.json`,
    toJson(orderBySchema(sources[name], sources.schemas[name])),
  ]);
  const index = buildIndexDocument(sources, base);
  files.push([INDEX_FILE, toJson(index)]);
  files.push([LLMS_FILE, renderLlmsTxt(sources, index, base)]);

  const rendered = files.map(([name, text]) => ({ name, body: Buffer.from(text, 'utf8'), contentType: contentTypeOf(name) }));
  return [...rendered, { name: TEMPLATE_FILE, body: renderDeclarationTemplate(sources), contentType: contentTypeOf(TEMPLATE_FILE) }];
}

/**
 * The blank declaration file: the header and, for each unit the streams publish, one example row
 * (the first stream that allows it, its first material category). The quantity is a whole number,
 * valid in any unit.
 */
export function renderDeclarationTemplate(sources: Pick<ReferenceSources, 'streams'>): Buffer {
  const examples = new Map<string, { stream: string; material: string; unit: string; quantity: string }>();
  for (const stream of sources.streams.streams) {
    for (const unit of stream.units) {
      if (!examples.has(unit)) examples.set(unit, { stream: stream.code, material: stream.materials[0]?.name.fr ?? '', unit, quantity: '1250' });
    }
  }
  return writeDeclarationCsv([...examples.values()]);
}

/** The index document, with its fields in the order of the seed specification. */
export function buildIndexDocument(sources: ReferenceSources, urls: ReferenceUrls): IndexDocument {
  const base = normaliseUrls(urls);
  const endpoints = Object.fromEntries(
    REFERENCE_DOCUMENTS.map((name) => [name, `${base.referenceBaseUrl}/${name}.json`]),
  ) as Record<ReferenceDocumentName, string>;
  return {
    name: sources.service.name,
    version: 'v1',
    updated: latestUpdate(sources),
    description: sources.service.description,
    endpoints: { ...endpoints, declaration_template: `${base.referenceBaseUrl}/${TEMPLATE_FILE}` },
    client_api: {
      base: base.clientBaseUrl,
      auth: CLIENT_AUTH_DESCRIPTION,
      endpoints: Object.keys(CLIENT_API_ENDPOINTS),
    },
    markdown: `${base.siteUrl}/${LLMS_FILE}`,
    licence: 'CC BY 4.0',
    contact: sources.service.contact,
  };
}

/** The latest `updated` date of all sources (ISO dates compare as strings). */
export function latestUpdate(sources: ReferenceSources): string {
  const dates = [...REFERENCE_DOCUMENTS.map((name) => sources[name].updated), sources.service.updated];
  return dates.reduce((latest, date) => (date > latest ? date : latest));
}

function renderLlmsTxt(sources: ReferenceSources, index: IndexDocument, urls: ReferenceUrls): string {
  const lines: string[] = [];
  lines.push(`# ${index.name}`, '');
  lines.push(
    `> ${oneLine(index.description)} The reference data needs no key, was last updated on ${index.updated} ` +
      'and is published under the CC BY 4.0 licence.',
    '',
  );
  lines.push(
    'Every legal reference, date, eco-organism, material line and deadline carries its source URLs, a `verification` label ' +
      '(`official_text`: read in an official text, `secondary_source`: read in a secondary source only, or `unverified`) ' +
      'and the date it was last `checked` against them. This is not legal advice: check against the official texts.',
    '',
  );
  lines.push('Streams the service accepts:', '');
  for (const stream of sources.streams.streams) {
    lines.push(
      `- \`${stream.code}\`: ${stream.name.en} (${stream.name.fr}), ${stream.legal_item}, ${stream.status}; ` +
        `units ${stream.units.map((u) => `\`${u}\``).join(', ')}; declarations from ${stream.declarable_from}` +
        (stream.declarable_until ? ` until ${stream.declarable_until}${stream.replaced_by ? ` (then \`${stream.replaced_by}\`)` : ''}` : ''),
    );
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
  lines.push('', '## Reference data', '');
  lines.push(
    `- [Index document](${urls.referenceBaseUrl}/${INDEX_FILE}): machine-readable entry point listing every reference file and the client API`,
  );
  for (const name of REFERENCE_DOCUMENTS) {
    const { title, description } = DOCUMENT_TITLES[name];
    lines.push(`- [${title}](${index.endpoints[name]}): ${description}`);
  }
  lines.push(
    `- [Declaration template](${index.endpoints.declaration_template}): a blank CSV declaration file (header and one example row per unit) ` +
      'to fill in a spreadsheet and send to `POST /declarations?period=…` as `text/csv`',
  );
  lines.push('', '## Pages', '');
  lines.push('The same data as web pages, in English and in French (under `/fr/`):', '');
  for (const page of SITE_PAGES.filter((p) => p.kind !== 'problem')) {
    lines.push(`- [${PAGE_TITLES[page.kind]}${page.lang === 'fr' ? ' (français)' : ''}](${urls.siteUrl}${page.path})`);
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
    `- Contact: ${index.contact}`,
  );
  return `${lines.join('\n')}\n`;
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function normaliseUrls(urls: ReferenceUrls): ReferenceUrls {
  const clean = (name: keyof ReferenceUrls): string => {
    const value = urls[name];
    let parsed: URL;
    try {
      parsed = new URL(value);
    } catch {
      throw new TypeError(`${name} must be an absolute URL, got ${JSON.stringify(value)}`);
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
      throw new TypeError(`${name} must be an http(s) URL, got ${JSON.stringify(value)}`);
    }
    return value.replace(/\/+$/, '');
  };
  return { referenceBaseUrl: clean('referenceBaseUrl'), clientBaseUrl: clean('clientBaseUrl'), siteUrl: clean('siteUrl') };
}

function toJson(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

/**
 * A copy of `value` whose object keys follow the order of the schema's
 * `properties`, so the published JSON does not depend on how the YAML source
 * orders its keys.
 */
function orderBySchema(value: unknown, schema: JsonSchema | undefined): unknown {
  if (Array.isArray(value)) {
    const itemSchema = isSchema(schema?.items) ? schema.items : undefined;
    return value.map((item) => orderBySchema(item, itemSchema));
  }
  if (typeof value !== 'object' || value === null) return value;
  const properties = isSchema(schema?.properties) ? (schema.properties as Record<string, JsonSchema>) : {};
  const source = value as Record<string, unknown>;
  const ordered: Record<string, unknown> = {};
  for (const key of [...Object.keys(properties), ...Object.keys(source).filter((k) => !(k in properties))]) {
    if (key in source) ordered[key] = orderBySchema(source[key], properties[key]);
  }
  return ordered;
}

function isSchema(value: unknown): value is JsonSchema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
