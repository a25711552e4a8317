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
  type Stream,
  TEMPLATE_FILE,
} from './reference-documents.js';
import { CSV_DIALECTS, type CsvDialectName } from '../common/csv/csv-dialect.js';
import { type CsvLine, writeDeclarationTemplate } from '../common/csv/declaration-file.js';
import { MESSAGES } from '../i18n/messages/index.js';
import { validateReference } from './validate-reference.js';

/** The sentence the index document and llms.txt use to describe client authentication. */
export const CLIENT_AUTH_DESCRIPTION =
  'Each client system sends its own token in the header "Authorization: Bearer <token>" (RFC 6750). ' +
  'The operator issues the token during onboarding; it is shown once and the service stores only its SHA-256 hash.';

/**
 * Renders every published file from the sources: the four reference
 * documents, the index document and the declaration template (llms.txt, which lists the site's
 * pages, is the site's: src/site/llms-txt.ts). The sources are validated first
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

  const rendered = files.map(([name, text]) => ({ name, body: Buffer.from(text, 'utf8'), contentType: contentTypeOf(name) }));
  return [
    ...rendered,
    { name: TEMPLATE_FILE, body: renderDeclarationTemplate(sources.streams.streams), contentType: contentTypeOf(TEMPLATE_FILE) },
  ];
}

/**
 * The blank declaration file in a dialect, its words in that dialect's language: the header, a note,
 * and for each unit the streams publish one example row (the first stream that allows it, its first
 * material category), commented so that a file sent with its examples left in files none of them
 * (common/csv/declaration-file.ts). The quantity is a whole number, valid in any unit.
 */
export function renderDeclarationTemplate(
  streams: readonly Pick<Stream, 'code' | 'units' | 'materials'>[],
  dialectName: CsvDialectName = 'en',
): Buffer {
  const examples = new Map<string, CsvLine>();
  for (const stream of streams) {
    for (const unit of stream.units) {
      if (!examples.has(unit))
        examples.set(unit, { stream: stream.code, material: stream.materials[0]?.name[dialectName] ?? '', unit, quantity: '1250' });
    }
  }
  return writeDeclarationTemplate([...examples.values()], MESSAGES[dialectName].files.templateNote, CSV_DIALECTS[dialectName]);
}

/** What the index document is made of: the documents' dates and the service's description. */
type IndexSources = Pick<ReferenceSources, ReferenceDocumentName | 'service'>;

/**
 * The index document's bytes for other URLs than the build's, from the documents and the service's
 * description as the build validated them (the service re-renders only this file at start-up).
 */
export function renderIndexDocument(sources: IndexSources, urls: ReferenceUrls): Buffer {
  return Buffer.from(toJson(buildIndexDocument(sources, urls)), 'utf8');
}

/** The index document, with its fields in the order of the seed specification. */
export function buildIndexDocument(sources: IndexSources, urls: ReferenceUrls): IndexDocument {
  const base = normaliseUrls(urls);
  const endpoints = Object.fromEntries(REFERENCE_DOCUMENTS.map((name) => [name, `${base.referenceBaseUrl}/${name}.json`])) as Record<
    ReferenceDocumentName,
    string
  >;
  return {
    name: sources.service.name,
    version: 'v1',
    updated: latestUpdate(sources),
    // In a fixed key order, whatever the order of the source.
    description: { fr: sources.service.description.fr, en: sources.service.description.en },
    endpoints: { ...endpoints, declaration_template: `${base.referenceBaseUrl}/${TEMPLATE_FILE}` },
    client_api: {
      base: base.clientBaseUrl,
      auth: CLIENT_AUTH_DESCRIPTION,
      endpoints: Object.keys(CLIENT_API_ENDPOINTS),
    },
    markdown: `${base.siteUrl}/${LLMS_FILE}`,
    licence: 'CC BY 4.0',
    contact: urls.contact ?? null,
  };
}

/** The latest `updated` date of all sources (ISO dates compare as strings). */
export function latestUpdate(sources: IndexSources): string {
  const dates = [...REFERENCE_DOCUMENTS.map((name) => sources[name].updated), sources.service.updated];
  return dates.reduce((latest, date) => (date > latest ? date : latest));
}

function normaliseUrls(urls: ReferenceUrls): ReferenceUrls {
  const clean = (name: 'referenceBaseUrl' | 'clientBaseUrl' | 'siteUrl'): string => {
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
  return {
    referenceBaseUrl: clean('referenceBaseUrl'),
    clientBaseUrl: clean('clientBaseUrl'),
    siteUrl: clean('siteUrl'),
    contact: urls.contact ?? null,
  };
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
