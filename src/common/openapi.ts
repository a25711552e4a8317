import { applyDecorators } from '@nestjs/common';
import { ApiExtraModels, ApiResponse, getSchemaPath } from '@nestjs/swagger';
import { PROBLEM_CONTENT_TYPE_BASE } from './problem/problem-content-type.js';
import { ProblemDto, ValidationProblemDto } from './problem/problem.dto.js';
import { type FieldError, PROBLEM_TYPES, type ProblemCode } from './problem/problem.js';

/** `realm` of every `WWW-Authenticate: Bearer` challenge of the API (the guard sends it, this documents it). */
export const REALM = 'epr-declarations';

const DESCRIPTIONS: Record<number, string> = {
  400: 'Malformed request (e.g. invalid JSON, a badly percent-encoded path, an invalid cursor, several Authorization headers).',
  401: 'Missing, invalid, expired or revoked token (see `WWW-Authenticate`).',
  403: "The token is not allowed here (e.g. a client token on an admin route), the admin API is disabled, or the client's account is suspended (`account_suspended`: the same token works again once the operator reactivates it).",
  404: "Not found (another client's resource is not found either).",
  409: 'Conflict with the current state or with a request in flight.',
  412: 'The `If-Match` given does not match the current `ETag`: the resource changed since it was read; nothing was changed.',
  413: 'Request body over 1 MiB.',
  415: 'A request body of a media type or charset this route does not take (see `Accept-Post`).',
  422: 'Validation failed: every problem is listed in `errors`.',
  429: 'Rate limit exceeded (see `Retry-After`).',
  503: 'The database is unavailable, or the service is running as many heavy reads (previews, exports) as it takes at once; retry after `Retry-After`.',
};

/** Response headers that come with some problems (clients act on them). */
const HEADERS: Record<
  number,
  Record<string, { required?: boolean; description: string; schema: { type: 'string'; pattern?: string; example?: string } }>
> = {
  401: {
    'WWW-Authenticate': {
      required: true,
      description:
        'The Bearer challenge (RFC 6750): `Bearer realm="…"` without a token, with `error="invalid_token"` and a description for a wrong, expired or revoked one.',
      schema: {
        type: 'string',
        pattern: `^Bearer realm="${REALM}"(, error="invalid_token", error_description="[^"]*")?$`,
        example: `Bearer realm="${REALM}", error="invalid_token", error_description="The token has been revoked; ask the operator for a new one."`,
      },
    },
  },
  403: {
    'WWW-Authenticate': {
      description: 'For a client token on an admin route: `Bearer realm="…", error="insufficient_scope"`.',
      schema: {
        type: 'string',
        pattern: `^Bearer realm="${REALM}", error="insufficient_scope"(, error_description="[^"]*")?(, scope="[^"]*")?$`,
        example: `Bearer realm="${REALM}", error="insufficient_scope", error_description="Client tokens cannot call the admin API.", scope="admin"`,
      },
    },
  },
  409: {
    'Retry-After': {
      description: 'Seconds to wait before retrying (`idempotency_key_in_flight`).',
      schema: { type: 'string', example: '1' },
    },
  },
  429: {
    'Retry-After': { required: true, description: 'Seconds until the limit resets.', schema: { type: 'string', example: '30' } },
    'RateLimit-Policy': {
      description: 'The quotas applied (draft-ietf-httpapi-ratelimit-headers).',
      schema: { type: 'string', example: '"client";q=600;w=60' },
    },
    RateLimit: { description: 'What is left of each quota and when it resets.', schema: { type: 'string', example: '"client";r=0;t=30' } },
  },
  503: { 'Retry-After': { required: true, description: 'Seconds to wait before retrying.', schema: { type: 'string', example: '5' } } },
};

/**
 * What the API says for each problem, as it says it: the documented examples (a test compares them
 * with real responses of the same code). Every code has one.
 */
