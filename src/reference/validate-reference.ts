import { Ajv, type ErrorObject } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { escapePointer } from '../common/problem/json-pointer.js';
import {
  REFERENCE_DOCUMENTS,
  SCHEMA_FILES,
  SOURCE_FILES,
  type JsonSchema,
  type ReferenceSources,
  type SourceName,
} from './reference-documents.js';
import { misnamedArticles } from './source-labels.js';
import { CATALOGUE_VERSIONS_FILE, catalogueVersionProblems } from './catalogue-fingerprint.js';
import { LANGUAGE_REGISTRY, localizedTextSchema, type Language } from '../i18n/languages.js';

/** One thing wrong with the reference sources: the file, a JSON pointer into it, and what is wrong. */
export interface ReferenceProblem {
  /** Source file name relative to `reference-data/`, e.g. `streams.yaml`. */
  file: string;
  /** JSON pointer (RFC 6901) into the file's data; `''` for the whole file. */
  path: string;
  message: string;
}

export function formatProblem(problem: ReferenceProblem): string {
  return `${problem.file} ${problem.path === '' ? '/' : problem.path}: ${problem.message}`;
}

/** Thrown when the reference sources are unreadable or invalid; the message lists every problem. */
export class ReferenceValidationError extends Error {
  override name = 'ReferenceValidationError';
  readonly problems: readonly ReferenceProblem[];

  constructor(problems: ReferenceProblem[]) {
    const count = problems.length === 1 ? '1 problem' : `${problems.length} problems`;
    super(`Invalid reference data (${count}):\n${problems.map((p) => `  ${formatProblem(p)}`).join('\n')}`);
    this.problems = problems;
  }
}

/** Schema of `service.yaml` (not published, so it lives here rather than in `reference-data/schemas/`). */
export const SERVICE_SCHEMA: JsonSchema = {
  type: 'object',
  description: 'Self-description of the service, used for the index document and llms.txt.',
  additionalProperties: false,
  required: ['name', 'description', 'updated'],
  properties: {
    name: { type: 'string', minLength: 1, description: 'Name of the service.' },
    description: localizedTextSchema('Short description of the service, in French and English.'),
    updated: { type: 'string', format: 'date', description: 'Date this file was last edited.' },
  },
};

/**
 * Validates the sources: each document against its JSON Schema (ajv, strict, with formats), each schema
 * against the OpenAPI 3.0 subset the API documentation embeds, and the cross-references (law ids, stream
 * codes, unique ids, dates). Returns them unchanged, else throws one `ReferenceValidationError` listing
 * every problem with its file and path.
 */
export function validateReference(sources: ReferenceSources): ReferenceSources {
  const problems: ReferenceProblem[] = [];
  const ajv = createAjv();

  for (const name of REFERENCE_DOCUMENTS) {
    const schema = sources.schemas?.[name];
    const schemaFile = `schemas/${SCHEMA_FILES[name]}`;
    if (!isObject(schema)) {
      problems.push({ file: schemaFile, path: '', message: 'schema is missing' });
      continue;
    }
    const subsetProblems = checkOpenApiSubset(schema, '');
    problems.push(...subsetProblems.map((p) => ({ file: schemaFile, ...p })));
    if (subsetProblems.length > 0) continue;
    schemaProblems(ajv, schema, sources[name], SOURCE_FILES[name], schemaFile, problems);
  }
  schemaProblems(ajv, SERVICE_SCHEMA, sources.service, SOURCE_FILES.service, 'SERVICE_SCHEMA', problems);

  problems.push(...crossReferenceProblems(sources));
  problems.push(...humanTextProblems(sources));
  problems.push(...sourceLinkProblems(sources));

  if (problems.length > 0) throw new ReferenceValidationError(problems);
  return sources;
}

// ------------------------------------------------------------------ source links

/**
 * A source link is printed with the title of the legal text it is (`sourceLabel`): a title naming
 * an article (« article L541-9-5 », « art. 45 ») must lead to that article, not to the whole code,
 * a section or another page. Checked for every source and every law entry's address.
 */
