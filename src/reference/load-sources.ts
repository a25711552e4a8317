import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseDocument } from 'yaml';
import {
  REFERENCE_DOCUMENTS,
  SCHEMA_FILES,
  SOURCE_FILES,
  type JsonSchema,
  type ReferenceDocumentName,
  type ReferenceSources,
  type SourceName,
} from './reference-documents.js';
import { ReferenceValidationError, type ReferenceProblem } from './validate-reference.js';
import { localizeSchema } from './localized-schemas.js';
import { CATALOGUE_VERSIONS_FILE } from './catalogue-fingerprint.js';

/**
 * Reads the five YAML sources of `dir` (the `reference-data/` directory) and
 * the four JSON Schemas of `dir/schemas` (their text blocks made the language registry's:
 * localized-schemas.ts). The result is typed but NOT yet
 * validated: pass it to `validateReference` before trusting it.
 *
 * Throws a `ReferenceValidationError` listing every unreadable file.
 */
export async function loadSources(dir: string): Promise<ReferenceSources> {
  const problems: ReferenceProblem[] = [];

  const sourceNames = Object.keys(SOURCE_FILES) as SourceName[];
  const documents = await Promise.all(
    sourceNames.map(async (name) => [name, await readYaml(join(dir, SOURCE_FILES[name]), SOURCE_FILES[name], problems)] as const),
  );
  const schemas = await Promise.all(
    REFERENCE_DOCUMENTS.map(
      async (name) => [name, await readJson(join(dir, 'schemas', SCHEMA_FILES[name]), `schemas/${SCHEMA_FILES[name]}`, problems)] as const,
    ),
  );

  const catalogueVersions = await readYaml(join(dir, CATALOGUE_VERSIONS_FILE), CATALOGUE_VERSIONS_FILE, problems);

  if (problems.length > 0) throw new ReferenceValidationError(problems);
  return {
    ...(Object.fromEntries(documents) as Omit<ReferenceSources, 'schemas'>),
    catalogue_versions: catalogueVersions,
    schemas: Object.fromEntries(schemas.map(([name, schema]) => [name, schema && localizeSchema(schema)])) as Record<
      ReferenceDocumentName,
      JsonSchema
    >,
  };
}

/** `service.yaml` of `dir` alone, as loadSources reads it (not validated: the build did). */
export async function loadService(dir: string): Promise<ReferenceSources['service']> {
  const problems: ReferenceProblem[] = [];
  const service = await readYaml(join(dir, SOURCE_FILES.service), SOURCE_FILES.service, problems);
  if (problems.length > 0) throw new ReferenceValidationError(problems);
  return service as ReferenceSources['service'];
}

async function readText(path: string, file: string, problems: ReferenceProblem[]): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    problems.push({ file, path: '', message: `cannot read ${path}: ${(error as Error).message}` });
    return undefined;
  }
}

async function readYaml(path: string, file: string, problems: ReferenceProblem[]): Promise<unknown> {
  const text = await readText(path, file, problems);
  if (text === undefined) return undefined;
  // YAML 1.2 core schema: unquoted dates stay strings; duplicate keys are errors.
  const document = parseDocument(text, { prettyErrors: true, uniqueKeys: true });
  const issues = [...document.errors, ...document.warnings];
  for (const issue of issues) {
    const line = issue.linePos?.[0];
    problems.push({
      file,
      path: '',
      message: `YAML ${issue.name === 'YAMLWarning' ? 'warning' : 'error'}${line ? ` at line ${line.line}, column ${line.col}` : ''}: ${issue.message.split('\n')[0]}`,
    });
  }
  return issues.length > 0 ? undefined : document.toJS();
}

async function readJson(path: string, file: string, problems: ReferenceProblem[]): Promise<JsonSchema | undefined> {
  const text = await readText(path, file, problems);
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as JsonSchema;
  } catch (error) {
    problems.push({ file, path: '', message: `invalid JSON: ${(error as Error).message}` });
    return undefined;
  }
}