export const PROBLEM_EXAMPLES: Record<ProblemCode, { detail: string; errors?: FieldError[] }> = {
  bad_request: { detail: 'The request path is not correctly encoded.' },
  malformed_json: { detail: 'The request body is not valid JSON.' },
  invalid_cursor: { detail: 'The cursor is not one this API issued: pass next_cursor unchanged, or start again without cursor.' },
  missing_token: { detail: 'This route needs a token: send "Authorization: Bearer <token>".' },
  invalid_token: { detail: 'The token has been revoked; ask the operator for a new one.' },
  insufficient_scope: { detail: 'Client tokens cannot call the admin API; it needs the operator token (ADMIN_TOKEN).' },
  admin_api_disabled: {
    detail:
      'The admin API is disabled because ADMIN_TOKEN is not configured. Set ADMIN_TOKEN (a secret of at least 32 characters) in the environment of the service and restart it to enable the admin API.',
  },
  account_suspended: {
    detail: 'The account "exemple-sas" is suspended: its tokens and dashboard sessions are refused until the operator reactivates it.',
  },
  session_required: { detail: 'Sign in to the dashboard to see this page.' },
  csrf_failed: { detail: 'This form has expired or did not come from this site: reload the page and send it again.' },
  not_found: { detail: 'Declaration was not found.' },
  method_not_allowed: { detail: 'DELETE is not supported on /api/v1/declarations; use GET, POST.' },
  conflict: { detail: 'A client with client_id "exemple-sas" already exists.' },
  precondition_failed: {
    detail: 'Client "exemple-sas" changed since it was read (If-Match does not match its ETag); read it again and redo the change.',
  },
  idempotency_key_in_flight: {
    detail: 'A request with this Idempotency-Key is still being processed; retry in a moment to get its response.',
  },
  payload_too_large: { detail: 'The request body exceeds the limit of 1 MiB.' },
  unsupported_media_type: { detail: 'Content-Type text/plain is not supported; send application/json.' },
  validation_failed: {
    detail: '/lines/0/quantity: must not be negative (and 1 more problem)',
    errors: [
      { pointer: '/lines/0/quantity', detail: 'must not be negative', code: 'min' },
      { pointer: '/period', detail: 'must be a half-year such as 2026-S1', code: 'pattern' },
    ],
  },
  idempotency_key_reused: {
    detail: 'This Idempotency-Key was used in the last 24 hours with a different request body; use a new key for a different request.',
    errors: [
      {
        pointer: '/headers/idempotency-key',
        code: 'idempotency_key_reused',
        detail: 'This Idempotency-Key was used in the last 24 hours with a different request body; use a new key for a different request.',
      },
    ],
  },
  rate_limited: { detail: 'Rate limit "client" of 600 requests per 60 s exceeded; retry in 30 s.' },
  internal_error: { detail: 'An unexpected error occurred. Quote the request id when reporting it.' },
  service_unavailable: { detail: 'The database is unreachable; retry shortly.' },
};

/** The documented example bodies of a status: one per problem code with that status. */
export function problemExamples(status: number): Record<string, { summary: string; value: Record<string, unknown> }> {
  const codes = (Object.keys(PROBLEM_TYPES) as ProblemCode[]).filter((code) => PROBLEM_TYPES[code].status === status);
  return Object.fromEntries(
    codes.map((code) => {
      const { detail, errors } = PROBLEM_EXAMPLES[code];
      const value = {
        type: `http://localhost:3000/problems/${code.replace(/_/g, '-')}`,
        title: PROBLEM_TYPES[code].title,
        status,
        detail,
        instance: 'urn:request:5f0c6a43-4f39-4a5b-a8c7-0a7e7d5f1b61',
        code,
        ...(errors ? { errors } : {}),
      };
      return [code, { summary: PROBLEM_TYPES[code].title, value }];
    }),
  );
}

/** Documents problem+json responses for the given statuses. */
export function ApiProblems(...statuses: number[]) {
  return applyDecorators(
    ApiExtraModels(ProblemDto, ValidationProblemDto),
    ...statuses.map((status) =>
      ApiResponse({
        status,
        description: DESCRIPTIONS[status] ?? 'Error.',
        ...(HEADERS[status] ? { headers: HEADERS[status] } : {}),
        content: {
          [PROBLEM_CONTENT_TYPE_BASE]: {
            schema: { $ref: getSchemaPath(status === 422 ? ValidationProblemDto : ProblemDto) },
            examples: problemExamples(status),
          },
        },
      }),
    ),
  );
}