function sourceLinkProblems(sources: ReferenceSources): ReferenceProblem[] {
  const law = items(sources.law, 'law').filter(
    (entry): entry is Json & { url: string; title: { fr: string; en: string } } =>
      typeof entry.url === 'string' && isObject(entry.title) && typeof entry.title.fr === 'string' && typeof entry.title.en === 'string',
  );
  const problems: ReferenceProblem[] = [];
  const check = (file: string, pointer: string, url: string) => {
    for (const lang of LANGUAGES) {
      const wrong = misnamedArticles(url, law, lang as Language);
      if (wrong.length === 0) continue;
      const title = law.filter((entry) => entry.url === url).at(-1)?.title[lang as Language] ?? '';
      problems.push({
        file,
        path: pointer,
        message: `the link is labelled "${title}", which names article ${wrong.join(', ')}, but its address does not lead to that article: link the article itself (Légifrance LEGIARTI…) or label the link as the whole text`,
      });
      return;
    }
  };
  const visit = (file: string, value: unknown, pointer: string) => {
    if (Array.isArray(value)) value.forEach((item, i) => visit(file, item, `${pointer}/${i}`));
    else if (isObject(value))
      for (const [key, child] of Object.entries(value)) {
        const at = `${pointer}/${escapePointer(key)}`;
        if (key === 'sources' && Array.isArray(child)) child.forEach((url, i) => typeof url === 'string' && check(file, `${at}/${i}`, url));
        else if (key === 'url' && typeof child === 'string') check(file, at, child);
        else visit(file, child, at);
      }
  };
  for (const name of REFERENCE_DOCUMENTS) visit(SOURCE_FILES[name], sources[name], '');
  return problems;
}

// ------------------------------------------------------------------ texts for people

/**
 * Every human text of the reference data, per source file, as JSON pointers (`*` = any array
 * index). Each is a `{fr, en}` object with both languages; the build refuses one that lacks a
 * language, whatever the JSON Schemas say, as it refuses a fact without a source. A path that is
 * absent or null is the schemas' business (optional notes, a deadline not set).
 */
export const HUMAN_TEXTS: Record<SourceName, readonly string[]> = {
  streams: [
    '/disclaimer',
    '/units/*/name',
    '/units/*/meaning',
    '/units/*/help',
    '/idu_shape/description',
    '/idu_shape/notes',
    '/streams/*/name',
    '/streams/*/declarable_from_basis',
    '/streams/*/declarable_until_basis',
    '/streams/*/notes',
    '/streams/*/eco_organisms/*/notes',
    '/streams/*/eco_organisms/*/approval_periods/*/notes',
    '/streams/*/eco_organisms/*/filing/notes',
    '/streams/*/eco_organisms/*/filing/tiers/*/label',
    '/streams/*/eco_organisms/*/filing/tiers/*/description',
    '/streams/*/eco_organisms/*/filing/tiers/*/notes',
    '/streams/*/eco_organisms/*/filing/trade_options/*/trades',
    '/streams/*/eco_organisms/*/filing/trade_options/*/description',
    '/streams/*/eco_organisms/*/filing/trade_options/*/notes',
    '/streams/*/eco_organisms/*/filing/calendar/text',
    '/streams/*/eco_organisms/*/filing/invoicing/text',
    '/streams/*/unit_requirements/*/basis',
    '/streams/*/deadlines/*/label',
    '/streams/*/deadlines/*/notes',
    '/streams/*/materials/*/name',
    '/streams/*/materials/*/notes',
    '/streams/*/retired_materials/*/name',
    '/streams/*/packaging_categories/*/name',
    '/streams/*/packaging_categories/*/description',
    '/streams/*/reuse_statuses/*/name',
    '/streams/*/reuse_statuses/*/description',
  ],
  obligations: [
    '/disclaimer',
    '/obligations/*/title',
    '/obligations/*/description',
    '/obligations/*/applies_to',
    '/obligations/*/deadline',
    '/obligations/*/consequence',
    '/selling_from_abroad/title',
    '/selling_from_abroad/lead',
    '/selling_from_abroad/questions/*/question',
    '/selling_from_abroad/questions/*/answer',
    '/selling_from_abroad/questions/*/details',
  ],
  law: ['/disclaimer', '/law/*/title', '/law/*/reference', '/law/*/summary', '/law/*/notes'],
  pricing: [
    '/disclaimer',
    '/who_files/you_give',
    '/who_files/operator_does',
    '/who_files/you_still_do',
    '/who_files/by_when',
    '/plans/*/description',
    '/plans/*/included/support',
  ],
  service: ['/description'],
};

