/**
 * The one error shape of the API: RFC 9457 problem details.
 * Services throw a `Problem` (or a subclass); the global ProblemFilter writes it.
 */

/** One entry of the `errors` array of a validation problem. */
export interface FieldError {
  /** JSON Pointer (RFC 6901) into the request body, or `/query/<name>` for a query parameter. */
  pointer: string;
  detail: string;
  /** Stable machine code, snake_case. */
  code: string;
  /** For a CSV body: the spreadsheet row (header = 1) the problem is in. */
  row?: number;
  /**
   * What a message in a person's language needs (`{ line: 3, field: 'quantity', decimals: 3, unit: 'kg' }`;
   * per code: src/i18n/field-params.ts). Kept in the process for the dashboard; never in an API answer
   * (the ProblemFilter leaves it out: the API's contract is the English `detail` and the stable `code`).
   */
  params?: FieldErrorParams;
}

/** A value of `FieldError.params`: text, a number, a list, or a name in each language (`{ fr, en }`). */
export type FieldErrorParam =
  | string
  | number
  | boolean
  | null
  | readonly string[]
  | readonly number[]
  | Readonly<Record<string, string>>
  | readonly Readonly<Record<string, string>>[];
export type FieldErrorParams = Readonly<Record<string, FieldErrorParam | undefined>>;

/** A field error as the API answers it: without `params`. */
export function publicFieldError(error: FieldError): Omit<FieldError, 'params'> {
  const { params: _params, ...rest } = error;
  return rest;
}

/**
 * Every problem type the API emits. The key is the stable `code` clients may branch on;
 * `type` URIs are `<PUBLIC_BASE_URL>/problems/<code with dashes>`.
 */
export const PROBLEM_TYPES = {
  bad_request: { status: 400, title: 'Bad request' },
  malformed_json: { status: 400, title: 'Malformed JSON body' },
  invalid_cursor: { status: 400, title: 'Invalid pagination cursor' },
  missing_token: { status: 401, title: 'Authentication required' },
  invalid_token: { status: 401, title: 'Invalid access token' },
  insufficient_scope: { status: 403, title: 'Not allowed with this token' },
  admin_api_disabled: { status: 403, title: 'Admin API disabled' },
  account_suspended: { status: 403, title: 'Account suspended' },
  session_required: { status: 401, title: 'Sign-in required' },
  csrf_failed: { status: 403, title: 'Form expired or not from this site' },
  not_found: { status: 404, title: 'Not found' },
  method_not_allowed: { status: 405, title: 'Method not allowed' },
  conflict: { status: 409, title: 'Conflict' },
  idempotency_key_in_flight: { status: 409, title: 'A request with this Idempotency-Key is still being processed' },
  precondition_failed: { status: 412, title: 'Precondition failed' },
  payload_too_large: { status: 413, title: 'Request body too large' },
  unsupported_media_type: { status: 415, title: 'Unsupported media type' },
  validation_failed: { status: 422, title: 'Request validation failed' },
  idempotency_key_reused: { status: 422, title: 'Idempotency-Key reused with a different request' },
  rate_limited: { status: 429, title: 'Too many requests' },
  internal_error: { status: 500, title: 'Internal server error' },
  service_unavailable: { status: 503, title: 'Service temporarily unavailable' },
} as const satisfies Record<string, { status: number; title: string }>;

export type ProblemCode = keyof typeof PROBLEM_TYPES;

export interface ProblemOptions {
  /** Extension members added to the body (e.g. `errors`). */
  extensions?: Record<string, unknown>;
  /** Response headers (e.g. `WWW-Authenticate`, `Retry-After`, `Allow`). */
  headers?: Record<string, string>;
  /** Overrides the type's default title (keep it stable per type). */
  title?: string;
  cause?: unknown;
}

export class Problem extends Error {
  readonly status: number;
  readonly title: string;
  readonly extensions: Record<string, unknown>;
  readonly headers: Record<string, string>;

  constructor(
    readonly code: ProblemCode,
    readonly detail: string,
    options: ProblemOptions = {},
  ) {
    super(detail, { cause: options.cause });
    this.name = 'Problem';
    this.status = PROBLEM_TYPES[code].status;
    this.title = options.title ?? PROBLEM_TYPES[code].title;
    this.extensions = options.extensions ?? {};
    this.headers = options.headers ?? {};
  }
}

/** The most entries a 422 lists, and the longest detail it repeats: no error response grows with what was sent. */
export const MAX_LISTED_ERRORS = 100;
export const MAX_ERROR_DETAIL_LENGTH = 300;

/**
 * 422 listing every problem of a request at once, up to MAX_LISTED_ERRORS; past that, a last entry
 * (`code: more_errors`) says how many more there are. `total` counts problems found but not passed in.
 */
export class ValidationProblem extends Problem {
  constructor(
    readonly errors: FieldError[],
    detail = describeErrors(errors),
    /** How many problems were found, listed in `errors` or not. */
    readonly total: number = errors.length,
  ) {
    const listed = errors.slice(0, MAX_LISTED_ERRORS).map((error) => ({ ...error, detail: truncate(error.detail) }));
    const unlisted = Math.max(total, errors.length) - listed.length;
    if (unlisted > 0) {
      listed.push({
        pointer: '',
        code: 'more_errors',
        detail: `${unlisted} more problem${unlisted > 1 ? 's' : ''} not listed`,
        params: { count: unlisted },
      });
    }
    super('validation_failed', truncate(detail), { extensions: { errors: listed } });
  }
}

function truncate(text: string): string {
  return text.length <= MAX_ERROR_DETAIL_LENGTH ? text : `${text.slice(0, MAX_ERROR_DETAIL_LENGTH - 1)}…`;
}

/** The `detail` of a 422: its first problem, and how many others there are (`total`, listed or not). */
export function describeErrors(errors: FieldError[], total = errors.length): string {
  const first = errors[0];
  if (!first) return 'The request is not valid.';
  const more = total > 1 ? ` (and ${total - 1} more problem${total > 2 ? 's' : ''})` : '';
  // A problem of the whole request (pointer "") is said as it is; others name where they are.
  const sentence = first.pointer ? `${first.pointer}: ${first.detail}` : first.detail.charAt(0).toUpperCase() + first.detail.slice(1);
  return `${sentence}${more}`;
}

export class NotFoundProblem extends Problem {
  constructor(what: string) {
    super('not_found', `${what} was not found.`);
  }
}
