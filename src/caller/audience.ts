import { applyDecorators, type ExecutionContext, SetMetadata } from '@nestjs/common';
import { ApiBearerAuth, ApiExcludeController } from '@nestjs/swagger';
import { ApiProblems } from '../common/openapi.js';

/**
 * Who may call a route. The global AuthGuard reads it; a route without it needs a client token.
 * `session`: the dashboard's pages, for a client's people signed in (session cookie).
 * `operator`: the operator's console, for a named operator signed in (a session cookie of its own).
 */
export type Audience = 'public' | 'client' | 'admin' | 'session' | 'operator';
export const AUDIENCE_KEY = 'audience';

/** The audience of the route `context` runs: its method's, else its controller's, else `client` (deny by default). */
export function audienceOf(context: ExecutionContext): Audience {
  return (
    (Reflect.getMetadata(AUDIENCE_KEY, context.getHandler()) as Audience | undefined) ??
    (Reflect.getMetadata(AUDIENCE_KEY, context.getClass()) as Audience | undefined) ??
    'client'
  );
}

/** Open to anyone, no credential (documented as `security: []`; '@nestjs/swagger' keeps it under this key). */
export const Public = () => applyDecorators(SetMetadata(AUDIENCE_KEY, 'public' satisfies Audience), SetMetadata('swagger/apiSecurity', []));

/** Needs a client token; documents the bearer scheme and the auth problems. */
export const ClientApi = () =>
  applyDecorators(SetMetadata(AUDIENCE_KEY, 'client' satisfies Audience), ApiBearerAuth('client'), ApiProblems(400, 401, 403, 429, 503));

/** Needs the operator's ADMIN_TOKEN or a named operator token. */
export const AdminApi = () =>
  applyDecorators(SetMetadata(AUDIENCE_KEY, 'admin' satisfies Audience), ApiBearerAuth('admin'), ApiProblems(400, 401, 403, 429, 503));

/** A dashboard page or form: needs a dashboard session of the client; its forms need their CSRF token. Not in the OpenAPI document. */
export const DashboardPage = () => applyDecorators(SetMetadata(AUDIENCE_KEY, 'session' satisfies Audience), ApiExcludeController());

/**
 * A page or form of the operator's console (`/operator`): needs a console session of a named
 * operator (never a client's session nor any token); its forms need their CSRF token. Not in the OpenAPI document.
 */
export const OperatorPage = () => applyDecorators(SetMetadata(AUDIENCE_KEY, 'operator' satisfies Audience), ApiExcludeController());

export const FORM_KEY = 'csrf-protected-form';

/** A public page's form (signing in): open to anyone, but its POST needs the page's CSRF token like every dashboard form. */
export const PublicForm = () => applyDecorators(Public(), SetMetadata(FORM_KEY, true));
