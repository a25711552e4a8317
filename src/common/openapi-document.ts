import type { OpenAPIObject } from '@nestjs/swagger';

/**
 * Document-wide completions of the OpenAPI document, applied where it is built (src/openapi.ts):
 * what every operation shares and the decorators would have to repeat on each (so that
 * nothing the service sends or reads is left unsaid). test/support/contract.ts checks that every header listed here is
 * documented wherever the service sends it.
 */

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

const REQUEST_ID_PATTERN = '^[A-Za-z0-9._:-]{1,128}$';

/** `X-Request-Id`, read on every request and echoed on every response. */
export const REQUEST_ID_PARAMETER = {
  name: 'X-Request-Id',
  in: 'header',
  required: false,
  description:
    'Your id for this request (1–128 letters, digits, `.`, `_`, `:` or `-`): echoed in the response and its logs, and the `instance` of a problem. Anything else is replaced by a generated UUID.',
  schema: { type: 'string', pattern: REQUEST_ID_PATTERN, example: 'erp-batch-2026-07-01-0001' },
};
const REQUEST_ID_HEADER = {
  description: 'The request id: yours if it was usable, else a generated UUID (quote it when reporting a problem).',
  schema: { type: 'string', pattern: REQUEST_ID_PATTERN, example: '5f0c6a43-4f39-4a5b-a8c7-0a7e7d5f1b61' },
};
/** One or more `"<quota>";<key>=<n>;<key>=<n>` items (draft-ietf-httpapi-ratelimit-headers). */
const QUOTA_LIST = (keys: string) => `^"[a-z_:-]+";${keys}(, *"[a-z_:-]+";${keys})*$`;
const RATE_LIMIT_HEADERS = {
  'RateLimit-Policy': {
    description:
      'The quotas applied to your calls (draft-ietf-httpapi-ratelimit-headers), e.g. `"client";q=600;w=60`; test tokens have a budget of their own.',
    schema: { type: 'string', pattern: QUOTA_LIST('q=\\d+;w=\\d+'), example: '"client";q=600;w=60' },
  },
  RateLimit: {
    description: 'What is left of each quota and the seconds until it resets, e.g. `"client";r=599;t=60`.',
    schema: { type: 'string', pattern: QUOTA_LIST('r=\\d+;t=\\d+'), example: '"client";r=599;t=60' },
  },
};
const ACCEPT_POST = {
  required: true,
  description: 'The media types this route takes (RFC 9110 §10.1.1 style), e.g. `application/json, text/csv`.',
  schema: { type: 'string', pattern: '^[a-z]+/[a-z0-9.+*-]+(, [a-z]+/[a-z0-9.+*-]+)*$', example: 'application/json, text/csv' },
};
const RETRY_AFTER = { description: 'Seconds to wait before retrying.', schema: { type: 'string', example: '30' } };

export function completeDocument<T extends OpenAPIObject>(document: T): T {
  const requestBodySchemas = new Set<string>();
  const bodyProblems = bodyProblemResponses(document);
  for (const item of Object.values(document.paths as Json)) {
    for (const method of METHODS) {
      const operation = (item as Json)[method] as Json | undefined;
      if (!operation) continue;
      // Every POST, PUT and PATCH reads what is sent, even to a route that takes no body: a body too
      // large is 413, one of a media type the route does not take 415 (common/http/request-body.ts).
      if (BODY_METHODS.has(method))
        for (const [status, response] of bodyProblems) operation.responses[status] ??= structuredClone(response);
      const limited = Array.isArray(operation.security) && operation.security.length > 0;
      operation.parameters = [
        ...(operation.parameters ?? []).filter((p: Json) => p.name?.toLowerCase() !== 'x-request-id'),
        REQUEST_ID_PARAMETER,
      ];
      for (const [status, response] of Object.entries(operation.responses ?? {}) as [string, Json][]) {
        if (response.$ref) continue;
        const headers: Json = (response.headers ??= {});
        headers['X-Request-Id'] ??= REQUEST_ID_HEADER;
        // Every response of an authenticated route counts against a quota and says so (a 429 most of all).
        if (limited) for (const [name, header] of Object.entries(RATE_LIMIT_HEADERS)) headers[name] ??= header;
        if (status === '415') headers['Accept-Post'] ??= ACCEPT_POST;
        if (status === '429' || status === '503') headers['Retry-After'] ??= { ...RETRY_AFTER, required: true };
      }
      const body = operation.requestBody as Json | undefined;
      for (const media of Object.values(body?.content ?? {}) as Json[]) {
        const ref = media.schema?.$ref as string | undefined;
        if (ref) requestBodySchemas.add(ref.split('/').pop()!);
      }
    }
  }
  closeSchemas(document, requestBodySchemas);
  return document;
}

const BODY_METHODS = new Set(['post', 'put', 'patch']);

/** The 413 and 415 responses as the routes that declare them document them (ApiProblems in common/openapi.ts). */
function bodyProblemResponses(document: OpenAPIObject): [string, Json][] {
  const found = new Map<string, Json>();
  for (const item of Object.values(document.paths as Json)) {
    for (const method of BODY_METHODS) {
      for (const status of ['413', '415']) {
        const response = (item as Json)[method]?.responses?.[status];
        if (response && !found.has(status)) found.set(status, response);
      }
    }
  }
  return [...found.entries()];
}

/**
 * Request bodies refuse unknown fields (422 `unknown_field`): their schemas, and the object schemas
 * they hold, say `additionalProperties: false`, so that validators and generated clients know it.
 */
function closeSchemas(document: OpenAPIObject, names: Set<string>): void {
  const schemas = (document.components?.schemas ?? {}) as Json;
  const seen = new Set<string>();
  const close = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(close);
    if (!node || typeof node !== 'object') return;
    const schema = node as Json;
    if (typeof schema.$ref === 'string') {
      const name = schema.$ref.split('/').pop()!;
      if (!seen.has(name) && schemas[name]) {
        seen.add(name);
        close(schemas[name]);
      }
      return;
    }
    if (schema.type === 'object' && schema.properties && schema.additionalProperties === undefined) schema.additionalProperties = false;
    for (const key of ['properties', 'items', 'allOf', 'oneOf', 'anyOf']) {
      const child = schema[key];
      if (key === 'properties' && child) Object.values(child).forEach(close);
      else close(child);
    }
  };
  for (const name of names) close({ $ref: `#/components/schemas/${name}` });
}
