import { type INestApplication, NotFoundException } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import helmet from 'helmet';
import { DocumentBuilder, type OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import metadata from './metadata.js';
import { completeDocument } from './common/openapi-document.js';
import { documentCsvRequestBody } from './declarations/csv/declaration-csv.openapi.js';
import { addReferenceSchemas } from './reference/reference-openapi.js';

export const OPENAPI_PATH = '/docs/openapi.json';

/** The API's OpenAPI document, from the routes, DTOs and the build's plugin metadata (src/metadata.ts). */
export async function createOpenApiDocument(app: INestApplication): Promise<OpenAPIObject> {
  await SwaggerModule.loadPluginMetadata(metadata);
  return buildDocument(app);
}

/** The document once the plugin metadata is loaded: scanning every route and DTO, the costliest step of a start-up were it done there. */
function buildDocument(app: INestApplication): OpenAPIObject {
  const builder = new DocumentBuilder()
    .setTitle('EPR packaging declarations API')
    .setDescription(
      [
        'Declarations of packaging placed on the French market under extended producer responsibility (EPR / REP).',
        '',
        '* **Public reference data** (no key): plans and prices, streams, law, obligations — CC BY 4.0.',
        '* **Client API**: `Authorization: Bearer <token>` issued by the operator; read your account, submit and list declarations.',
        '* **Admin API**: the operator onboards clients and issues tokens with `ADMIN_TOKEN`.',
        '',
        'Errors are `application/problem+json` (RFC 9457); validation errors list every problem with a JSON pointer.',
      ].join('\n'),
    )
    .setVersion('1.0.0')
    .setLicense('CC BY 4.0 (reference data)', 'https://creativecommons.org/licenses/by/4.0/')
    // Relative: "Try it out" calls the address the document was fetched from (127.0.0.1, a LAN
    // address, a proxy, a forwarded port), not the one in PUBLIC_BASE_URL.
    .addServer('/', 'This server: the address this document was fetched from.')
    .addTag('reference data', 'Public reference files (no key, CC BY 4.0), served with ETag, gzip/brotli and CORS.')
    .addTag('client', 'For client systems, with their bearer token: the account and its declarations.')
    .addTag('admin', 'For the operator, with ADMIN_TOKEN: onboarding and tokens.')
    .addTag('health', 'Liveness and readiness probes.')
    .addBearerAuth(
      {
        type: 'http',
        scheme: 'bearer',
        bearerFormat: 'opaque: eprc_<32 base62>_<6-character checksum>',
        description: 'A client token issued by the operator (shown once).',
      },
      'client',
    )
    .addBearerAuth(
      { type: 'http', scheme: 'bearer', bearerFormat: 'opaque secret', description: 'The operator secret (ADMIN_TOKEN).' },
      'admin',
    )
    .build();
  const document = SwaggerModule.createDocument(app, builder, {
    operationIdFactory: (_controllerKey, methodKey) => methodKey,
  });
  return completeDocument(nullableReferences(documentCsvRequestBody(addReferenceSchemas(document))));
}

/**
 * OpenAPI 3.0.3: `nullable` adds null to what `type` allows, but an `allOf` or `$ref` beside it still
 * applies to null, so what the plugin writes for `Dto | null` allows no null to strict validators.
 * Rewritten as "the referenced schema, or null".
 */
export function nullableReferences<T>(node: T): T {
  if (Array.isArray(node)) return node.map(nullableReferences) as T;
  if (!node || typeof node !== 'object') return node;
  const { nullable, ...rest } = node as Record<string, unknown>;
  const out = Object.fromEntries(Object.entries(rest).map(([key, value]) => [key, nullableReferences(value)]));
  if (nullable !== true || !('$ref' in out || 'allOf' in out)) return (nullable === undefined ? out : { ...out, nullable }) as T;
  const {
    $ref,
    allOf,
    description,
    type: _type,
    ...others
  } = out as { $ref?: string; allOf?: unknown[]; description?: string; type?: unknown };
  const target = $ref ? [{ $ref }] : (allOf ?? []);
  return { ...others, ...(description ? { description } : {}), oneOf: [...target, NULL_ONLY] } as T;
}

/** The 3.0 way to say "null" (OpenAPI 3.0.3, nullable with an enum). */
const NULL_ONLY = { type: 'object', nullable: true, enum: [null] };

/** What Swagger UI's page loads, and the documents: nothing else of the swagger-ui-dist package is served. */
const DOCS_FILES = new Set([
  '/',
  '/index.html',
  '/swagger-ui-init.js',
  '/swagger-ui.css',
  '/swagger-ui-bundle.js',
  '/swagger-ui-standalone-preset.js',
  '/favicon-32x32.png',
  '/favicon-16x16.png',
  '/openapi.json',
  '/openapi.yaml',
]);

/**
 * Swagger UI is mounted on the Express app before Nest's middleware (so the global helmet does not
 * reach it): its own helmet, with the policy the page needs (its scripts from here, inline styles),
 * never framed; and every other file of the package (package.json, README, source maps) is a 404.
 */
function guardDocs(app: INestApplication): void {
  const headers = helmet({
    contentSecurityPolicy: {
      directives: {
        'script-src': ["'self'"],
        'style-src': ["'self'", "'unsafe-inline'"],
        'img-src': ["'self'", 'data:', 'https://validator.swagger.io'],
        'frame-ancestors': ["'none'"],
      },
    },
    frameguard: { action: 'deny' },
  });
  app.use('/docs', headers, (req: Request, _res: Response, next: NextFunction) => {
    next(DOCS_FILES.has(req.path) ? undefined : new NotFoundException());
  });
}

/** Swagger UI at /docs and the document at /docs/openapi.json, built when first asked for (Swagger UI's init script embeds it too). */
export async function setupOpenApi(app: INestApplication): Promise<void> {
  await SwaggerModule.loadPluginMetadata(metadata);
  guardDocs(app);
  SwaggerModule.setup('docs', app, () => buildDocument(app), {
    jsonDocumentUrl: OPENAPI_PATH,
    yamlDocumentUrl: '/docs/openapi.yaml',
    customSiteTitle: 'EPR packaging declarations API',
  });
}
