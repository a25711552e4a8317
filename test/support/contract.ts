/**
 * The OpenAPI document is the contract: every response the e2e suite gets through supertest is
 * checked against the document the app serves at `/docs/openapi.json`, as the build wrote it to
 * dist/openapi.json (jest `setupFilesAfterEnv`).
 *
 * For each response: the operation (path template + method) is in the document, the status is
 * documented for it (or `default`), the content type is one of the documented media types, the
 * body validates against the documented schema (OpenAPI 3.0 → JSON Schema: `nullable`, `$ref`
 * into `components.schemas`), documented headers are valid, and the headers clients rely on
 * (RELIED_UPON_HEADERS) are documented. A violation fails the test that made the request. A JSON
 * operation that also answers `Accept: text/csv` documents JSON only (so that generated clients type
 * it as the DTO) and names, in `x-csv-operation`, the operation whose response that CSV must match.
 *
 * What is outside the document, on purpose (keep this short):
 *  - EXEMPT: Swagger UI's static files, the public site's pages and assets and the dashboard's
 *    pages and the operator's console (HTML for people, tested in test/site.e2e-spec.ts, test/dashboard/ and
 *    test/operator/), CORS preflights (OPTIONS).
 *  - OUTSIDE_CONTRACT: test-only routes.
 *  - A request that matches no documented operation (unknown route, unknown method, a test-only
 *    controller, a body refused before routing) may only get an error: status >= 400 with a
 *    problem+json body valid against `ProblemDto` — or, for a GET outside /api, /docs and /health,
 *    the site's HTML 404. Any success there is a hole in the document.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import request from 'supertest';
import { REPO_ROOT } from '../../src/common/repo-root.js';
import { SITE_PATHS } from '../../src/site/site-pages.js';

type Json = Record<string, unknown>;
type Schema = Json;

/** What `npm run build` writes (scripts/write-openapi.ts). */
const BUILT_DOCUMENT = join(REPO_ROOT, 'dist', 'openapi.json');
const DOC_ID = 'http://contract.test/openapi.json';
/** Swagger UI (HTML, JS, CSS) and the document itself: not API operations. */
const EXEMPT = [
  /^\/docs(\/.*)?$/,
  /^\/dashboard(\/.*)?$/,
  /^\/operator(\/.*)?$/,
  ...SITE_PATHS.map((path) => new RegExp(`^${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`)),
];
/**
 * Deliberately outside the contract: test-only controllers (e.g. the throwing route of
 * foundation.e2e-spec.ts) that the app under test documents; treated as undocumented.
 */
const OUTSIDE_CONTRACT = [/^\/test-only\//];
/** Where every answer is the API's (problem+json for an error), whatever the client accepts; case-sensitive, as the router. */
const API_PREFIX = /^\/(api|docs|health)(\/|$)/;
/**
 * Response headers a client acts on: when the API sends one, the document must say so. (Not ETag:
 * Express adds a weak one to every body it sends; the reference files document theirs.)
 */
const RELIED_UPON_HEADERS = [
  'location',
  'retry-after',
  'www-authenticate',
  'idempotent-replayed',
  'ratelimit',
  'ratelimit-policy',
  'x-request-id',
  'accept-post',
];
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

interface MediaType {
  schema?: Schema;
}
interface ResponseObject {
  content?: Record<string, MediaType>;
  headers?: Record<string, { required?: boolean; schema?: Schema }>;
}
interface Operation {
  operationId?: string;
  responses: Record<string, ResponseObject>;
  /** A JSON operation that also answers `Accept: text/csv` names the operation that documents that file. */
  'x-csv-operation'?: string;
}
interface Route {
  template: string;
  regex: RegExp;
  params: number;
  operations: Record<string, Operation>;
}
interface Contract {
  routes: Route[];
  operations: Map<string, Operation>;
  validator(schema: Schema): ValidateFunction;
  problem: ValidateFunction;
}

/** OpenAPI 3.0 Schema Object → JSON Schema (draft-07) for ajv. */
export function toJsonSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(toJsonSchema);
  if (!schema || typeof schema !== 'object') return schema;
  const { nullable: nullableKeyword, ...rest } = schema as Json;
  const nullable = nullableKeyword === true && !('allOf' in rest) && !('$ref' in rest);
  const out: Json = {};
  for (const [key, value] of Object.entries(rest)) {
    if (key === '$ref' && typeof value === 'string') out.$ref = value.startsWith('#/') ? `${DOC_ID}${value}` : value;
    else if (key === 'properties' || key === 'patternProperties') {
      out[key] = Object.fromEntries(Object.entries(value as Json).map(([name, sub]) => [name, toJsonSchema(sub)]));
    } else if (['items', 'additionalProperties', 'not', 'allOf', 'anyOf', 'oneOf'].includes(key)) out[key] = toJsonSchema(value);
    else out[key] = value;
  }
  // 3.0 boolean exclusiveMinimum/Maximum → draft-07 numbers.
  for (const [exclusive, bound] of [
    ['exclusiveMinimum', 'minimum'],
    ['exclusiveMaximum', 'maximum'],
  ] as const) {
    if (out[exclusive] === true) [out[exclusive], out[bound]] = [out[bound], undefined];
    if (out[exclusive] === false) delete out[exclusive];
    if (out[bound] === undefined) delete out[bound];
  }
  // OpenAPI 3.0.3, as strict validators read it: `nullable` adds null to what `type` allows (none
  // without a `type`), and an `allOf` or `$ref` beside it still applies to null.
  return nullable === true && 'type' in out ? { anyOf: [out, { type: 'null' }] } : out;
}

