import { Ajv, type ErrorObject } from 'ajv';
import addFormatsModule from 'ajv-formats';
import {
  REFERENCE_DOCUMENTS,
  SCHEMA_FILES,
  SOURCE_FILES,
  type JsonSchema,
  type ReferenceSources,
} from './reference-documents.js';

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
  required: ['name', 'description', 'contact', 'updated'],
  properties: {
    name: { type: 'string', minLength: 1, description: 'Name of the service.' },
    description: { type: 'string', minLength: 1, description: 'Short description of the service.' },
    contact: { type: 'string', format: 'email', description: 'Contact address of the operator.' },
    updated: { type: 'string', format: 'date', description: 'Date this file was last edited.' },
  },
};

/**
 * Validates the sources: each document against its JSON Schema (ajv, strict
 * mode, with formats), each schema against the OpenAPI 3.0 subset the API
 * documentation embeds, and the cross-references between documents (law ids,
 * stream codes, unique ids, date consistency).
 *
 * Returns the sources unchanged when they are valid; otherwise throws one
 * `ReferenceValidationError` listing every problem with its file and path.
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

  if (problems.length > 0) throw new ReferenceValidationError(problems);
  return sources;
}

// ------------------------------------------------------------------ JSON Schema

function createAjv(): Ajv {
  // `nullable` is built into ajv (OpenAPI); `example` is an annotation we allow.
  const ajv = new Ajv({ strict: true, allErrors: true, keywords: ['example'] });
  // ajv-formats is CommonJS: under Node ESM the default import is `module.exports`, whose `default` is the plugin.
  addFormatsModule.default(ajv);
  return ajv;
}

function schemaProblems(
  ajv: Ajv,
  schema: JsonSchema,
  data: unknown,
  file: string,
  schemaFile: string,
  problems: ReferenceProblem[],
): void {
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

function escapePointer(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
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
    if (keyword in schema) problems.push({ path: `${path}/${escapePointer(keyword)}`, message: `keyword "${keyword}" is not allowed (OpenAPI 3.0 subset)` });
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
    unique(items(stream, 'eco_organisms'), 'name', streamsFile, `${base}/eco_organisms`, 'eco-organism', problems);

    const unitCodes = new Set(items(sources.streams, 'units').map((unit) => unit.code));
    checkRefs(stream.units, unitCodes as Set<string>, streamsFile, `${base}/units`, 'unit (not in the top-level units)');
    const streamUnits = new Set(strings(stream.units));
    items(stream, 'unit_requirements').forEach((requirement, j) => {
      for (const key of ['unit', 'requires']) {
        if (!streamUnits.has(requirement[key] as string)) {
          problems.push({ file: streamsFile, path: `${base}/unit_requirements/${j}/${key}`, message: `"${String(requirement[key])}" is not one of the stream's units` });
        }
      }
    });
    const materialCodes = new Set(items(stream, 'materials').map((m) => m.code));
    items(stream, 'retired_materials').forEach((retired, j) => {
      if (materialCodes.has(retired.code)) {
        problems.push({ file: streamsFile, path: `${base}/retired_materials/${j}/code`, message: `"${String(retired.code)}" is retired and published at once` });
      }
      checkRefs(retired.replaced_by, materialCodes as Set<string>, streamsFile, `${base}/retired_materials/${j}/replaced_by`, 'material code');
    });
    if (stream.replaced_by !== null && stream.replaced_by !== undefined && !streamCodes.has(stream.replaced_by as string)) {
      problems.push({ file: streamsFile, path: `${base}/replaced_by`, message: `unknown stream code "${String(stream.replaced_by)}"` });
    }
    if ((stream.declarable_until === null) !== (stream.declarable_until_basis === null)) {
      problems.push({ file: streamsFile, path: `${base}/declarable_until_basis`, message: 'declarable_until and its basis go together (both null or both set)' });
    }
    if (isDate(stream.declarable_until) && isDate(stream.declarable_from) && stream.declarable_until < stream.declarable_from) {
      problems.push({ file: streamsFile, path: `${base}/declarable_until`, message: `is before declarable_from ${stream.declarable_from}` });
    }
    if (stream.status === 'upcoming' && stream.start_date === null) {
      problems.push({ file: streamsFile, path: `${base}/start_date`, message: 'an upcoming stream needs a start date' });
    }
    if (isDate(stream.start_date) && isDate(stream.declarable_from) && stream.declarable_from < stream.start_date) {
      problems.push({ file: streamsFile, path: `${base}/declarable_from`, message: `is before the stream's start date ${stream.start_date}` });
    }
    items(stream, 'eco_organisms').forEach((organism, j) => {
      const at = `${base}/eco_organisms/${j}/approval`;
      const approval = organism.approval;
      // Never publish an ended approval as in force: the file's `checked` date is "today" for the data.
      const checkedOn = isObject(sources.streams) ? sources.streams.checked : undefined;
      if (organism.role !== 'candidate' && isObject(approval) && isDate(approval.to) && isDate(checkedOn) && approval.to < checkedOn) {
        problems.push({ file: streamsFile, path: `${at}/to`, message: `the approval ended on ${approval.to}, before the file was checked (${checkedOn}): do not publish it as in force` });
      }
      if (organism.role !== 'candidate' && approval === null) {
        problems.push({ file: streamsFile, path: at, message: 'an approved eco-organism needs its known approval period' });
      }
      if (organism.role === 'candidate' && approval !== null && approval !== undefined) {
        problems.push({ file: streamsFile, path: at, message: 'a candidate eco-organism has no approval period (use null)' });
      }
      if (isObject(approval) && isDate(approval.from) && isDate(approval.to) && approval.to < approval.from) {
        problems.push({ file: streamsFile, path: `${at}/to`, message: `is before the approval start ${approval.from}` });
      }
    });
  });

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

  plans.forEach((plan, i) => {
    checkRefs(plan.streams, streamCodes, pricingFile, `/plans/${i}/streams`, 'stream code');
  });

  return problems;
}
