import { type ArgumentMetadata, ValidationPipe, type ValidationError } from '@nestjs/common';
import { ValidateBy, type ValidationOptions } from 'class-validator';
import { CsvBody, MultipartBody } from './http/request-body.js';
import { escapePointer } from './problem/json-pointer.js';
import { type FieldError, Problem, ValidationProblem } from './problem/problem.js';

/** Bodies the request-body pipeline has already read into their own shape (a spreadsheet, a multipart form): the route reads them, no DTO rule applies. */
const PIPELINE_BODIES = new Set<unknown>([CsvBody, MultipartBody]);

const CODES: Record<string, string> = {
  whitelistValidation: 'unknown_field',
  isDefined: 'required',
  nestedValidation: 'invalid_type',
  isObject: 'invalid_type',
};

/** `isEmail` → `invalid_email`, `maxLength` → `max_length`. */
function codeOf(constraint: string): string {
  if (CODES[constraint]) return CODES[constraint];
  const snake = constraint.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
  return snake.startsWith('is_') ? `invalid_${snake.slice(3)}` : snake;
}

/** Flattens class-validator's tree into `{ pointer, detail, code }` entries (RFC 6901 pointers). */
export function toFieldErrors(errors: ValidationError[], root = ''): FieldError[] {
  const out: FieldError[] = [];
  for (const error of errors) {
    const pointer = `${root}/${escapePointer(String(error.property))}`;
    // A required field that is absent: one `required` problem, not every rule its absence breaks.
    if (Object.hasOwn(error, 'value') && error.value === undefined && error.constraints && !error.constraints.whitelistValidation) {
      out.push({ pointer, detail: 'is required', code: 'required', params: { field: String(error.property) } });
      continue;
    }
    for (const [constraint, message] of Object.entries(error.constraints ?? {})) {
      // Not an array: `invalid_array` says it; its items were not looked at.
      if (constraint === 'nestedValidation' && error.constraints?.isArray) continue;
      const detail = constraint === 'whitelistValidation' ? `unknown field "${String(error.property)}"` : message.replace(/^\S+ /, '');
      const code = codeOf(constraint);
      out.push({ pointer, detail, code, params: { field: String(error.property), ...boundsOf(code, detail) } });
    }
    if (error.children?.length) out.push(...toFieldErrors(error.children, pointer));
  }
  return out;
}

/** The bounds class-validator states in its English message (`max_length` → `{ max: 100 }`), for messages in other languages. */
function boundsOf(code: string, detail: string): { min?: number; max?: number } {
  const [first, second] = (detail.match(/\d+/g) ?? []).map(Number);
  if (first === undefined) return {};
  switch (code) {
    case 'limit_out_of_range':
    case 'link_lifetime_out_of_range':
      return { min: first, max: second };
    case 'invalid_length':
      return /longer/.test(detail) ? { min: first } : { max: first };
    case 'max_length':
    case 'array_max_size':
    case 'expiry_out_of_range':
      return { max: first };
    default:
      return {};
  }
}

/**
 * The global pipe: strict whitelisting, every problem reported at once as a 422.
 * Pointers are into the JSON body; query-string problems point at `/query/<name>`.
 */
export class ApiValidationPipe extends ValidationPipe {
  constructor() {
    super({
      whitelist: true,
      forbidNonWhitelisted: true,
      transform: true,
      transformOptions: { enableImplicitConversion: false },
      // The value only to tell an absent field (`required`) from a wrong one; never written anywhere.
      validationError: { target: false, value: true },
      stopAtFirstError: false,
      exceptionFactory: (errors) => new ValidationProblem(toFieldErrors(errors)),
    });
  }

  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.type === 'body' && PIPELINE_BODIES.has(metadata.metatype)) return value;
    // No body at all validates like an empty object: required fields are then named one by one.
    if (metadata.type === 'body' && value === undefined) value = {};
    const isDto = typeof metadata.metatype === 'function' && metadata.metatype !== Object && metadata.metatype !== String;
    // A DTO body or query goes through class-transformer, which must not meet hostile nesting or text,
    // and its values to SQL, which cannot hold a NUL (`?q=%00`). (A body the route validates itself, like a
    // declaration, has its own rules for both.)
    if ((metadata.type === 'body' || metadata.type === 'query') && isDto) {
      const errors = textProblems(value);
      if (errors.length > 0)
        throw new ValidationProblem(metadata.type === 'query' ? errors.map((e) => ({ ...e, pointer: `/query${e.pointer}` })) : errors);
    }
    if (metadata.type === 'body' && isDto && (value === null || typeof value !== 'object' || Array.isArray(value))) {
      throw new Problem('bad_request', 'The request body must be a JSON object.');
    }
    // class-transformer skips these keys without a word; they are unknown fields like any other.
    const reserved = metadata.type === 'body' && isDto ? reservedKeyProblems(value) : [];
    let transformed: unknown;
    try {
      transformed = await super.transform(value, metadata);
    } catch (error) {
      if (metadata.type === 'query' && error instanceof ValidationProblem) {
        throw new ValidationProblem(error.errors.map((e) => ({ ...e, pointer: `/query${e.pointer}` })));
      }
      if (reserved.length > 0 && error instanceof ValidationProblem) throw new ValidationProblem([...reserved, ...error.errors]);
      throw error;
    }
    if (reserved.length > 0) throw new ValidationProblem(reserved);
    return transformed;
  }
}