/** The languages of the registry (src/i18n/language-definitions.ts): the required ones have no fallback. */
const LANGUAGES = LANGUAGE_REGISTRY.codes;
const REQUIRED = LANGUAGE_REGISTRY.required;
const REQUIRED_NAMES = REQUIRED.map((code) => LANGUAGE_REGISTRY.get(code).englishName).join(' and in ');
/** Texts of this many words or more are sentences: their French cannot be their English. */
const SENTENCE_WORDS = 4;

/**
 * The texts for people: each path of `HUMAN_TEXTS` holds `{fr, en}`; any `{fr, en}`-like object
 * anywhere has both languages and nothing else; French is written the French way (typographic
 * apostrophe, no-break space before `: ; ? !` and inside « »); a sentence is not the same in both.
 */
function humanTextProblems(sources: ReferenceSources): ReferenceProblem[] {
  const problems: ReferenceProblem[] = [];
  for (const name of Object.keys(SOURCE_FILES) as SourceName[]) {
    const file = SOURCE_FILES[name];
    const document: unknown = sources[name];
    for (const pattern of HUMAN_TEXTS[name]) {
      for (const [pointer, value] of resolveAll(document, pattern)) {
        if (value === undefined || value === null) continue;
        if (!isObject(value))
          problems.push({
            file,
            path: pointer,
            message: `must be a text in French and English ({fr, en}), not ${Array.isArray(value) ? 'an array' : typeof value}`,
          });
        else if (!LANGUAGES.some((lang) => lang in value))
          problems.push({ file, path: pointer, message: 'must be a text in French and English ({fr, en})' });
      }
    }
    walk(document, '', (pointer, value) => {
      if (!LANGUAGES.some((lang) => lang in value)) return;
      problems.push(...localizedProblems(file, pointer, value));
    });
    const named = new Set(problems.filter((problem) => problem.file === file).map((problem) => problem.path));
    problems.push(...strayTextProblems(file, document, '').filter((problem) => !named.has(problem.path)));
  }
  return problems;
}

/**
 * Where a sentence may stand in one language: proper names (the service's, an eco-organism's)
 * and codes. Any other string of `SENTENCE_WORDS` words or more is a text for people, so it must be
 * `{fr, en}` even in a field `HUMAN_TEXTS` does not name yet (a field added to the data).
 */
const ONE_LANGUAGE_KEYS = new Set(['name', 'licence', 'legal_item', 'pattern', 'example', 'contact']);

function strayTextProblems(file: string, value: unknown, pointer: string): ReferenceProblem[] {
  if (Array.isArray(value)) return value.flatMap((item, i) => strayTextProblems(file, item, `${pointer}/${i}`));
  if (isObject(value)) {
    if (LANGUAGES.some((lang) => lang in value)) return [];
    return Object.entries(value).flatMap(([key, child]) =>
      typeof child === 'string' && ONE_LANGUAGE_KEYS.has(key) ? [] : strayTextProblems(file, child, `${pointer}/${escapePointer(key)}`),
    );
  }
  if (typeof value === 'string' && !/^[a-z]+:\/\//i.test(value) && value.trim().split(/\s+/).length >= SENTENCE_WORDS) {
    return [{ file, path: pointer, message: 'a text for people is written in French and in English ({fr, en}), not as one string' }];
  }
  return [];
}