function compile(document: Json): Contract {
  const ajv = new Ajv({ strict: false, allErrors: true, logger: false });
  addFormatsModule.default(ajv); // CommonJS: the function is its `default`
  const components = (document.components ?? {}) as { schemas?: Record<string, Schema> };
  const schemas = Object.fromEntries(Object.entries(components.schemas ?? {}).map(([name, s]) => [name, toJsonSchema(s)]));
  ajv.addSchema({ $id: DOC_ID, components: { schemas } });
  const cache = new Map<Schema, ValidateFunction>();
  const validator = (schema: Schema) => {
    let validate = cache.get(schema);
    if (!validate) cache.set(schema, (validate = ajv.compile(toJsonSchema(schema) as Schema)));
    return validate;
  };
  const routes: Route[] = Object.entries(document.paths as Record<string, Json>).map(([template, item]) => {
    const operations = Object.fromEntries(Object.entries(item).filter(([m]) => METHODS.includes(m))) as Record<string, Operation>;
    const pattern = template
      .split(/(\{[^}]+\})/)
      .map((part) => (part.startsWith('{') ? '([^/]+)' : part.replace(/[.*+?^$()|[\]\\]/g, '\\$&')))
      .join('');
    return { template, regex: new RegExp(`^${pattern}$`), params: (template.match(/\{/g) ?? []).length, operations };
  });
  routes.sort((a, b) => a.params - b.params); // literal segments win over templates
  const operations = new Map(
    routes
      .flatMap((r) => Object.values(r.operations))
      .filter((o) => o.operationId)
      .map((o) => [o.operationId!, o]),
  );
  return { routes, operations, validator, problem: validator({ $ref: '#/components/schemas/ProblemDto' }) };
}

/**
 * The document `npm run build` wrote (dist/openapi.json), compiled once per test file: the same
 * document every app under test serves at /docs/openapi.json (openapi.e2e-spec.ts checks that they are equal), without
 * each app building its own (a scan of every route and DTO) only for the check.
 */
let contract: Contract | undefined;
function contractFor(): Contract {
  contract ??= compile(JSON.parse(readFileSync(BUILT_DOCUMENT, 'utf8')) as Json);
  return contract;
}

const formatErrors = (errors: ErrorObject[] | null | undefined) =>
  (errors ?? []).map((e) => `  ${e.instancePath || '(body)'} ${e.message}${e.params ? ` ${JSON.stringify(e.params)}` : ''}`).join('\n');

/** A response as any HTTP client sees it (headers by lower-case name, the decoded body text). */
export interface ObservedResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

function mediaTypeOf(contentType: string | string[] | undefined): string | undefined {
  return typeof contentType === 'string' ? contentType.split(';')[0]!.trim().toLowerCase() || undefined : undefined;
}
const isJson = (mediaType: string | undefined) => !!mediaType && (mediaType === 'application/json' || mediaType.endsWith('+json'));
const INVALID_JSON = Symbol('invalid JSON');

