import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import helmet, { type HelmetOptions } from 'helmet';

const HELMET_OPTIONS: Readonly<HelmetOptions> = {
  contentSecurityPolicy: {
    // Swagger UI (at /docs) loads its own script and styles from this origin, and inline SVG icons.
    directives: { 'img-src': ["'self'", 'data:', 'https://validator.swagger.io'] },
  },
};

/** Helmet with the service's policy: the middleware every routed response goes through. */
export function securityHeaders(): ReturnType<typeof helmet> {
  return helmet(HELMET_OPTIONS);
}

/**
 * The headers that middleware sets, computed once by running it on a recording response: they do
 * not depend on the request, so a response built ahead (a public file) carries exactly these.
 */
export function precomputedSecurityHeaders(): OutgoingHttpHeaders {
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
  securityHeaders()({ headers: {} } as IncomingMessage, res as unknown as ServerResponse, (error?: unknown) => {
    if (error) throw error;
    called = true;
  });
  if (!called) throw new Error('helmet did not run synchronously: its headers cannot be precomputed');
  return headers;
}
