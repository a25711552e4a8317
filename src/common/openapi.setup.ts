import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, type OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import type { AppConfig } from '../config/config.js';
import metadata from '../metadata.js';
import { documentCsvRequestBody } from '../declarations/csv/declaration-csv.openapi.js';
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
  return documentCsvRequestBody(addReferenceSchemas(document));
}

/** Swagger UI at /docs and the document at /docs/openapi.json. */
export async function setupOpenApi(app: INestApplication, config: AppConfig): Promise<OpenAPIObject> {
  const document = await createOpenApiDocument(app, config);
  SwaggerModule.setup('docs', app, document, {
    jsonDocumentUrl: OPENAPI_PATH,
    yamlDocumentUrl: '/docs/openapi.yaml',
    customSiteTitle: 'EPR packaging declarations API',
  });
  return document;
}
