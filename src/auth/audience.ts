import { applyDecorators, type ExecutionContext, SetMetadata } from '@nestjs/common';
import { ApiBearerAuth } from '@nestjs/swagger';
import { ApiProblems } from '../common/openapi.js';

/** Who may call a route. The global AuthGuard reads it; a route without it needs a client token. */
export type Audience = 'public' | 'client' | 'admin';
export const AUDIENCE_KEY = 'audience';

/** The audience of the route `context` runs: its method's, else its controller's, else `client` (deny by default). */
export function audienceOf(context: ExecutionContext): Audience {
  return ((Reflect.getMetadata(AUDIENCE_KEY, context.getHandler()) as Audience | undefined) ??
    (Reflect.getMetadata(AUDIENCE_KEY, context.getClass()) as Audience | undefined) ??
    'client');
}

/** Open to anyone, no credential (documented as `security: []`; '@nestjs/swagger' keeps it under this key). */
export const Public = () => applyDecorators(SetMetadata(AUDIENCE_KEY, 'public' satisfies Audience), SetMetadata('swagger/apiSecurity', []));

/** Needs a client token; documents the bearer scheme and the auth problems. */
export const ClientApi = () =>
  applyDecorators(SetMetadata(AUDIENCE_KEY, 'client' satisfies Audience), ApiBearerAuth('client'), ApiProblems(400, 401, 429, 503));

/** Needs the operator's ADMIN_TOKEN or a named operator token. */
export const AdminApi = () =>
  applyDecorators(SetMetadata(AUDIENCE_KEY, 'admin' satisfies Audience), ApiBearerAuth('admin'), ApiProblems(400, 401, 403, 429, 503));
