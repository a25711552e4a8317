/**
 * Schema-driven request fuzzing (fast-check) for test/fuzz.e2e-spec.ts.
 *
 * From the app's own OpenAPI document: every operation (method + path template) with its
 * parameters, security and request schema (`$ref`s resolved). For each operation a fast-check
 * arbitrary builds a valid-ish request from the schemas (examples weighted up, so that some
 * requests really are valid), then mutates it: the JSON body (wrong types, missing/unknown
 * fields, boundary numbers, huge and odd unicode strings, deep nesting, too many items), its text
 * (truncated, trailing garbage, invalid UTF-8, …), the content type, the headers and the token,
 * the path and query parameters, and sometimes the method or the route itself.
 *
 * A generated request is plain data (printable, shrinkable): `FuzzRequest`. `send` turns it into
 * bytes on the wire with node:http (full control: no content type, odd headers, raw paths).
 *
 * Also: a cheap checksum of the database tables (`databaseSnapshot`) to prove that a refused
 * request wrote nothing.
 */
import http from 'node:http';
import zlib from 'node:zlib';
import fc from 'fast-check';
import type pg from 'pg';

type Json = Record<string, unknown>;
export type Schema = Json;

// ---------------------------------------------------------------------------------------------
// The document

export type Audience = 'public' | 'client' | 'admin';

export interface Param {
  name: string;
  in: 'path' | 'query' | 'header';
  required: boolean;
  schema: Schema;
}

