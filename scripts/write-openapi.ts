import 'reflect-metadata';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { NestFactory } from '@nestjs/core';
import { AppModule } from '../src/app.module.js';
import { createOpenApiDocument } from '../src/openapi.js';
import { loadConfig } from '../src/config/config.js';
import { REPO_ROOT } from '../src/common/repo-root.js';

/**
 * Writes the OpenAPI document to dist/openapi.json (for lint and diff) without a database:
 * the app graph is built in preview mode, where no provider is instantiated.
 */
const config = loadConfig();
const app = await NestFactory.create(AppModule.forRoot(config, { url: 'postgres://preview.invalid/none' }), {
  preview: true,
  logger: false,
  abortOnError: false,
});
const document = await createOpenApiDocument(app);
const target = path.join(REPO_ROOT, 'dist', 'openapi.json');
await mkdir(path.dirname(target), { recursive: true });
await writeFile(target, `${JSON.stringify(document, null, 2)}\n`);
console.log(`wrote ${path.relative(REPO_ROOT, target)} (${Object.keys(document.paths).length} paths)`);