const RESERVED_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/** `unknown_field` for every `__proto__`, `constructor` or `prototype` key, at any depth. */
function reservedKeyProblems(body: unknown): FieldError[] {
  const errors: FieldError[] = [];
  const stack: { value: unknown; pointer: string }[] = [{ value: body, pointer: '' }];
  while (stack.length > 0 && errors.length < 100) {
    const { value, pointer } = stack.pop()!;
    if (value === null || typeof value !== 'object') continue;
    for (const [key, child] of Object.entries(value)) {
      const at = `${pointer}/${escapePointer(key)}`;
      if (RESERVED_KEYS.has(key))
        errors.push({ pointer: at, detail: `unknown field "${key}"`, code: 'unknown_field', params: { field: key } });
      else stack.push({ value: child, pointer: at });
    }
  }
  return errors;
}

// Invisible format characters (U+200B, U+202E…) and line/paragraph separators: text that displays
// as other text, in fields that are one line of text.
const INVISIBLE_OR_SEPARATOR = /[\p{Cf}\u2028\u2029]/u;

/** Deeper JSON than any request of this API needs; refused before class-transformer recurses into it. */
export const MAX_JSON_DEPTH = 32;

/**
 * Problems no DTO rule should have to think of: nesting deeper than MAX_JSON_DEPTH, and strings
 * with a NUL character (PostgreSQL cannot store it), a lone UTF-16 surrogate (not Unicode text), or
 * an invisible format character or line separator.
 * Iterative, so that a hostile body cannot exhaust the stack.
 */
export function textProblems(body: unknown): FieldError[] {
  const errors: FieldError[] = [];
  const stack: { value: unknown; pointer: string; depth: number }[] = [{ value: body, pointer: '', depth: 0 }];
  while (stack.length > 0 && errors.length < 100) {
    const { value, pointer, depth } = stack.pop()!;
    if (typeof value === 'string') {
      if (value.includes('\u0000') || !value.isWellFormed()) {
        errors.push({
          pointer,
          detail: 'must not contain NUL characters or unpaired UTF-16 surrogates',
          code: 'invalid_characters',
          params: {},
        });
      } else if (INVISIBLE_OR_SEPARATOR.test(value)) {
        errors.push({
          pointer,
          detail: 'must not contain invisible format characters (U+200B, U+202E…) or line separators',
          code: 'invalid_characters',
          params: {},
        });
      }
    } else if (value !== null && typeof value === 'object') {
      if (depth >= MAX_JSON_DEPTH) {
        errors.push({
          pointer,
          detail: `is nested deeper than ${MAX_JSON_DEPTH} levels`,
          code: 'too_deep',
          params: { max: MAX_JSON_DEPTH },
        });
        continue;
      }
      for (const [key, child] of Object.entries(value)) {
        stack.push({ value: child, pointer: `${pointer}/${escapePointer(key)}`, depth: depth + 1 });
      }
    }
  }
  return errors;
}

/** A string with at least one character that is not white space. */
export const NotBlank = (options?: ValidationOptions) =>
  ValidateBy(
    {
      name: 'notBlank',
      validator: {
        validate: (value: unknown) => typeof value !== 'string' || value.trim().length > 0,
        defaultMessage: () => '$property must not be blank',
      },
    },
    options,
  );