export interface Operation {
  /** `POST /api/v1/declarations` */
  key: string;
  method: string;
  template: string;
  operationId: string;
  audience: Audience;
  pathParams: Param[];
  queryParams: Param[];
  headerParams: Param[];
  body?: { mediaTypes: string[]; schema: Schema };
  statuses: string[];
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

export function operationsOf(doc: Json): Operation[] {
  const out: Operation[] = [];
  for (const [template, item] of Object.entries(doc.paths as Record<string, Json>)) {
    for (const [method, raw] of Object.entries(item)) {
      if (!METHODS.includes(method)) continue;
      const op = raw as Json;
      const security = op.security as Array<Record<string, unknown>> | undefined;
      const schemes = (security ?? []).flatMap((s) => Object.keys(s));
      const audience: Audience = schemes.includes('admin') ? 'admin' : schemes.includes('client') ? 'client' : 'public';
      const params = ((op.parameters ?? []) as Json[]).map((p) => ({
        name: p.name as string,
        in: p.in as Param['in'],
        required: p.required === true,
        schema: (p.schema ?? {}) as Schema,
      }));
      const content = (op.requestBody as { content?: Record<string, { schema?: Schema }> } | undefined)?.content;
      const mediaTypes = Object.keys(content ?? {});
      out.push({
        key: `${method.toUpperCase()} ${template}`,
        method: method.toUpperCase(),
        template,
        operationId: String(op.operationId),
        audience,
        pathParams: params.filter((p) => p.in === 'path'),
        queryParams: params.filter((p) => p.in === 'query'),
        headerParams: params.filter((p) => p.in === 'header'),
        body: mediaTypes.length ? { mediaTypes, schema: content![mediaTypes[0]!]!.schema ?? {} } : undefined,
        statuses: Object.keys(op.responses as Json),
      });
    }
  }
  return out;
}

/** Resolves `#/components/...` references (recursively, at the top of the schema). */
export function deref(doc: Json, schema: Schema): Schema {
  let s = schema;
  for (let i = 0; i < 20 && typeof s.$ref === 'string'; i++) {
    const ref = s.$ref as string;
    if (!ref.startsWith('#/')) throw new Error(`fuzz: external $ref ${ref}`);
    s = ref
      .slice(2)
      .split('/')
      .reduce<unknown>((node, part) => (node as Json)[part.replace(/~1/g, '/').replace(/~0/g, '~')], doc) as Schema;
    if (!s) throw new Error(`fuzz: unresolved $ref ${ref}`);
  }
  return s;
}

/**
 * The documented operation a concrete path + method reaches, if any: as the router, method and path
 * together, literal segments first (`GET /admin/clients/import` is `GET /admin/clients/{client_id}`:
 * only POST has the literal path).
 */
export function matchOperation(operations: Operation[], method: string, pathname: string): Operation | undefined {
  const lookup = method === 'HEAD' ? 'GET' : method;
  const candidates = operations
    .map((op) => ({
      op,
      params: op.pathParams.length,
      regex: new RegExp(
        `^${op.template
          .split(/(\{[^}]+\})/)
          .map((part) => (part.startsWith('{') ? '([^/]+)' : part.replace(/[.*+?^$()|[\]\\]/g, '\\$&')))
          .join('')}$`,
      ),
    }))
    .sort((a, b) => a.params - b.params);
  return candidates.find((c) => c.op.method === lookup && c.regex.test(pathname))?.op;
}

// ---------------------------------------------------------------------------------------------
// JSON values with raw fragments

/**
 * A piece of request body text that JavaScript values cannot express (`-0`, `1e309`, huge
 * integers, 100,000 levels of nesting): written as is by `serialize`, printed by its label.
 */
export class Raw {
  constructor(
    readonly label: string,
    readonly text: () => string,
  ) {}
  [fc.toStringMethod](): string {
    return this.label;
  }
  toJSON(): string {
    return this.label;
  }
}

export const raw = (text: string): Raw => new Raw(`raw(${text.length > 60 ? `${text.slice(0, 60)}…` : text})`, () => text);
const huge = (length: number, unit: string): Raw =>
  new Raw(`huge(${length}×${JSON.stringify(unit)})`, () => JSON.stringify(unit.repeat(Math.ceil(length / unit.length))));
const deep = (depth: number, kind: 'array' | 'object'): Raw =>
  new Raw(`deep-${kind}(${depth})`, () =>
    kind === 'array' ? '['.repeat(depth) + ']'.repeat(depth) : '{"a":'.repeat(depth) + '1' + '}'.repeat(depth),
  );

class OverBudget extends Error {}

/**
 * JSON text of a value that may contain `Raw` fragments, cut after `limit` characters (5,000
 * repeated items holding a 1 MB string each must not build a 5 GB string).
 */
export function serialize(value: unknown, limit = Number.POSITIVE_INFINITY): string {
  const parts: string[] = [];
  let length = 0;
  const push = (text: string) => {
    parts.push(text);
    length += text.length;
    if (length > limit) throw new OverBudget();
  };
  const walk = (v: unknown): void => {
    if (v instanceof Raw) push(v.text());
    else if (Array.isArray(v)) {
      push('[');
      v.forEach((item, i) => {
        if (i) push(',');
        walk(item);
      });
      push(']');
    } else if (v !== null && typeof v === 'object') {
      push('{');
      Object.entries(v).forEach(([k, item], i) => {
        push(`${i ? ',' : ''}${JSON.stringify(k)}:`);
        walk(item);
      });
      push('}');
    } else push(JSON.stringify(v) ?? 'null');
  };
  try {
    walk(value);
  } catch (error) {
    if (!(error instanceof OverBudget)) throw error;
  }
  return parts.join('').slice(0, limit);
}

// ---------------------------------------------------------------------------------------------
// Valid-ish values from a schema

const weighted = <T>(...entries: Array<[number, fc.Arbitrary<T>]>) =>
  fc.oneof(...entries.filter(([w]) => w > 0).map(([weight, arbitrary]) => ({ weight, arbitrary })));

const DAY = 86_400_000;

function stringArb(schema: Schema): fc.Arbitrary<string> {
  const minLength = typeof schema.minLength === 'number' ? schema.minLength : 0;
  const maxLength = Math.min(typeof schema.maxLength === 'number' ? schema.maxLength : 40, 40);
  switch (schema.format) {
    case 'uuid':
      return fc.uuid();
    case 'email':
      return fc.emailAddress().filter((e) => e.length <= maxLength || maxLength < 6);
    case 'date-time':
      // Mostly in the near future (a valid token expiry), sometimes anywhere.
      return weighted(
        [3, fc.integer({ min: 1, max: 700 }).map((d) => new Date(Date.now() + d * DAY).toISOString())],
        [1, fc.date({ min: new Date(0), max: new Date(Date.UTC(9999, 0, 1)), noInvalidDate: true }).map((d) => d.toISOString())],
      );
    case 'uri':
      return fc.webUrl();
  }
  if (typeof schema.pattern === 'string') {
    try {
      return fc
        .stringMatching(new RegExp(schema.pattern))
        .filter((s) => s.length <= (typeof schema.maxLength === 'number' ? schema.maxLength : 1e6));
    } catch {
      // fall through to a plain string
    }
  }
  return fc.string({ minLength, maxLength: Math.max(minLength, maxLength) });
}

function numberArb(schema: Schema, integer: boolean): fc.Arbitrary<number> {
  const min = typeof schema.minimum === 'number' ? schema.minimum : -1e6;
  const max = typeof schema.maximum === 'number' ? schema.maximum : 1e6;
  if (integer) return fc.integer({ min: Math.max(min, -(2 ** 31)), max: Math.min(max, 2 ** 31) });
  return weighted(
    [2, fc.integer({ min: Math.max(Math.ceil(min), -1e6), max: Math.min(Math.floor(max), 1e6) })],
    [1, fc.double({ min, max, noNaN: true, noDefaultInfinity: true }).map((x) => Math.round(x * 1000) / 1000)],
  );
}

/** A valid-ish value for `schema`: its `example` weighted up, else generated within its constraints. */
export function valueArb(doc: Json, schema: Schema, depth = 0): fc.Arbitrary<unknown> {
  const s = deref(doc, schema);
  let base: fc.Arbitrary<unknown>;
  const alternatives = (s.oneOf ?? s.anyOf) as Schema[] | undefined;
  if (Array.isArray(s.enum) && s.enum.length) base = fc.constantFrom(...(s.enum as unknown[]));
  else if (alternatives) base = fc.oneof(...alternatives.map((a) => valueArb(doc, a, depth + 1)));
  else if (Array.isArray(s.allOf)) base = valueArb(doc, Object.assign({}, ...(s.allOf as Schema[]).map((a) => deref(doc, a))), depth + 1);
  else {
    const type = s.type ?? (s.properties ? 'object' : undefined);
    switch (type) {
      case 'string':
        base = stringArb(s);
        break;
      case 'integer':
        base = numberArb(s, true);
        break;
      case 'number':
        base = numberArb(s, false);
        break;
      case 'boolean':
        base = fc.boolean();
        break;
      case 'array': {
        const minLength = typeof s.minItems === 'number' ? s.minItems : 0;
        const maxLength = Math.max(minLength, Math.min(typeof s.maxItems === 'number' ? s.maxItems : 4, 4));
        const items = depth > 6 ? fc.constant(null) : valueArb(doc, (s.items ?? {}) as Schema, depth + 1);
        base = s.uniqueItems
          ? fc.uniqueArray(items, { minLength, maxLength, selector: (v) => JSON.stringify(v) })
          : fc.array(items, { minLength, maxLength });
        break;
      }
      case 'object': {
        const properties = (s.properties ?? {}) as Record<string, Schema>;
        const required = (s.required ?? []) as string[];
        const model = Object.fromEntries(
          Object.entries(properties).map(([name, sub]) => [name, depth > 6 ? fc.constant(null) : valueArb(doc, sub, depth + 1)]),
        );
        base = fc.record(model, { requiredKeys: required.filter((r) => r in properties) });
        break;
      }
      default:
        base = fc.jsonValue({ maxDepth: 2 });
    }
  }
  if (s.example !== undefined) base = weighted([4, fc.constant(s.example)], [1, base]);
  if (s.nullable === true) base = weighted([1, fc.constant(null)], [6, base]);
  return base;
}

// ---------------------------------------------------------------------------------------------
// Mutations of a JSON value

const BOUNDARY_NUMBERS = [
  '0',
  '-0',
  '-1',
  '1',
  '0.0001',
  '0.001',
  '1.0005',
  '1e12',
  '1000000000000',
  '1000000000001',
  '1e12+1',
  '1000000000000.001',
  '999999999999.999',
  '1e308',
  '-1e308',
  '1e309',
  '-1e309',
  '5e-324',
  '1e-400',
  '9007199254740993',
  '123456789012345678901234567890',
  '1.0000000000000000000001',
  '1E3',
  '-0.0',
  '2147483648',
  '-2147483649',
  '1e-7',
  '100000000000000000000000000000000000000000000000000',
];
const NUMERIC_LOOKING_STRINGS = [
  'NaN',
  'Infinity',
  '-Infinity',
  '1e3',
  '0x10',
  ' 12 ',
  '',
  '1,5',
  '١٢٣',
  '12kg',
  '+1',
  '.5',
  '5.',
  '0b1',
  '1_000',
  'null',
  'true',
];
const WRONG_TYPE_VALUES: unknown[] = [0, 1.5, -1, 'text', '', true, false, null, [], {}, [1, 'a'], { a: 1 }, [[]], [{}], { '': null }];
const ODD_STRINGS = [
  '📦🇫🇷👩‍👩‍👧',
  'مرحبا بالعالم',
  '\u202Eabc\u202C',
  'abc\u0000def',
  '\u0000',
  '\u0001\u0002\u001f\u007f',
  '\t\n\r',
  ' EMB ',
  'emb',
  'ＥＭＢ',
  '\u200B',
  'e\u0301',
  '\ufeff',
  '\ud800',
  '\udfff',
  'a\ud83d',
  '\udc00\ud800',
  'İı',
  '../../etc/passwd',
  "' OR '1'='1",
  "'; DROP TABLE clients; --",
  '<script>alert(1)</script>',
  '${jndi:ldap://x}',
  '%s%n%x',
  '\\',
  '"',
  '{{7*7}}',
  '__proto__',
  'constructor',
  '\u2028\u2029',
  '𝕍𝕖𝕣𝕣𝕖',
  'Verre'.padEnd(121, 'e'),
  ' ',
  'kg\u0000',
  'KG',
  'kilogram',
  // Text that displays as other text: zero-width characters, a lone joiner, a separator, compatibility forms.
  'Ve\u200brre',
  'Verre\u200d',
  '\u202eerreV',
  'Ver\u2028re',
  'Ｖｅｒｒｅ',
  'ﬁlm',
  'Straße',
];
const ODD_KEYS = [
  '',
  'unknown',
  '__proto__',
  'constructor',
  'prototype',
  ' period',
  'Period',
  'lines ',
  '\u0000',
  '📦',
  'a'.repeat(300),
  'errors',
  '$ref',
  'id',
  'client_id',
  'revision',
  'status',
];

/** Any UTF-16 code unit, so lone surrogates too (JSON.stringify writes them as `\udXXX` escapes). */
const anyCodeUnitString = fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)), maxLength: 30 });