function localizedProblems(file: string, pointer: string, value: Json): ReferenceProblem[] {
  const problems: ReferenceProblem[] = [];
  for (const lang of LANGUAGES) {
    const text = value[lang];
    const name = LANGUAGE_REGISTRY.get(lang).englishName;
    // A language with a declared fallback may lack a text (the page shows the fallback's, marked); never an empty one.
    if ((REQUIRED.includes(lang) || text !== undefined) && (typeof text !== 'string' || text.trim() === '')) {
      problems.push({
        file,
        path: `${pointer}/${lang}`,
        message: `the ${name} text is missing: every text for people is written in ${REQUIRED_NAMES}`,
      });
    }
  }
  for (const key of Object.keys(value)) {
    if (!LANGUAGES.includes(key))
      problems.push({
        file,
        path: `${pointer}/${escapePointer(key)}`,
        message: `a text for people has only ${LANGUAGES.map((code) => `"${code}"`).join(' and ')}`,
      });
  }
  const { en } = value;
  for (const lang of LANGUAGES) {
    const text = value[lang];
    if (typeof text !== 'string') continue;
    if (LANGUAGE_REGISTRY.get(lang).typography === 'french')
      for (const message of frenchTypographyProblems(text)) problems.push({ file, path: `${pointer}/${lang}`, message });
    const required = REQUIRED.includes(lang);
    if (
      required &&
      lang !== 'en' &&
      typeof en === 'string' &&
      text.trim() === en.trim() &&
      text.trim().split(/\s+/).length >= SENTENCE_WORDS
    ) {
      const name = LANGUAGE_REGISTRY.get(lang).englishName;
      problems.push({ file, path: `${pointer}/${lang}`, message: `the ${name} text is the English one: write it in ${name}` });
    }
  }
  return problems;
}

/** What is wrong with a French text's typography, as the site prints it (the texts carry their own spaces). */
export function frenchTypographyProblems(text: string): string[] {
  const problems: string[] = [];
  if (text.includes("'")) problems.push("use the typographic apostrophe ’ in French, not '");
  if (/ [:;?!]/.test(text))
    problems.push(
      'put a no-break space before ":" (U+00A0) and a narrow no-break space before ";", "?" and "!" (U+202F), not an ordinary space',
    );
  if (/[\p{L}\p{N})][;?!]/u.test(text)) problems.push('put a narrow no-break space (U+202F) before ";", "?" and "!"');
  if (/« | »/.test(text)) problems.push('put no-break spaces inside « » (U+00A0), not ordinary spaces');
  return problems;
}

/** Every value at a pointer pattern (`*` = each index of an array), with its concrete pointer. */
function resolveAll(value: unknown, pattern: string): [string, unknown][] {
  let found: [string, unknown][] = [['', value]];
  for (const token of pattern.split('/').slice(1)) {
    const next: [string, unknown][] = [];
    for (const [pointer, node] of found) {
      if (token === '*') list(node).forEach((item, i) => next.push([`${pointer}/${i}`, item]));
      else if (isObject(node)) next.push([`${pointer}/${escapePointer(token)}`, node[token]]);
    }
    found = next;
  }
  return found;
}

/** Calls `visit` on every object of `value` (depth first), with its JSON pointer. */
function walk(value: unknown, pointer: string, visit: (pointer: string, value: Json) => void): void {
  if (Array.isArray(value)) value.forEach((item, i) => walk(item, `${pointer}/${i}`, visit));
  else if (isObject(value)) {
    visit(pointer, value);
    for (const [key, child] of Object.entries(value)) walk(child, `${pointer}/${escapePointer(key)}`, visit);
  }
}

// ------------------------------------------------------------------ JSON Schema

function createAjv(): Ajv {
  // `nullable` is built into ajv (OpenAPI); `example` is an annotation we allow.
  const ajv = new Ajv({ strict: true, allErrors: true, keywords: ['example'] });
  // ajv-formats is CommonJS: under Node ESM the default import is `module.exports`, whose `default` is the plugin.
  addFormatsModule.default(ajv);
  return ajv;
}

function schemaProblems(ajv: Ajv, schema: JsonSchema, data: unknown, file: string, schemaFile: string, problems: ReferenceProblem[]): void {
  let validate;
  try {
    validate = ajv.compile(schema);
  } catch (error) {
    problems.push({ file: schemaFile, path: '', message: `invalid schema: ${(error as Error).message}` });
    return;
  }
  if (data === undefined) {
    problems.push({ file, path: '', message: 'file is missing or empty' });
    return;
  }
  if (!validate(data)) {
    for (const error of validate.errors ?? []) problems.push({ file, ...describeAjvError(error) });
  }
}

