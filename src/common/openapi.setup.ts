import { type INestApplication, NotFoundException } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import helmet from 'helmet';
import { DocumentBuilder, type OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import type { AppConfig } from '../config/config.js';
import metadata from '../metadata.js';
import { addReferenceSchemas } from '../reference/reference-openapi.js';

export const OPENAPI_PATH = '/docs/openapi.json';

export async function createOpenApiDocument(app: INestApplication, config: AppConfig): Promise<OpenAPIObject> {
  await SwaggerModule.loadPluginMetadata(metadata);
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
    .addServer(config.publicBaseUrl)
    .addTag('reference data', 'Public reference files (no key, CC BY 4.0), served with ETag, gzip/brotli and CORS.')
    .addTag('client', 'For client systems, with their bearer token: the account and its declarations.')
    .addTag('admin', "For the operator, with ADMIN_TOKEN: onboarding and tokens.")
    .addTag('health', 'Liveness and readiness probes.')
    .addBearerAuth({ type: 'http', scheme: 'bearer', description: 'A client token issued by the operator (shown once).' }, 'client')
    .addBearerAuth({ type: 'http', scheme: 'bearer', description: 'The operator secret (ADMIN_TOKEN).' }, 'admin')
    .build();
  const document = SwaggerModule.createDocument(app, builder, {
    operationIdFactory: (_controllerKey, methodKey) => methodKey,
  });
  return addReferenceSchemas(document);
}

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

/** Swagger UI at /docs and the document at /docs/openapi.json. */
export async function setupOpenApi(app: INestApplication, config: AppConfig): Promise<OpenAPIObject> {
  const document = await createOpenApiDocument(app, config);
  guardDocs(app);
  SwaggerModule.setup('docs', app, document, {
    jsonDocumentUrl: OPENAPI_PATH,
    yamlDocumentUrl: '/docs/openapi.yaml',
    customSiteTitle: 'EPR packaging declarations API',
  });
  return document;
}
