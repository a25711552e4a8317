/**
 * Every validation code the service can put in `errors[]` has a message in the catalogues: the
 * codes written in the source (`code: 'x'`, the declaration rules' `fail(…, 'x', …)`), and the
 * codes the validation pipe makes of the class-validator constraints of every DTO.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { getMetadataStorage, type ValidationError } from 'class-validator';
import { REPO_ROOT } from '../../common/repo-root.js';
import { toFieldErrors } from '../../common/validation.js';
import { MESSAGES } from './index.js';

const SRC = join(REPO_ROOT, 'src');

/** Files whose `code:` literals are not validation codes: configuration issues, a problem code, examples in the API's description, language codes. */
const NOT_FIELD_ERRORS = new Set([
  'src/config/config.ts',
  'src/edge/edge-handler.ts',
  'src/common/openapi.ts',
  'src/i18n/language-definitions.ts',
]);

const sources = readdirSync(SRC, { recursive: true, encoding: 'utf8' })
  .filter((file) => file.endsWith('.ts') && !file.endsWith('.spec.ts') && !file.endsWith('test-support.ts'))
  .map((file) => ({ path: relative(REPO_ROOT, join(SRC, file)), text: readFileSync(join(SRC, file), 'utf8') }));

function codesInSource(): Map<string, string> {
  const codes = new Map<string, string>();
  for (const { path, text } of sources) {
    if (NOT_FIELD_ERRORS.has(path) || path.startsWith('src/i18n/messages/')) continue;
    for (const match of text.matchAll(/\bcode: '([a-z_]+)'|\b(?:fail|bad)\(\s*[^,()]+,\s*'([a-z_]+)'/g))
      codes.set(match[1] ?? match[2]!, path);
  }
  return codes;
}

/** The code the validation pipe gives a failed constraint. */
const codeOf = (constraint: string) =>
  toFieldErrors([{ property: 'x', constraints: { [constraint]: 'x is wrong' }, children: [] } as ValidationError])[0]!.code;

async function codesOfDtos(): Promise<Map<string, string>> {
  const codes = new Map<string, string>();
  // The pipe refuses unknown fields (forbidNonWhitelisted) on every DTO.
  codes.set(codeOf('whitelistValidation'), 'src/common/validation.ts');
  for (const { path, text } of sources.filter((source) => source.text.includes("from 'class-validator'"))) {
    const exports = (await import(join(REPO_ROOT, path))) as Record<string, unknown>;
    for (const value of Object.values(exports)) {
      if (typeof value !== 'function') continue;
      for (const metadata of getMetadataStorage().getTargetValidationMetadatas(value, '', true, false)) {
        // IsOptional only decides whether the others run.
        if (metadata.type === 'conditionalValidation') continue;
        codes.set(
          codeOf(metadata.type === 'customValidation' ? metadata.name! : metadata.type),
          `${path} (${value.name}.${metadata.propertyName})`,
        );
      }
    }
    expect(text).toBeTruthy();
  }
  return codes;
}

describe('the catalogues know every validation code of the API', () => {
  it('written in the source', () => {
    const codes = codesInSource();
    expect(codes.size).toBeGreaterThan(30);
    for (const language of ['fr', 'en'] as const) {
      expect(
        [...codes].filter(([code]) => !Object.hasOwn(MESSAGES[language].fields, code)).map(([code, path]) => `${code} (${path})`),
      ).toEqual([]);
    }
  });

  it('made of the DTOs’ constraints by the validation pipe', async () => {
    const codes = await codesOfDtos();
    expect([...codes.keys()]).toEqual(
      expect.arrayContaining(['max_length', 'invalid_email', 'not_blank', 'limit_out_of_range', 'invalid_country_code']),
    );
    for (const language of ['fr', 'en'] as const) {
      expect(
        [...codes].filter(([code]) => !Object.hasOwn(MESSAGES[language].fields, code)).map(([code, where]) => `${code}: ${where}`),
      ).toEqual([]);
    }
  });
});
