import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { OpenAPIObject } from '@nestjs/swagger';
import { INDEX_DOCUMENT_SCHEMA, REFERENCE_DOCUMENTS, SCHEMA_FILES } from './reference-documents.js';
import { REFERENCE_SOURCE_DIR } from './reference-store.js';

type Schemas = NonNullable<NonNullable<OpenAPIObject['components']>['schemas']>;
type SchemaName = (typeof REFERENCE_DOCUMENTS)[number] | 'index';

const componentName = (name: SchemaName) => `${name[0]!.toUpperCase()}${name.slice(1)}Document`;

export function referenceSchemaRef(name: SchemaName) {
  return { $ref: `#/components/schemas/${componentName(name)}` };
}

/**
 * Adds the published files' JSON Schemas (the ones the build validates against) to the
 * OpenAPI components, so the document describes the files without a second definition.
 */
export function addReferenceSchemas(document: OpenAPIObject): OpenAPIObject {
  const schemas: Schemas = { [componentName('index')]: INDEX_DOCUMENT_SCHEMA as Schemas[string] };
  for (const name of REFERENCE_DOCUMENTS) {
    schemas[componentName(name)] = JSON.parse(readFileSync(path.join(REFERENCE_SOURCE_DIR, 'schemas', SCHEMA_FILES[name]), 'utf8'));
  }
  document.components = { ...document.components, schemas: { ...document.components?.schemas, ...schemas } };
  return document;
}