function describeAjvError(error: ErrorObject): { path: string; message: string } {
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return { path: `${error.instancePath}/${escapePointer(String(params.missingProperty))}`, message: 'is required' };
    case 'additionalProperties':
      return {
        path: `${error.instancePath}/${escapePointer(String(params.additionalProperty))}`,
        message: 'is not an allowed property',
      };
    case 'enum':
      return {
        path: error.instancePath,
        message: `must be one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`,
      };
    default:
      return { path: error.instancePath, message: error.message ?? error.keyword };
  }
}

/** Keywords the OpenAPI 3.0 Schema Object does not support (or that we keep out). */
const FORBIDDEN_KEYWORDS = [
  '$schema',
  '$id',
  '$ref',
  '$defs',
  '$anchor',
  '$dynamicRef',
  'definitions',
  'const',
  'examples',
  'prefixItems',
  'contains',
  'if',
  'then',
  'else',
  'patternProperties',
  'propertyNames',
  'unevaluatedProperties',
  'unevaluatedItems',
  'dependentRequired',
  'dependentSchemas',
];

/** Problems that would stop the schema being embedded as an OpenAPI 3.0 Schema Object. */
function checkOpenApiSubset(schema: unknown, path: string): { path: string; message: string }[] {
  if (!isObject(schema)) return [{ path, message: 'must be a schema object' }];
  const problems: { path: string; message: string }[] = [];
  for (const keyword of FORBIDDEN_KEYWORDS) {
    if (keyword in schema)
      problems.push({ path: `${path}/${escapePointer(keyword)}`, message: `keyword "${keyword}" is not allowed (OpenAPI 3.0 subset)` });
  }
  if ('type' in schema && typeof schema.type !== 'string') {
    problems.push({ path: `${path}/type`, message: 'must be a single type name (use "nullable: true" for null)' });
  }
  if (typeof schema.description !== 'string') problems.push({ path, message: 'must have a description' });
  if (schema.type === 'object') {
    if (schema.additionalProperties !== false) {
      problems.push({ path, message: 'object schemas must set "additionalProperties: false"' });
    }
    if (isObject(schema.properties)) {
      for (const [key, sub] of Object.entries(schema.properties)) {
        problems.push(...checkOpenApiSubset(sub, `${path}/properties/${escapePointer(key)}`));
      }
    }
  }
  if (schema.type === 'array') {
    if (!isObject(schema.items)) problems.push({ path, message: 'array schemas must have an "items" schema' });
    else problems.push(...checkOpenApiSubset(schema.items, `${path}/items`));
  }
  return problems;
}

// ------------------------------------------------------------------ cross-references

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function items(document: unknown, key: string): Json[] {
  return list(isObject(document) ? document[key] : undefined).map((item) => (isObject(item) ? item : {}));
}

function strings(value: unknown): (string | undefined)[] {
  return list(value).map((item) => (typeof item === 'string' ? item : undefined));
}

/** The ISO date after `date`. */
function nextDay(date: string): string {
  const next = new Date(`${date}T00:00:00Z`);
  next.setUTCDate(next.getUTCDate() + 1);
  return next.toISOString().slice(0, 10);
}

function isDate(value: unknown): value is string {
  return typeof value === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(value);
}

/** Reports duplicates of `key` among `entries`; returns the set of values seen. */
function unique(entries: Json[], key: string, file: string, base: string, what: string, problems: ReferenceProblem[]): Set<string> {
  const firstAt = new Map<string, number>();
  entries.forEach((entry, index) => {
    const value = entry[key];
    if (typeof value !== 'string') return;
    const first = firstAt.get(value);
    if (first === undefined) firstAt.set(value, index);
    else problems.push({ file, path: `${base}/${index}/${key}`, message: `duplicate ${what} "${value}" (first at ${base}/${first})` });
  });
  return new Set(firstAt.keys());
}

/**
 * An eco-organism's filing scheme: its count unit is one of the stream's units; its tiers cover
 * every yearly count from 0, lowest first, without a gap or an overlap (so a count falls in exactly
 * one tier); a flat-fee tier states its fee; ids are unique.
 */