/** What is wrong with the response according to the document, or nothing. */
export async function contractProblems(method: string, url: string, res: ObservedResponse): Promise<string[] | undefined> {
  const { pathname } = new URL(url);
  method = method.toLowerCase();
  if (method === 'options' || EXEMPT.some((re) => re.test(pathname))) return undefined;
  const contract = contractFor();
  const mediaType = mediaTypeOf(res.headers['content-type']);
  let body: unknown = res.text;
  if (isJson(mediaType) && res.text) {
    try {
      body = JSON.parse(res.text);
    } catch {
      body = INVALID_JSON;
    }
  }
  // HEAD is GET without a body (Express answers it for every GET route).
  const lookup = method === 'head' ? 'get' : method;
  const outside = OUTSIDE_CONTRACT.some((re) => re.test(pathname));
  // The router matches method and path together: `GET /admin/clients/import` is `GET /admin/clients/{client_id}`
  // (only POST has the literal path), so the first route of the path that has the method is the operation.
  const route = outside ? undefined : contract.routes.find((r) => r.regex.test(pathname) && r.operations[lookup]);
  const operation = route?.operations[lookup];

  if (!operation) {
    if (res.status < 400 && outside) return undefined;
    if (res.status < 400) return [`no documented operation answers ${method.toUpperCase()} ${pathname}, yet it got ${res.status}`];
    // The API's paths are case-sensitive: `/API/V1/…` is an address of the site, and a browser's GET of an
    // address the site lacks gets its HTML 404 page (src/site/site-not-found.ts); under /api, /docs and /health, a problem.
    if (res.status === 404 && mediaType === 'text/html' && lookup === 'get' && !API_PREFIX.test(pathname)) return undefined;
    if (mediaType !== 'application/problem+json')
      return [`outside the document, only a problem is acceptable; got content-type ${mediaType}`];
    if (method !== 'head' && !contract.problem(body))
      return [`problem body invalid against ProblemDto:\n${formatErrors(contract.problem.errors)}`];
    return undefined;
  }

  let where = `${lookup.toUpperCase()} ${route!.template}`;
  let responses = operation.responses;
  // CSV negotiated on a JSON operation is the file its CSV operation documents (and nothing else).
  const csvOperation = operation['x-csv-operation'];
  if (mediaType === 'text/csv' && csvOperation !== undefined) {
    const sibling = contract.operations.get(csvOperation);
    if (!sibling) return [`${where}: x-csv-operation names no operation (${csvOperation})`];
    responses = sibling.responses;
    where = `${where} (as ${csvOperation})`;
  }
  const response = responses[String(res.status)] ?? responses[`${String(res.status)[0]}XX`] ?? responses.default;
  if (!response) return [`status ${res.status} is not documented for ${where} (documented: ${Object.keys(responses).join(', ')})`];

  const problems: string[] = [];
  for (const [name, header] of Object.entries(response.headers ?? {})) {
    const value = res.headers[name.toLowerCase()];
    if (value === undefined) {
      if (header.required) problems.push(`required header ${name} is missing`);
    } else if (header.schema) {
      const validate = contract.validator(header.schema);
      if (!validate(value)) problems.push(`header ${name}: ${JSON.stringify(value)} is invalid:\n${formatErrors(validate.errors)}`);
    }
  }
  const documentedHeaders = new Set(Object.keys(response.headers ?? {}).map((h) => h.toLowerCase()));
  for (const name of RELIED_UPON_HEADERS) {
    if (res.headers[name] !== undefined && !documentedHeaders.has(name))
      problems.push(`header ${name} is sent but not documented for ${res.status}`);
  }

  const content = response.content ?? {};
  const mediaTypes = Object.keys(content);
  if (mediaTypes.length === 0) {
    if (res.text) problems.push(`a body (${mediaType}) is sent but ${res.status} documents none`);
  } else if (method !== 'head') {
    const documented =
      mediaTypes.find((m) => m.toLowerCase() === mediaType) ??
      mediaTypes.find((m) => m.endsWith('/*') && mediaType?.startsWith(m.slice(0, -1))) ??
      mediaTypes.find((m) => m === '*/*');
    if (!documented) {
      problems.push(`content-type ${mediaType ?? '(none)'} is not documented (documented: ${mediaTypes.join(', ')})`);
    } else if (body === INVALID_JSON) {
      problems.push(`the body is not valid JSON`);
    } else if (content[documented]!.schema) {
      const validate = contract.validator(content[documented]!.schema);
      if (!validate(body)) problems.push(`body invalid against the ${res.status} ${documented} schema:\n${formatErrors(validate.errors)}`);
    }
  }
  return problems.length ? problems : undefined;
}

/** The error a test fails with: method, path, status, and everything that is wrong. */
export async function contractError(method: string, url: string, res: ObservedResponse): Promise<Error | undefined> {
  const problems = await contractProblems(method, url, res);
  if (!problems) return undefined;
  return new Error(
    `OpenAPI contract: ${method.toUpperCase()} ${new URL(url).pathname} → ${res.status}\n${problems.map((p) => `- ${p}`).join('\n')}`,
  );
}

// Hook supertest: its `assert(err, res, fn)` runs after every response (await, .then and .end
// alike), after the test's own .expect()s; a contract violation becomes the request's error.
type Callback = (err: Error | null, res?: request.Response) => void;
type Assert = (this: request.Test, resError: Error | null, res: request.Response | undefined, fn: Callback) => void;
const Test = (request as unknown as { Test: { prototype: { assert: Assert; contractChecked?: true } } }).Test;
if (!Test.prototype.contractChecked) {
  const assert = Test.prototype.assert;
  Test.prototype.contractChecked = true;
  Test.prototype.assert = function (this: request.Test & { method: string; url: string }, resError, res, fn) {
    assert.call(this, resError, res, (err, response) => {
      if (err || !response) return fn(err, response);
      const text = typeof response.text === 'string' ? response.text : Buffer.isBuffer(response.body) ? response.body.toString('utf8') : '';
      contractError(this.method, this.url, { status: response.status, headers: response.headers, text }).then(
        (error) => fn(error ?? null, response),
        (error: unknown) => fn(error as Error, response),
      );
    });
  };
}
