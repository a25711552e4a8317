import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiBearerAuth, ApiExtraModels, ApiResponse, getSchemaPath } from '@nestjs/swagger';
import { PROBLEM_CONTENT_TYPE_BASE } from './problem/problem-content-type.js';
import { ProblemDto, ValidationProblemDto } from './problem/problem.dto.js';

/** Who may call a route. The global AuthGuard reads it; a route without it needs a client token. */
export type Audience = 'public' | 'client' | 'admin';
export const AUDIENCE_KEY = 'audience';

const DESCRIPTIONS: Record<number, string> = {
  400: 'Malformed request (e.g. invalid JSON, invalid cursor).',
  401: 'Missing, invalid, expired or revoked token (see `WWW-Authenticate`).',
  403: 'The token is not allowed here (e.g. a client token on an admin route), or the admin API is disabled.',
  404: 'Not found (another client\'s resource is not found either).',
  409: 'Conflict with the current state or with a request in flight.',
  413: 'Request body over 1 MiB.',
  415: 'Request body is not application/json.',
  422: 'Validation failed: every problem is listed in `errors`.',
  429: 'Rate limit exceeded (see `Retry-After`).',
  503: 'The database is unavailable; retry later.',
};

/** Documents problem+json responses for the given statuses. */
export function ApiProblems(...statuses: number[]) {
  return applyDecorators(
    ApiExtraModels(ProblemDto, ValidationProblemDto),
    ...statuses.map((status) =>
      ApiResponse({
        status,
        description: DESCRIPTIONS[status] ?? 'Error.',
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
  applyDecorators(SetMetadata(AUDIENCE_KEY, 'client' satisfies Audience), ApiBearerAuth('client'), ApiProblems(401, 429, 503));

/** Needs the operator's ADMIN_TOKEN. */
export const AdminApi = () =>
  applyDecorators(SetMetadata(AUDIENCE_KEY, 'admin' satisfies Audience), ApiBearerAuth('admin'), ApiProblems(401, 403, 429, 503));