const nodeReplacement: fc.Arbitrary<unknown> = weighted<unknown>(
  [4, fc.constantFrom(...WRONG_TYPE_VALUES)],
  [4, fc.constantFrom(...BOUNDARY_NUMBERS).map(raw)],
  [2, fc.constantFrom(...NUMERIC_LOOKING_STRINGS)],
  [4, fc.constantFrom(...ODD_STRINGS)],
  [2, anyCodeUnitString],
  [1, fc.string({ unit: 'binary', maxLength: 30 })],
  [
    2,
    fc
      .tuple(fc.constantFrom(1_000, 10_000, 120_000, 600_000, 1_100_000), fc.constantFrom('x', 'é', '📦', '\u0000', ' '))
      .map(([length, unit]) => huge(length, unit)),
  ],
  [2, fc.tuple(fc.constantFrom(100, 5_000, 100_000), fc.constantFrom<'array' | 'object'>('array', 'object')).map(([d, k]) => deep(d, k))],
  [1, fc.jsonValue({ maxDepth: 3 })],
);

export type Mutation =
  | { kind: 'replace'; at: number; with: unknown }
  | { kind: 'remove'; at: number }
  | { kind: 'unknownField'; at: number; key: string; value: unknown }
  | { kind: 'repeatItems'; at: number; count: number }
  /** Keeps a string field and adds odd characters to it (a valid value plus a NUL, an emoji, …). */
  | { kind: 'affix'; at: number; text: string; prepend: boolean };

export const mutationArb: fc.Arbitrary<Mutation> = weighted<Mutation>(
  [8, fc.record({ kind: fc.constant('replace' as const), at: fc.nat(), with: nodeReplacement })],
  [3, fc.record({ kind: fc.constant('remove' as const), at: fc.nat() })],
  [
    3,
    fc.record({
      kind: fc.constant('unknownField' as const),
      at: fc.nat(),
      key: weighted([3, fc.constantFrom(...ODD_KEYS)], [1, anyCodeUnitString]),
      value: weighted<unknown>([3, fc.constantFrom<unknown>(1, 'x', null, {}, [])], [1, nodeReplacement]),
    }),
  ],
  [1, fc.record({ kind: fc.constant('repeatItems' as const), at: fc.nat(), count: fc.constantFrom(0, 2, 1_001, 5_000) })],
  [
    3,
    fc.record({
      kind: fc.constant('affix' as const),
      at: fc.nat(),
      text: weighted(
        [3, fc.constantFrom('\u0000', '\u0000x', ' ', '\n', '\u202E', '📦', '\ud800', '\u0007', "'", '"', '\\', '%00', 'é')],
        [1, anyCodeUnitString],
      ),
      prepend: fc.boolean(),
    }),
  ],
);

type PathSegment = string | number;

function nodePaths(value: unknown, prefix: PathSegment[] = [], out: PathSegment[][] = []): PathSegment[][] {
  out.push(prefix);
  if (value instanceof Raw) return out;
  if (Array.isArray(value)) value.forEach((v, i) => nodePaths(v, [...prefix, i], out));
  else if (value !== null && typeof value === 'object') for (const [k, v] of Object.entries(value)) nodePaths(v, [...prefix, k], out);
  return out;
}

function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** Rebuilds `value` with `edit` applied to the node at `path`. */
function editAt(value: unknown, path: PathSegment[], edit: (node: unknown) => unknown): unknown {
  if (path.length === 0) return edit(value);
  const [head, ...rest] = path;
  if (Array.isArray(value)) return value.map((v, i) => (i === head ? editAt(v, rest, edit) : v));
  const copy: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) setOwn(copy, k, k === head ? editAt(v, rest, edit) : v);
  return copy;
}