function filingProblems(filing: Json, streamUnits: Set<string | undefined>, base: string): ReferenceProblem[] {
  const problems: ReferenceProblem[] = [];
  const file = SOURCE_FILES.streams;
  if (typeof filing.count_unit === 'string' && !streamUnits.has(filing.count_unit)) {
    problems.push({ file, path: `${base}/count_unit`, message: `"${filing.count_unit}" is not one of the stream's units` });
  }
  const tiers = items(filing, 'tiers');
  unique(tiers, 'id', file, `${base}/tiers`, 'tier id', problems);
  unique(items(filing, 'trade_options'), 'id', file, `${base}/trade_options`, 'trade option id', problems);
  let expectedFrom: number | null = 0;
  tiers.forEach((tier, k) => {
    const at = `${base}/tiers/${k}`;
    const bounds = isObject(tier.uvc_per_year) ? tier.uvc_per_year : {};
    const { from, below } = bounds;
    if (typeof from === 'number' && from !== expectedFrom) {
      problems.push({
        file,
        path: `${at}/uvc_per_year/from`,
        message:
          expectedFrom === null
            ? 'follows a tier without an upper bound'
            : `must be ${expectedFrom}: the tiers cover every yearly count from 0, without a gap or an overlap`,
      });
    }
    if (typeof from === 'number' && typeof below === 'number' && below <= from) {
      problems.push({ file, path: `${at}/uvc_per_year/below`, message: `must be above from (${from})` });
    }
    if (below === null && k !== tiers.length - 1) {
      problems.push({ file, path: `${at}/uvc_per_year/below`, message: 'only the last tier has no upper bound' });
    }
    if (k === tiers.length - 1 && typeof below === 'number') {
      problems.push({
        file,
        path: `${at}/uvc_per_year/below`,
        message: 'the last tier has no upper bound (null): every yearly count falls in a tier',
      });
    }
    expectedFrom = typeof below === 'number' ? below : null;
    if (tier.filing === 'flat_fee' && tier.fee === null)
      problems.push({ file, path: `${at}/fee`, message: 'a flat-fee tier states its fee' });
  });
  return problems;
}

