import { type ArgumentMetadata, ValidationPipe, type ValidationError } from '@nestjs/common';
import { type FieldError, Problem, ValidationProblem } from './problem/problem.js';

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

const escapePointer = (segment: string) => segment.replace(/~/g, '~0').replace(/\//g, '~1');

/** Flattens class-validator's tree into `{ pointer, detail, code }` entries (RFC 6901 pointers). */
export function toFieldErrors(errors: ValidationError[], root = ''): FieldError[] {
  const out: FieldError[] = [];
  for (const error of errors) {
    const pointer = `${root}/${escapePointer(String(error.property))}`;
    for (const [constraint, message] of Object.entries(error.constraints ?? {})) {
      const detail =
        constraint === 'whitelistValidation' ? `unknown field "${String(error.property)}"` : message.replace(/^\S+ /, '');
      out.push({ pointer, detail, code: codeOf(constraint) });
    }
    if (error.children?.length) out.push(...toFieldErrors(error.children, pointer));
  }
  return out;
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
      validationError: { target: false, value: false },
      stopAtFirstError: false,
      exceptionFactory: (errors) => new ValidationProblem(toFieldErrors(errors)),
    });
  }

  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    // No body at all validates like an empty object: required fields are then named one by one.
    if (metadata.type === 'body' && value === undefined) value = {};
    const isDto = typeof metadata.metatype === 'function' && metadata.metatype !== Object && metadata.metatype !== String;
    if (metadata.type === 'body' && isDto && (value === null || typeof value !== 'object' || Array.isArray(value))) {
      throw new Problem('bad_request', 'The request body must be a JSON object.');
    }
    try {
      return await super.transform(value, metadata);
    } catch (error) {
      if (metadata.type === 'query' && error instanceof ValidationProblem) {
        throw new ValidationProblem(error.errors.map((e) => ({ ...e, pointer: `/query${e.pointer}` })));
      }
      throw error;
    }
  }
}