export function applyMutation(value: unknown, m: Mutation): unknown {
  const all = nodePaths(value);
  const pick = (candidates: PathSegment[][]) => candidates[m.at % candidates.length];
  switch (m.kind) {
    case 'replace':
      return editAt(value, pick(all)!, () => m.with);
    case 'remove': {
      const target = pick(all.filter((p) => p.length > 0));
      if (!target) return undefined; // the whole body goes
      const parent = target.slice(0, -1);
      const last = target[target.length - 1]!;
      return editAt(value, parent, (node) => {
        if (Array.isArray(node)) return node.filter((_, i) => i !== last);
        const copy: Record<string, unknown> = {};
        for (const [k, v] of Object.entries(node as Record<string, unknown>)) if (k !== last) setOwn(copy, k, v);
        return copy;
      });
    }
    case 'unknownField': {
      const objects = all.filter((p) => {
        const node = p.reduce<unknown>((n, seg) => (n as Record<string | number, unknown>)[seg], value);
        return node !== null && typeof node === 'object' && !Array.isArray(node) && !(node instanceof Raw);
      });
      const target = pick(objects);
      if (!target) return value;
      return editAt(value, target, (node) => {
        const copy: Record<string, unknown> = {};
        for (const [k, v] of Object.entries(node as Record<string, unknown>)) setOwn(copy, k, v);
        setOwn(copy, m.key, m.value);
        return copy;
      });
    }
    case 'affix': {
      const strings = all.filter(
        (p) => typeof p.reduce<unknown>((n, seg) => (n as Record<string | number, unknown>)[seg], value) === 'string',
      );
      const target = pick(strings);
      if (!target) return value;
      return editAt(value, target, (node) => (m.prepend ? m.text + String(node) : String(node) + m.text));
    }
    case 'repeatItems': {
      const arrays = all.filter((p) => Array.isArray(p.reduce<unknown>((n, seg) => (n as Record<string | number, unknown>)[seg], value)));
      const target = pick(arrays);
      if (!target) return value;
      return editAt(value, target, (node) => {
        const items = node as unknown[];
        return Array.from({ length: m.count }, (_, i) => (items.length ? items[i % items.length] : i));
      });
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Mutations of the body text

export type TextMutation =
  | { kind: 'truncate'; fraction: number }
  | { kind: 'append'; text: string }
  | { kind: 'prepend'; text: string }
  | { kind: 'replaceAll'; text: string }
  | { kind: 'invalidUtf8'; fraction: number }
  | { kind: 'rawControlInString'; char: string }
  | { kind: 'duplicateFirstKey' };

const NOT_A_JSON_OBJECT = [
  '',
  ' ',
  'null',
  'true',
  '1',
  '-0',
  '"text"',
  '[]',
  '[{}]',
  '{',
  '}',
  '{"a":1,}',
  "{'a':1}",
  '{"a":1}/*c*/',
  '{a:1}',
  'NaN',
  '{"a":NaN}',
  '{"a":Infinity}',
  '{"a":undefined}',
  '{"a":01}',
  '{"a":.5}',
  '{"a":"\\x41"}',
  '{"a":"\\u12"}',
  '\u0000',
  'ＪＳＯＮ',
  '{"a":1}{"b":2}',
  'period=2025-S1&lines=1',
  '<xml/>',
  '--x\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--x--',
];

export const textMutationArb: fc.Arbitrary<TextMutation> = weighted<TextMutation>(
  [2, fc.record({ kind: fc.constant('truncate' as const), fraction: fc.double({ min: 0, max: 1, noNaN: true }) })],
  [
    2,
    fc.record({
      kind: fc.constant('append' as const),
      text: fc.constantFrom('}', ']', ',', 'x', ' {"a":1}', '\u0000', 'null', '\n\n--', '"'),
    }),
  ],
  [1, fc.record({ kind: fc.constant('prepend' as const), text: fc.constantFrom('\ufeff', ' \n\t', 'x', ")]}'\n", '[', '\u0000') })],
  [3, fc.record({ kind: fc.constant('replaceAll' as const), text: fc.constantFrom(...NOT_A_JSON_OBJECT) })],
  [1, fc.record({ kind: fc.constant('invalidUtf8' as const), fraction: fc.double({ min: 0, max: 1, noNaN: true }) })],
  [1, fc.record({ kind: fc.constant('rawControlInString' as const), char: fc.constantFrom('\u0000', '\n', '\u001b', '\t') })],
  [1, fc.constant({ kind: 'duplicateFirstKey' as const })],
);

const INVALID_UTF8 = Buffer.from([0xff, 0xfe, 0xc3, 0x28, 0xe2, 0x82, 0xed, 0xa0, 0x80]);

export function applyTextMutation(text: string, m: TextMutation): Buffer {
  switch (m.kind) {
    case 'truncate':
      return Buffer.from(text.slice(0, Math.floor(text.length * m.fraction)));
    case 'append':
      return Buffer.from(text + m.text);
    case 'prepend':
      return Buffer.from(m.text + text);
    case 'replaceAll':
      return Buffer.from(m.text);
    case 'invalidUtf8': {
      const bytes = Buffer.from(text);
      const at = Math.floor(bytes.length * m.fraction);
      return Buffer.concat([bytes.subarray(0, at), INVALID_UTF8, bytes.subarray(at)]);
    }
    case 'rawControlInString': {
      const at = text.indexOf('"');
      return Buffer.from(at < 0 ? text + m.char : text.slice(0, at + 1) + m.char + text.slice(at + 1));
    }
    case 'duplicateFirstKey': {
      const match = /^\s*\{\s*("(?:[^"\\]|\\.)*")\s*:/.exec(text);
      return Buffer.from(match ? text.replace('{', `{${match[1]}:null,`) : text);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// CSV bodies: a declaration's lines written as spreadsheets and programs write them, and broken

export interface CsvShape {
  delimiter: ',' | ';' | '\t';
  header: 'english' | 'french' | 'shuffled' | 'missing' | 'unknown' | 'none';
  encoding: 'utf-8' | 'utf-8-bom' | 'windows-1252' | 'utf-16le';
  newline: '\r\n' | '\n' | '\r';
  quoteAll: boolean;
  decimalComma: boolean;
  blankRows: boolean;
  trailingEmpty: boolean;
  breakage: 'none' | 'unclosed-quote' | 'extra-cell' | 'stray-quote' | 'nul-byte' | 'formula-prefix' | 'thousands-separator';
}

const CSV_HEADERS: Record<CsvShape['header'], string[]> = {
  english: ['stream', 'material', 'unit', 'quantity'],
  french: ['Flux', 'Matériau', 'unite', 'QUANTITÉ'],
  shuffled: ['quantity', 'unit', 'stream', 'material'],
  missing: ['stream', 'material', 'quantity'],
  unknown: ['stream', 'material', 'unit', 'quantity', 'weight'],
  none: [],
};
const CSV_FIELDS: Record<string, string> = { flux: 'stream', matériau: 'material', unite: 'unit', quantité: 'quantity' };

export const csvShapeArb: fc.Arbitrary<CsvShape> = fc.record({
  delimiter: weighted<CsvShape['delimiter']>([6, fc.constantFrom(',', ';')], [1, fc.constant('\t')]),
  header: weighted<CsvShape['header']>(
    [8, fc.constantFrom('english', 'french', 'shuffled')],
    [1, fc.constantFrom('missing', 'unknown', 'none')],
  ),
  encoding: weighted<CsvShape['encoding']>([8, fc.constantFrom('utf-8', 'utf-8-bom', 'windows-1252')], [1, fc.constant('utf-16le')]),
  newline: fc.constantFrom('\r\n', '\n', '\r'),
  quoteAll: fc.boolean(),
  decimalComma: fc.boolean(),
  blankRows: fc.boolean(),
  trailingEmpty: fc.boolean(),
  breakage: weighted<CsvShape['breakage']>(
    [12, fc.constant('none')],
    [1, fc.constantFrom('unclosed-quote', 'extra-cell', 'stray-quote', 'nul-byte', 'formula-prefix', 'thousands-separator')],
  ),
});

/** The lines of a (mutated) declaration value as a CSV file of that shape; whatever is not a line becomes odd cells. */
export function csvBytes(value: unknown, shape: CsvShape): Buffer {
  const header = CSV_HEADERS[shape.header];
  const fields = header.map((name) => CSV_FIELDS[name.toLowerCase()] ?? name.toLowerCase());
  const lines =
    value !== null && typeof value === 'object' && Array.isArray((value as Json).lines) ? ((value as Json).lines as unknown[]) : [value];
  const cellOf = (v: unknown): string => {
    if (typeof v === 'string') return v;
    if (typeof v === 'number') return shape.decimalComma && shape.delimiter === ';' ? String(v).replace('.', ',') : String(v);
    return v === undefined ? '' : serialize(v, 10_000);
  };
  const quote = (cell: string) =>
    shape.quoteAll || cell.includes(shape.delimiter) || /["\r\n]/.test(cell) ? `"${cell.replace(/"/g, '""')}"` : cell;
  const rows: string[][] = [];
  if (header.length) rows.push(header);
  // No more rows than bodyBytes sends (MAX_BODY_BYTES, counting a cell's characters at least): 5,000 repeated lines of
  // 10,000-character cells would build a 50 MB text, and its Windows-1252 copy many times that. What is sent is the same.
  let length = 0;
  let cut = false;
  for (const line of lines) {
    if (length > MAX_BODY_BYTES) {
      cut = true;
      break;
    }
    const record = line !== null && typeof line === 'object' ? (line as Json) : {};
    const row = fields.map((field) => cellOf(record[field]));
    rows.push(row);
    length += row.reduce((sum, cell) => sum + cell.length, 0);
    if (shape.blankRows) rows.push([]);
  }
  // The breakages of the last row: beyond what is sent when the rows were cut.
  const last = cut ? undefined : rows[rows.length - 1];
  switch (shape.breakage) {
    case 'extra-cell':
      last?.push('extra');
      break;
    case 'formula-prefix':
      if (last?.length) last[1] = `'=${last[1]}`;
      break;
    case 'thousands-separator':
      if (last?.length) last[last.length - 1] = `1 234${shape.delimiter === ';' ? ',' : '.'}5`;
      break;
  }
  let text =
    rows.map((row) => [...row.map(quote), ...(shape.trailingEmpty ? ['', ''] : [])].join(shape.delimiter)).join(shape.newline) +
    shape.newline;
  if (shape.breakage === 'unclosed-quote') text = text.replace(shape.newline, `${shape.newline}"`);
  if (shape.breakage === 'stray-quote') text = text.replace(shape.delimiter, `x"y${shape.delimiter}`);
  if (shape.breakage === 'nul-byte') text = `${text}\u0000`;
  switch (shape.encoding) {
    case 'utf-8':
      return Buffer.from(text);
    case 'utf-8-bom':
      return Buffer.from(`\ufeff${text}`);
    case 'utf-16le':
      return Buffer.from(`\ufeff${text}`, 'utf16le');
    case 'windows-1252':
      return Buffer.from([...text].map((c) => (c.charCodeAt(0) <= 0xff ? c.charCodeAt(0) : 0x3f)));
  }
}

// ---------------------------------------------------------------------------------------------
// Requests

export interface FuzzRequest {
  /** The operation the request was generated from (it may have been turned into another route or method). */
  from: string;
  method: string;
  /** As sent: percent-encoding and dot segments kept. */
  path: string;
  /** `name=value` pieces, already encoded (or deliberately not). */
  query: string[];
  /** An entry of the fixtures' `authorization` table, or `raw:<header value>`. */
  auth: string;
  headers: Array<[string, string]>;
  /** `null`: no Content-Type header. */
  contentType: string | null;
  /** `undefined`: no body. `csv`: the (mutated) JSON value is sent as a CSV file of its lines, written so. */
  body?: { json: unknown; mutations: Mutation[]; text?: TextMutation; csv?: CsvShape };
}

/** Where the fuzzer gets real values from: ids that exist, tokens, cursors. */
export interface FuzzFixtures {
  /** Authorization header value per name (`null`: no header). */
  authorization: Record<string, string | null>;
  /** Weights of the auth names per audience (names not listed are not used for it). */
  authWeights: Record<Audience, Record<string, number>>;
  /** Real values of path parameters by name; `write` lists what requests that change state may use. */
  pathValues: Record<string, { read: string[]; write: string[] }>;
  /** Real values of query parameters by name (e.g. cursors). */
  queryValues: Record<string, string[]>;
}

const MAX_BODY_BYTES = 1.5 * 1024 * 1024;

/** The bytes sent for a body (at most 1.5 MiB: a longer text is cut, hence broken JSON). */
export function bodyBytes(body: NonNullable<FuzzRequest['body']>): Buffer {
  let value = body.json;
  for (const m of body.mutations) value = applyMutation(value, m);
  if (body.csv) return csvBytes(value, body.csv).subarray(0, MAX_BODY_BYTES);
  const text = value === undefined ? '' : serialize(value, MAX_BODY_BYTES);
  const bytes = body.text ? applyTextMutation(text, body.text) : Buffer.from(text);
  return bytes.length > MAX_BODY_BYTES ? bytes.subarray(0, MAX_BODY_BYTES) : bytes;
}

/** The deepest nesting of arrays/objects in a JSON text (strings skipped), for reports. */
export function nestingDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '[' || c === '{') max = Math.max(max, ++depth);
    else if (c === ']' || c === '}') depth--;
  }
  return max;
}

const ODD_PATH_SEGMENTS = [
  '..',
  '.',
  '%2e%2e',
  '%2E',
  '%2F',
  '..%2F..%2Fadmin',
  '%00',
  '%ff',
  '%E0%A4%A',
  '%',
  '%%',
  '%25',
  '%20',
  '+',
  '~',
  '*',
  '@',
  ';',
  ':',
  '!',
  encodeURIComponent('📦'),
  encodeURIComponent('مرحبا'),
  encodeURIComponent('\u202Eabc'),
  encodeURIComponent("' OR 1=1 --"),
  encodeURIComponent('1; DROP TABLE clients'),
  encodeURIComponent('00000000-0000-0000-0000-000000000000') + '%00',
  '00000000-0000-0000-0000-000000000000',
  'FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF',
  '{00000000-0000-0000-0000-000000000000}',
  'a'.repeat(2_000),
  'x'.repeat(64),
  'NULL',
  'undefined',
  'null',
  '0',
  '-1',
  '1e309',
  'admin',
  'me',
  'tokens',
  'exemple-sas',
];

function pathValueArb(param: Param, fixtures: FuzzFixtures, doc: Json, writes: boolean): fc.Arbitrary<string> {
  const known = fixtures.pathValues[param.name];
  const pool = known ? (writes ? known.write : known.read) : [];
  return weighted(
    [pool.length ? 6 : 0, fc.constantFrom(...(pool.length ? pool : ['-'])).map(encodeURIComponent)],
    [2, valueArb(doc, param.schema).map((v) => encodeURIComponent(String(v)))],
    [3, fc.constantFrom(...ODD_PATH_SEGMENTS)],
    [1, anyCodeUnitString.filter((s) => s.length > 0).map((s) => encodeURIComponent(s.replace(/[\ud800-\udfff]/g, '?')))],
  );
}

const ODD_QUERY_VALUES = [
  '-1',
  '0',
  '1',
  '100',
  '101',
  '1e9',
  '1000000000',
  '99999999999999999999',
  '1.5',
  '-0',
  '+5',
  '05',
  ' 5',
  '0x10',
  'abc',
  '',
  '٣',
  'NaN',
  'null',
  encodeURIComponent('📦'),
  '%ff',
  '%',
  '%00',
  encodeURIComponent("' OR 1=1 --"),
  'a'.repeat(3_000),
  '2025-S1',
  '2025-S3',
  '2025-s1',
  'current',
  'CURRENT',
  'superseded',
  'eyJ4IjoxfQ',
  'eyJ4IjoxfQ.AAAA',
  '....',
  '%2e%2e%2f',
  // A well-formed cursor whose timestamp does not exist (30 February): was a 500.
  Buffer.from(
    JSON.stringify({ v: 1, t: '2026-02-30T08:00:00.123456Z', i: '0b6f1c2e-6a55-4c1e-9a7e-3f3f1d2a9b10', f: '0000000000000000' }),
  ).toString('base64url'),
];

/** Percent-encodes what may not appear raw in a request target (non-ASCII, spaces, controls); keeps odd `%` sequences as they are. */
function escapeUnsafe(text: string): string {
  return text.replace(/[^\x21-\x7e]/gu, (c) => (/[\ud800-\udfff]/.test(c) ? '%EF%BF%BD' : encodeURIComponent(c)));
}

function queryArb(op: Operation, fixtures: FuzzFixtures, doc: Json): fc.Arbitrary<string[]> {
  const params = op.queryParams;
  const piece = (name: string, value: string) => `${encodeURIComponent(name)}=${escapeUnsafe(value)}`;
  const validPieces = params.map((p) =>
    weighted<string[]>(
      [5, fc.constant([])],
      [3, valueArb(doc, p.schema).map((v) => [piece(p.name, encodeURIComponent(String(v)))])],
      [
        fixtures.queryValues[p.name]?.length ? 2 : 0,
        fc.constantFrom(...(fixtures.queryValues[p.name] ?? ['-'])).map((v) => [piece(p.name, encodeURIComponent(v))]),
      ],
      [2, fc.constantFrom(...ODD_QUERY_VALUES).map((v) => [piece(p.name, v)])],
      // Repeated: ?period=a&period=b
      [
        1,
        fc
          .tuple(valueArb(doc, p.schema), fc.constantFrom(...ODD_QUERY_VALUES))
          .map(([a, b]) => [piece(p.name, encodeURIComponent(String(a))), piece(p.name, b)]),
      ],
      [1, fc.constantFrom(`${p.name}[]=1`, `${p.name}[a]=b`, `${p.name}`, `${p.name}=`, `${p.name}[]=1&${p.name}[]=2`).map((s) => [s])],
    ),
  );
  const extra = weighted<string[]>(
    [params.length ? 8 : 20, fc.constant([])],
    [
      1,
      fc
        .constantFrom('foo=1', '=1', '&&', '%=%', 'a=%ff', '__proto__[x]=1', 'constructor=1', 'limit=1&limit=2', 'a'.repeat(4_000) + '=1')
        .map((s) => [s]),
    ],
  );
  return fc.tuple(fc.tuple(...validPieces), extra).map(([pieces, more]) => [...pieces.flat(), ...more]);
}

const latin1Visible = fc.string({
  unit: fc
    .integer({ min: 0x20, max: 0xff })
    .filter((c) => c !== 0x7f)
    .map((c) => String.fromCharCode(c)),
  minLength: 1,
  maxLength: 60,
});

function authArb(audience: Audience, fixtures: FuzzFixtures): fc.Arbitrary<string> {
  const weights = Object.entries(fixtures.authWeights[audience]).filter(([, w]) => w > 0);
  return weighted<string>(
    ...weights.map(([name, weight]) => [weight, fc.constant(name)] as [number, fc.Arbitrary<string>]),
    [2, latin1Visible.map((s) => `raw:Bearer ${s}`)],
    [1, latin1Visible.map((s) => `raw:${s}`)],
  );
}

const ODD_HEADERS: fc.Arbitrary<[string, string]> = fc.constantFrom<[string, string]>(
  ['x-request-id', 'fuzz-request'],
  ['x-request-id', ''],
  ['x-request-id', 'r'.repeat(500)],
  ['x-request-id', 'é\u00ff "quoted" <tag>'],
  // Secrets where they would be logged or echoed.
  ['x-request-id', 'eprc_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA_BBBBBB'],
  ['user-agent', 'curl/8 Bearer eprc_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA_BBBBBB'],
  // A second Authorization header (the request has its own): 400.
  ['authorization', 'Bearer eprc_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA_BBBBBB'],
  ['accept', 'text/html'],
  ['accept', 'application/xml'],
  ['accept', '*/*;q=0'],
  ['accept', 'application/problem+json'],
  ['accept', 'text/csv'],
  ['accept', 'text/csv;q=0.5, application/json;q=0.4'],
  ['accept-encoding', 'gzip, br'],
  ['accept-charset', 'latin1'],
  ['if-none-match', '*'],
  ['if-none-match', 'garbage'],
  ['if-none-match', 'W/"x", "y"'],
  ['if-modified-since', 'yesterday'],
  ['range', 'bytes=0-10'],
  ['origin', 'https://evil.example'],
  ['x-forwarded-for', "1.2.3.4, ' OR 1=1"],
  ['x-http-method-override', 'DELETE'],
  ['cookie', 'session=abc; a=b'],
  ['x-pad', 'p'.repeat(12_000)],
  ['idempotency-key', ''],
  ['idempotency-key', 'k'.repeat(300)],
  ['idempotency-key', '"quoted-key"'],
  ['idempotency-key', 'has space'],
  ['idempotency-key', 'clé-é'],
  ['idempotency-key', '""'],
  ['content-encoding', 'gzip'],
  ['content-encoding', 'br'],
  ['content-encoding', 'identity'],
  ['content-encoding', 'x-bogus'],
  ['transfer-encoding', 'chunked'],
);

const CONTENT_TYPES_ODD = [
  'text/plain',
  'text/plain; charset=utf-8',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/json; charset=latin1',
  'application/json; charset=utf-16',
  'application/json; charset=""',
  'application/JSON',
  'application/json;',
  'application/problem+json',
  'application/merge-patch+json',
  'application/vnd.api+json',
  'application/xml',
  '*/*',
  'garbage',
  '',
  'application/json, text/plain',
  'application/octet-stream',
  'application/jsonx',
  'application/json; boundary=x',
];

export interface GenerateOptions {
  /** Share of requests whose JSON body is not mutated at all (valid-ish as generated). */
  unmutatedWeight: number;
}

/**
 * Node refuses a request line + headers over 16 KiB with a bare 431 before the app sees it:
 * stay under (dropping padding headers first, then the longest query pieces).
 */
const HEADER_BUDGET = 15_000;
function fitHeaderLimit(req: FuzzRequest, maxAuthorization: number): FuzzRequest {
  const size = (r: FuzzRequest) =>
    pathWithQuery(r).length + r.headers.reduce((n, [k, v]) => n + k.length + v.length + 4, 0) + maxAuthorization + 300;
  let fitted = req;
  if (size(fitted) > HEADER_BUDGET) fitted = { ...fitted, headers: fitted.headers.filter(([name]) => name !== 'x-pad') };
  while (size(fitted) > HEADER_BUDGET && fitted.query.length) {
    const longest = fitted.query.reduce((best, q, i) => (q.length > fitted.query[best]!.length ? i : best), 0);
    fitted = { ...fitted, query: fitted.query.filter((_, i) => i !== longest) };
  }
  return fitted;
}

function requestArb(op: Operation, fixtures: FuzzFixtures, doc: Json, options: GenerateOptions): fc.Arbitrary<FuzzRequest> {
  const maxAuthorization = Math.max(...Object.values(fixtures.authorization).map((v) => v?.length ?? 0), 80);
  const writes = op.method !== 'GET';
  const pathParams = fc.tuple(...op.pathParams.map((p) => pathValueArb(p, fixtures, doc, writes)));
  const headerParams = fc
    .tuple(
      ...op.headerParams.map((p) =>
        weighted<Array<[string, string]>>(
          [2, fc.constant([])],
          [1, fc.uuid().map((u) => [[p.name, u]] as Array<[string, string]>)],
          [1, valueArb(doc, p.schema).map((v) => [[p.name, escapeUnsafe(String(v))]] as Array<[string, string]>)],
          // A few values used again and again, so that later requests meet earlier ones (e.g. an
          // Idempotency-Key replayed with the same body, or reused with another).
          [2, fc.constantFrom('fuzz-1', 'fuzz-2', '"fuzz-1"').map((v) => [[p.name, v]] as Array<[string, string]>)],
          [1, latin1Visible.map((v) => [[p.name, v]] as Array<[string, string]>)],
        ),
      ),
    )
    .map((lists) => lists.flat());
  const extraHeaders = weighted<Array<[string, string]>>(
    [6, fc.constant([])],
    [3, fc.uniqueArray(ODD_HEADERS, { minLength: 1, maxLength: 3, selector: ([name]) => name })],
  );
  const method = weighted<string>(
    [30, fc.constant(op.method)],
    [1, fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD').filter((m) => m !== op.method)],
  );
  const hasBody = !!op.body;
  const body = weighted<FuzzRequest['body']>(
    [hasBody ? 10 : 30, fc.constant(undefined)],
    [
      hasBody ? 200 : 1,
      fc.record({
        json: op.body ? valueArb(doc, op.body.schema) : fc.jsonValue({ maxDepth: 2 }),
        mutations: weighted<Mutation[]>(
          [options.unmutatedWeight, fc.constant([])],
          [100 - options.unmutatedWeight, fc.array(mutationArb, { minLength: 1, maxLength: 3 })],
        ),
        text: weighted<TextMutation | undefined>([12, fc.constant(undefined)], [2, textMutationArb]),
        csv: weighted<CsvShape | undefined>([1, fc.constant(undefined)], [6, csvShapeArb]),
      }),
    ],
  );
  const contentType = weighted<string | null>(
    [12, fc.constantFrom(...(op.body?.mediaTypes ?? ['application/json']))],
    [1, fc.constant('application/json; charset=utf-8')],
    [2, fc.constantFrom(...CONTENT_TYPES_ODD)],
    [1, fc.constant(null)],
  );
  // Now and then the route itself is wrong: an extra or missing segment, a typo'd prefix.
  const route = weighted<'as-is' | 'extra-segment' | 'trailing-slash' | 'drop-last' | 'v2' | 'double-slash' | 'upper-case'>(
    [60, fc.constant('as-is')],
    [1, fc.constantFrom('extra-segment', 'trailing-slash', 'drop-last', 'v2', 'double-slash', 'upper-case')],
  );
  return fc
    .record({
      auth: authArb(op.audience, fixtures),
      pathParams,
      query: queryArb(op, fixtures, doc),
      headerParams,
      extraHeaders,
      method,
      body,
      contentType,
      route,
    })
    .map((r): FuzzRequest => {
      let i = 0;
      let path = op.template.replace(/\{[^}]+\}/g, () => r.pathParams[i++] ?? 'x');
      switch (r.route) {
        case 'extra-segment':
          path += '/extra';
          break;
        case 'trailing-slash':
          path += '/';
          break;
        case 'drop-last':
          path = path.slice(0, path.lastIndexOf('/')) || '/';
          break;
        case 'v2':
          path = path.replace('/api/v1', '/api/v2');
          break;
        case 'double-slash':
          path = path.replace('/api/', '/api//');
          break;
        case 'upper-case':
          path = path.toUpperCase();
          break;
      }
      return fitHeaderLimit(
        {
          from: op.key,
          method: r.method,
          path,
          query: r.query,
          auth: r.auth,
          headers: [...r.headerParams, ...r.extraHeaders],
          contentType: r.body === undefined && !hasBody ? null : r.contentType,
          // A CSV rendering for a CSV content type (mostly), JSON text otherwise.
          body: r.body && (r.contentType?.startsWith('text/csv') ? r.body : { ...r.body, csv: undefined }),
        },
        maxAuthorization,
      );
    });
}

/** Requests for every operation of the document (weights per operation key, default 1). */
export function fuzzRequestArb(
  doc: Json,
  operations: Operation[],
  fixtures: FuzzFixtures,
  options: GenerateOptions & { weights?: Record<string, number> },
): fc.Arbitrary<FuzzRequest> {
  return weighted(
    ...operations.map(
      (op) => [options.weights?.[op.key] ?? 1, requestArb(op, fixtures, doc, options)] as [number, fc.Arbitrary<FuzzRequest>],
    ),
  );
}

// ---------------------------------------------------------------------------------------------
// Sending

export interface FuzzResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  /**
   * The connection was reset before any answer while a body over the service's 1 MiB bound was
   * still being sent: the service refused it by closing (RFC 9112 §9.6), and the reset can discard
   * its answer before the client reads it. Status 0; nothing else is known.
   */
  reset?: boolean;
}

/** The service's bound on a request body (413 past it). */
const SERVICE_BODY_LIMIT = 2 ** 20;

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

export function destroyAgent(): void {
  agent.destroy();
}

/** The body as a client reads it (what `Accept-Encoding` asked for may come compressed). */
function decode(bytes: Buffer, encoding: string | undefined): Buffer {
  if (!bytes.length) return bytes;
  switch (encoding?.trim().toLowerCase()) {
    case 'gzip':
    case 'x-gzip':
      return zlib.gunzipSync(bytes);
    case 'br':
      return zlib.brotliDecompressSync(bytes);
    case 'deflate':
      return zlib.inflateSync(bytes);
    default:
      return bytes;
  }
}

/** The Authorization header of a request. */
export function authorizationOf(req: FuzzRequest, fixtures: FuzzFixtures): string | null {
  if (req.auth.startsWith('raw:')) return req.auth.slice(4);
  const value = fixtures.authorization[req.auth];
  if (value === undefined) throw new Error(`fuzz: no authorization named ${req.auth}`);
  return value;
}

export function pathWithQuery(req: FuzzRequest): string {
  return req.query.length ? `${req.path}?${req.query.join('&')}` : req.path;
}

/** Sends the request as bytes on the wire (node:http: no header is added or normalised behind our back). */
export function send(baseUrl: string, req: FuzzRequest, fixtures: FuzzFixtures, timeoutMs = 30_000): Promise<FuzzResponse> {
  const url = new URL(baseUrl);
  const body = req.body ? bodyBytes(req.body) : undefined;
  // (With headers given as a list, node:http adds no Host header: HTTP/1.1 needs one.)
  const headers: Array<[string, string]> = [['host', url.host]];
  const authorization = authorizationOf(req, fixtures);
  if (authorization !== null) headers.push(['authorization', authorization]);
  if (req.contentType !== null) headers.push(['content-type', req.contentType]);
  const chunked = req.headers.some(([name]) => name.toLowerCase() === 'transfer-encoding');
  // Without a body, say so (as curl and browsers do): node:http would send an empty chunked body on POST/PUT/PATCH.
  if (!chunked && (body || !['GET', 'HEAD', 'DELETE'].includes(req.method))) headers.push(['content-length', String(body?.length ?? 0)]);
  headers.push(...req.headers);
  return new Promise((resolve, reject) => {
    let settled = false;
    const outgoing = http.request(
      {
        agent,
        host: url.hostname,
        port: url.port,
        method: req.method,
        path: pathWithQuery(req),
        headers: headers.flat(),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          settled = true;
          try {
            resolve({
              status: res.statusCode ?? 0,
              headers: res.headers,
              text: decode(Buffer.concat(chunks), res.headers['content-encoding']).toString('utf8'),
            });
          } catch (error) {
            reject(
              new Error(`the ${res.statusCode} response body is not valid ${String(res.headers['content-encoding'])}: ${String(error)}`),
            );
          }
        });
        res.on('error', (e) => !settled && reject(e));
      },
    );
    outgoing.setTimeout(timeoutMs, () => outgoing.destroy(new Error(`no response within ${timeoutMs} ms`)));
    // The server may answer (413, 415, 401…) and close before the whole body is written: only the
    // absence of a response is an error.
    outgoing.on('error', (e: NodeJS.ErrnoException) => {
      if (settled) return;
      if ((body?.length ?? 0) > SERVICE_BODY_LIMIT && (e.code === 'ECONNRESET' || e.code === 'EPIPE')) {
        settled = true;
        resolve({ status: 0, headers: {}, text: '', reset: true });
      } else reject(e);
    });
    if (body) outgoing.end(body);
    else outgoing.end();
  });
}

/** One line per request for reports: method, path, auth, content type, body summary. */
export function describeRequest(req: FuzzRequest): string {
  const body = req.body ? bodyBytes(req.body) : undefined;
  const shown = body
    ? body.length > 300
      ? `${body.subarray(0, 300).toString('utf8')}… (${body.length} bytes)`
      : body.toString('utf8')
    : '(no body)';
  return [
    `${req.method} ${pathWithQuery(req).slice(0, 300)}   [generated from ${req.from}]`,
    `auth: ${req.auth.slice(0, 80)}   content-type: ${req.contentType === null ? '(none)' : JSON.stringify(req.contentType)}`,
    `headers: ${JSON.stringify(req.headers.map(([n, v]) => [n, v.length > 80 ? `${v.slice(0, 80)}… (${v.length})` : v]))}`,
    `body: ${JSON.stringify(shown)}`,
  ].join('\n');
}

// ---------------------------------------------------------------------------------------------
// The database, before and after

/** Tables never compared: written by reads on purpose. */
const IGNORED_TABLES = new Set(['rate_limit_counters', 'migrations', 'typeorm_metadata']);
/** Columns that legitimately change on reads. */
const IGNORED_COLUMNS = new Set(['client_tokens.last_used_at']);

/**
 * One query that gives, per table of the public schema (but the ignored ones), its row count and
 * the md5 of all its rows as text (ignored columns left out), in a stable order.
 */
/**
 * Rows a refused request writes by design: an operator's refused request (401 on an admin route, 409, 412, 422) is
 * recorded as `admin.refused` in its own write. Any other row a refused request adds is a partial write.
 */
const IGNORED_ROWS: Record<string, string> = { audit_events: ` WHERE action <> 'admin.refused'` };

export async function snapshotQuery(pool: pg.Pool): Promise<{ sql: string; tables: string[] }> {
  const { rows } = await pool.query<{ table_name: string; column_name: string }>(
    `SELECT c.table_name, c.column_name FROM information_schema.columns c
       JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
      WHERE c.table_schema = 'public' AND t.table_type = 'BASE TABLE'
      ORDER BY c.table_name, c.ordinal_position`,
  );
  const columns = new Map<string, string[]>();
  for (const { table_name: table, column_name: column } of rows) {
    if (IGNORED_TABLES.has(table) || IGNORED_COLUMNS.has(`${table}.${column}`)) continue;
    columns.set(table, [...(columns.get(table) ?? []), `"${column}"`]);
  }
  const tables = [...columns.keys()].sort();
  const sql = tables
    .map(
      (table) =>
        `SELECT '${table}' AS t, count(*)::int AS n, md5(coalesce(string_agg(r::text, ',' ORDER BY r::text), '')) AS h FROM (SELECT ${columns.get(table)!.join(', ')} FROM "${table}"${IGNORED_ROWS[table] ?? ''}) r`,
    )
    .join(' UNION ALL ');
  return { sql, tables };
}

export type Snapshot = Record<string, { n: number; h: string }>;

export async function databaseSnapshot(pool: pg.Pool, sql: string): Promise<Snapshot> {
  const { rows } = await pool.query<{ t: string; n: number; h: string }>(sql);
  return Object.fromEntries(rows.map((r) => [r.t, { n: r.n, h: r.h }]));
}

export function snapshotDiff(before: Snapshot, after: Snapshot): string[] {
  return Object.keys({ ...before, ...after })
    .filter((t) => before[t]?.h !== after[t]?.h || before[t]?.n !== after[t]?.n)
    .map(
      (t) => `${t}: ${before[t]?.n ?? '-'} rows → ${after[t]?.n ?? '-'} rows${before[t]?.n === after[t]?.n ? ' (contents changed)' : ''}`,
    );
}