function crossReferenceProblems(sources: ReferenceSources): ReferenceProblem[] {
  const problems: ReferenceProblem[] = [];
  const streamsFile = SOURCE_FILES.streams;
  const lawFile = SOURCE_FILES.law;
  const obligationsFile = SOURCE_FILES.obligations;
  const pricingFile = SOURCE_FILES.pricing;

  const streams = items(sources.streams, 'streams');
  const law = items(sources.law, 'law');
  const obligations = items(sources.obligations, 'obligations');
  const plans = items(sources.pricing, 'plans');

  const streamCodes = unique(streams, 'code', streamsFile, '/streams', 'stream code', problems);
  const lawIds = unique(law, 'id', lawFile, '/law', 'law id', problems);
  unique(obligations, 'id', obligationsFile, '/obligations', 'obligation id', problems);
  const abroad = items(isObject(sources.obligations) ? sources.obligations.selling_from_abroad : undefined, 'questions');
  unique(abroad, 'id', obligationsFile, '/selling_from_abroad/questions', 'question id', problems);
  unique(plans, 'id', pricingFile, '/plans', 'plan id', problems);

  const lawStreams = new Map<string, Set<string>>();
  for (const entry of law) {
    if (typeof entry.id === 'string') lawStreams.set(entry.id, new Set(strings(entry.streams).filter((s) => s !== undefined)));
  }
  const streamLaw = new Map<string, Set<string>>();
  for (const stream of streams) {
    if (typeof stream.code === 'string') streamLaw.set(stream.code, new Set(strings(stream.law).filter((s) => s !== undefined)));
  }

  const checkRefs = (
    values: unknown,
    known: Set<string>,
    file: string,
    path: string,
    what: string,
    extra?: (value: string, pointer: string) => void,
  ) => {
    strings(values).forEach((value, index) => {
      if (value === undefined) return;
      const pointer = `${path}/${index}`;
      if (!known.has(value)) problems.push({ file, path: pointer, message: `unknown ${what} "${value}"` });
      else extra?.(value, pointer);
    });
  };

  streams.forEach((stream, i) => {
    const base = `/streams/${i}`;
    const code = typeof stream.code === 'string' ? stream.code : undefined;
    checkRefs(stream.law, lawIds, streamsFile, `${base}/law`, 'law id', (id, pointer) => {
      if (code !== undefined && !lawStreams.get(id)?.has(code)) {
        problems.push({ file: streamsFile, path: pointer, message: `law entry "${id}" does not list stream "${code}" in its streams` });
      }
    });
    unique(items(stream, 'materials'), 'code', streamsFile, `${base}/materials`, 'material code', problems);
    unique(items(stream, 'packaging_categories'), 'code', streamsFile, `${base}/packaging_categories`, 'packaging category', problems);
    unique(items(stream, 'reuse_statuses'), 'code', streamsFile, `${base}/reuse_statuses`, 'reuse status', problems);
    unique(items(stream, 'eco_organisms'), 'name', streamsFile, `${base}/eco_organisms`, 'eco-organism', problems);

    const unitCodes = new Set(items(sources.streams, 'units').map((unit) => unit.code));
    checkRefs(stream.units, unitCodes as Set<string>, streamsFile, `${base}/units`, 'unit (not in the top-level units)');
    const streamUnits = new Set(strings(stream.units));
    items(stream, 'unit_requirements').forEach((requirement, j) => {
      for (const key of ['unit', 'requires']) {
        if (!streamUnits.has(requirement[key] as string)) {
          problems.push({
            file: streamsFile,
            path: `${base}/unit_requirements/${j}/${key}`,
            message: `"${String(requirement[key])}" is not one of the stream's units`,
          });
        }
      }
    });
    const materialCodes = new Set(items(stream, 'materials').map((m) => m.code));
    items(stream, 'retired_materials').forEach((retired, j) => {
      if (materialCodes.has(retired.code)) {
        problems.push({
          file: streamsFile,
          path: `${base}/retired_materials/${j}/code`,
          message: `"${String(retired.code)}" is retired and published at once`,
        });
      }
      checkRefs(
        retired.replaced_by,
        materialCodes as Set<string>,
        streamsFile,
        `${base}/retired_materials/${j}/replaced_by`,
        'material code',
      );
    });
    if (stream.replaced_by !== null && stream.replaced_by !== undefined && !streamCodes.has(stream.replaced_by as string)) {
      problems.push({ file: streamsFile, path: `${base}/replaced_by`, message: `unknown stream code "${String(stream.replaced_by)}"` });
    }
    if ((stream.declarable_until === null) !== (stream.declarable_until_basis === null)) {
      problems.push({
        file: streamsFile,
        path: `${base}/declarable_until_basis`,
        message: 'declarable_until and its basis go together (both null or both set)',
      });
    }
    if (isDate(stream.declarable_until) && isDate(stream.declarable_from) && stream.declarable_until < stream.declarable_from) {
      problems.push({
        file: streamsFile,
        path: `${base}/declarable_until`,
        message: `is before declarable_from ${stream.declarable_from}`,
      });
    }
    if (stream.status === 'upcoming' && stream.start_date === null) {
      problems.push({ file: streamsFile, path: `${base}/start_date`, message: 'an upcoming stream needs a start date' });
    }
    if (isDate(stream.start_date) && isDate(stream.declarable_from) && stream.declarable_from < stream.start_date) {
      problems.push({
        file: streamsFile,
        path: `${base}/declarable_from`,
        message: `is before the stream's start date ${stream.start_date}`,
      });
    }
    items(stream, 'eco_organisms').forEach((organism, j) => {
      const at = `${base}/eco_organisms/${j}/approval`;
      const approval = organism.approval;
      // Never publish an ended approval as in force: the file's `checked` date is "today" for the data.
      const checkedOn = isObject(sources.streams) ? sources.streams.checked : undefined;
      const approvalKnown = organism.role === 'approved' || organism.role === 'coordinating_body';
      if (approvalKnown && isObject(approval) && isDate(approval.to) && isDate(checkedOn) && approval.to < checkedOn) {
        problems.push({
          file: streamsFile,
          path: `${at}/to`,
          message: `the approval ended on ${approval.to}, before the file was checked (${checkedOn}): do not publish it as in force`,
        });
      }
      if (approvalKnown && approval === null) {
        problems.push({ file: streamsFile, path: at, message: 'an approved eco-organism needs its known approval period' });
      }
      if (!approvalKnown && approval !== null && approval !== undefined) {
        problems.push({
          file: streamsFile,
          path: at,
          message: `an eco-organism whose role is "${String(organism.role)}" has no known approval period (use null)`,
        });
      }
      const periods = items(organism, 'approval_periods');
      if (periods.length > 0 && isObject(approval)) {
        // The periods follow each other without a gap and make up the published approval exactly.
        periods.forEach((period, k) => {
          const previous = periods[k - 1];
          const expected = k === 0 ? approval.from : isDate(previous?.to) ? nextDay(previous.to) : undefined;
          if (expected !== undefined && period.from !== expected)
            problems.push({
              file: streamsFile,
              path: `${base}/eco_organisms/${j}/approval_periods/${k}/from`,
              message: `must be ${expected}`,
            });
        });
        if (periods.at(-1)?.to !== approval.to)
          problems.push({
            file: streamsFile,
            path: `${base}/eco_organisms/${j}/approval_periods/${periods.length - 1}/to`,
            message: `must be the approval's end ${String(approval.to)}`,
          });
      }
      if (isObject(organism.filing)) problems.push(...filingProblems(organism.filing, streamUnits, `${base}/eco_organisms/${j}/filing`));
      if (isObject(approval) && isDate(approval.from) && isDate(approval.to) && approval.to < approval.from) {
        problems.push({ file: streamsFile, path: `${at}/to`, message: `is before the approval start ${approval.from}` });
      }
    });
  });

  if (isObject(sources.streams) && isObject(sources.streams.idu_shape)) {
    const shape = sources.streams.idu_shape;
    let pattern: RegExp | undefined;
    try {
      pattern = new RegExp(String(shape.pattern));
    } catch (error) {
      problems.push({ file: streamsFile, path: '/idu_shape/pattern', message: `is not a regular expression: ${(error as Error).message}` });
    }
    if (pattern && typeof shape.example === 'string' && !pattern.test(shape.example)) {
      problems.push({ file: streamsFile, path: '/idu_shape/example', message: `does not match the pattern ${String(shape.pattern)}` });
    }
  }

  law.forEach((entry, i) => {
    const id = typeof entry.id === 'string' ? entry.id : undefined;
    checkRefs(entry.streams, streamCodes, lawFile, `/law/${i}/streams`, 'stream code', (code, pointer) => {
      if (id !== undefined && !streamLaw.get(code)?.has(id)) {
        problems.push({ file: lawFile, path: pointer, message: `stream "${code}" does not list law id "${id}" in its law` });
      }
    });
  });

  obligations.forEach((obligation, i) => {
    checkRefs(obligation.streams, streamCodes, obligationsFile, `/obligations/${i}/streams`, 'stream code');
    checkRefs(obligation.legal_basis, lawIds, obligationsFile, `/obligations/${i}/legal_basis`, 'law id');
  });
  abroad.forEach((question, i) => {
    checkRefs(question.legal_basis, lawIds, obligationsFile, `/selling_from_abroad/questions/${i}/legal_basis`, 'law id');
  });

  plans.forEach((plan, i) => {
    checkRefs(plan.streams, streamCodes, pricingFile, `/plans/${i}/streams`, 'stream code');
  });

  // A stream clients may declare is sold in a plan and says what it obliges to: else nobody could file it, or know why.
  const planned = new Set(plans.flatMap((plan) => strings(plan.streams)));
  const obliged = new Set(obligations.flatMap((obligation) => strings(obligation.streams)));
  streams.forEach((stream, i) => {
    if (stream.status !== 'active' || typeof stream.code !== 'string') return;
    if (!planned.has(stream.code))
      problems.push({
        file: streamsFile,
        path: `/streams/${i}/status`,
        message: `active stream "${stream.code}" is in no plan of ${pricingFile}`,
      });
    if (!obliged.has(stream.code))
      problems.push({
        file: streamsFile,
        path: `/streams/${i}/status`,
        message: `active stream "${stream.code}" has no obligation in ${obligationsFile}`,
      });
  });

  if (sources.catalogue_versions !== undefined)
    problems.push(
      ...catalogueVersionProblems(sources.streams, sources.catalogue_versions).map((p) => ({ file: CATALOGUE_VERSIONS_FILE, ...p })),
    );

  return problems;
}
