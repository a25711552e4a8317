import { applyDecorators, type ExecutionContext, SetMetadata } from '@nestjs/common';
import { ApiBearerAuth, ApiExtraModels, ApiResponse, getSchemaPath } from '@nestjs/swagger';
import { PROBLEM_CONTENT_TYPE_BASE } from './problem/problem-content-type.js';
import { ProblemDto, ValidationProblemDto } from './problem/problem.dto.js';

/** Who may call a route. The global AuthGuard reads it; a route without it needs a client token. */
export type Audience = 'public' | 'client' | 'admin';
export const AUDIENCE_KEY = 'audience';

/** The audience of the route `context` runs: its method's, else its controller's, else `client` (deny by default). */
export function audienceOf(context: ExecutionContext): Audience {
  return ((Reflect.getMetadata(AUDIENCE_KEY, context.getHandler()) as Audience | undefined) ??
    (Reflect.getMetadata(AUDIENCE_KEY, context.getClass()) as Audience | undefined) ??
    'client');
}

const DESCRIPTIONS: Record<number, string> = {
  400: 'Malformed request (e.g. invalid JSON, a badly percent-encoded path, an invalid cursor).',
  401: 'Missing, invalid, expired or revoked token (see `WWW-Authenticate`).',
  403: 'The token is not allowed here (e.g. a client token on an admin route), or the admin API is disabled.',
  404: 'Not found (another client\'s resource is not found either).',
  409: 'Conflict with the current state or with a request in flight.',
  413: 'Request body over 1 MiB.',
  415: 'A request body of a media type or charset this route does not take (see `Accept-Post`).',
  422: 'Validation failed: every problem is listed in `errors`.',
  429: 'Rate limit exceeded (see `Retry-After`).',
  503: 'The database is unavailable; retry later.',
};

/** Response headers that come with some problems (clients act on them). */
const HEADERS: Record<number, Record<string, { required?: boolean; description: string; schema: { type: 'string'; example?: string } }>> = {
  401: {
    'WWW-Authenticate': {
      required: true,
      description: 'The Bearer challenge (RFC 6750): `Bearer realm="…"`, with `error="invalid_token"` for a wrong, expired or revoked token.',
      schema: { type: 'string', example: 'Bearer realm="epr", error="invalid_token"' },
    },
  },
  403: {
    'WWW-Authenticate': {
      description: 'For a client token on an admin route: `Bearer realm="…", error="insufficient_scope"`.',
      schema: { type: 'string', example: 'Bearer realm="epr", error="insufficient_scope"' },
    },
  },
  409: { 'Retry-After': { description: 'Seconds to wait before retrying (`idempotency_key_in_flight`).', schema: { type: 'string', example: '1' } } },
  429: {
    'Retry-After': { required: true, description: 'Seconds until the limit resets.', schema: { type: 'string', example: '30' } },
    'RateLimit-Policy': { description: 'The quotas applied (draft-ietf-httpapi-ratelimit-headers).', schema: { type: 'string', example: '"client";q=600;w=60' } },
    RateLimit: { description: 'What is left of each quota and when it resets.', schema: { type: 'string', example: '"client";r=0;t=30' } },
  },
  503: { 'Retry-After': { required: true, description: 'Seconds to wait before retrying.', schema: { type: 'string', example: '5' } } },
};

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
          },
        },
      }),
    ),
  );
}

/** Open to anyone, no credential (documented as `security: []`; '@nestjs/swagger' keeps it under this key). */
export const Public = () => applyDecorators(SetMetadata(AUDIENCE_KEY, 'public' satisfies Audience), SetMetadata('swagger/apiSecurity', []));

/** Needs a client token; documents the bearer scheme and the auth problems. */
export const ClientApi = () =>
  applyDecorators(SetMetadata(AUDIENCE_KEY, 'client' satisfies Audience), ApiBearerAuth('client'), ApiProblems(400, 401, 429, 503));

/** Needs the operator's ADMIN_TOKEN. */
export const AdminApi = () =>
  applyDecorators(SetMetadata(AUDIENCE_KEY, 'admin' satisfies Audience), ApiBearerAuth('admin'), ApiProblems(400, 401, 403, 429, 503));
