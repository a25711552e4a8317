import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import helmet, { type HelmetOptions } from 'helmet';

const HELMET_OPTIONS: Readonly<HelmetOptions> = {
  contentSecurityPolicy: {
    // Swagger UI (at /docs) loads its own script and styles from this origin, and inline SVG icons.
    directives: { 'img-src': ["'self'", 'data:', 'https://validator.swagger.io'] },
  },
};

let computed: OutgoingHttpHeaders | undefined;

/**
 * The headers helmet sets with the service's policy, computed once by running it on a recording
 * response: they do not depend on the request, so the edge (src/edge/edge-handler.ts) sets them on every
 * response (and the public files carry them in their prebuilt header lists) without running helmet
 * per request.
 */
export function precomputedSecurityHeaders(): OutgoingHttpHeaders {
  if (computed) return { ...computed };
  const headers: OutgoingHttpHeaders = {};
  const res = {
    setHeader(name: string, value: string) {
      headers[name] = value;
      return res;
    },
    removeHeader(name: string) {
      delete headers[name];
    },
  };
  let called = false;
  helmet(HELMET_OPTIONS)({ headers: {} } as IncomingMessage, res as unknown as ServerResponse, (error?: unknown) => {
    if (error) throw error;
    called = true;
  });
  if (!called) throw new Error('helmet did not run synchronously: its headers cannot be precomputed');
  computed = headers;
  return { ...headers };
}

/** The same as `[name, value, name, value…]`, as writeHead and a loop of setHeader take them. */
export function securityHeaderList(): string[] {
  return Object.entries(precomputedSecurityHeaders()).flatMap(([name, value]) => [name, String(value)]);
}
