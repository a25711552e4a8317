import { execFile } from 'node:child_process';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from '../src/common/repo-root.js';

// Issue 34.3: what an integrator generates from the published document is usable as it stands. The
// TypeScript types of dist/openapi.json (openapi-typescript, as `npm run openapi:types` makes them)
// and a small program using openapi-fetch type-check under `strict` with TypeScript 6 (the project's;
// openapi-typescript 7.13 fails with TypeScript 7): an optional body left out, a test token asked
// for, a declaration with both units, request headers, a CSV download typed as text without a cast,
// a listing and the sandbox's wipe. A program that misuses the types must fail, so the check can.

const run = promisify(execFile);
const DIR = path.join(REPO_ROOT, 'dist', 'generated-client-check');
const node = process.execPath;

const PROGRAM = `
import createClient from 'openapi-fetch';
import type { components, paths } from './openapi.js';

type Declaration = components['schemas']['DeclarationDto'];

export async function journey(baseUrl: string, adminToken: string, clientId: string): Promise<string> {
  const admin = createClient<paths>({ baseUrl, headers: { authorization: \`Bearer \${adminToken}\` } });
  // The body of issueToken is optional: none gives a live token; "mode": "test" a sandbox one.
  const live = await admin.POST('/api/v1/admin/clients/{client_id}/tokens', { params: { path: { client_id: clientId } } });
  const test = await admin.POST('/api/v1/admin/clients/{client_id}/tokens', { params: { path: { client_id: clientId } }, body: { mode: 'test', name: 'ERP recette' } });
  const named = await admin.POST('/api/v1/admin/clients/{client_id}/tokens', { params: { path: { client_id: clientId } }, body: { name: 'ERP production' } });
  if (!live.data || !test.data || !named.data) throw new Error('no token');
  const mode: 'live' | 'test' = test.data.mode;

  const client = createClient<paths>({ baseUrl, headers: { authorization: \`Bearer \${test.data.token}\` } });
  const submitted = await client.POST('/api/v1/declarations', {
    params: { header: { 'Idempotency-Key': 'erp-2025-S1-0001', 'X-Request-Id': 'erp-run-1' } },
    body: {
      period: '2025-S1',
      lines: [
        { stream: 'EMB', material: 'glass', unit: 'kg', quantity: 1200.5 },
        { stream: 'EMB', material: 'glass', unit: 'uvc', quantity: 4800 },
      ],
    },
  });
  if (submitted.error) return \`\${submitted.error.code}: \${submitted.error.detail}\`;
  const declaration: Declaration = submitted.data;
  const declarationMode: 'live' | 'test' = declaration.mode;

  // The CSV file: an operation of its own, its answer typed as text.
  const csv = await client.GET('/api/v1/declarations/{id}.csv', { params: { path: { id: declaration.id } }, parseAs: 'text' });
  const file: string = csv.data ?? '';

  const page = await client.GET('/api/v1/declarations', { params: { query: { period: '2025-S1', status: 'current' } } });
  const receipts: string[] = page.data?.data.map((d) => d.receipt) ?? [];

  const wiped = await client.DELETE('/api/v1/test-data');
  return [mode, declarationMode, receipts.join(' '), file.length, wiped.response.status].join(' ');
}
`;

/** Misuses the types: each line must be an error. */
const WRONG_PROGRAM = `
import createClient from 'openapi-fetch';
import type { components, paths } from './openapi.js';

export async function wrong(baseUrl: string): Promise<void> {
  const client = createClient<paths>({ baseUrl });
  // No period.
  await client.POST('/api/v1/declarations', { body: { lines: [{ stream: 'EMB', material: 'glass', unit: 'kg', quantity: 1 }] } });
  // An unknown mode.
  await client.POST('/api/v1/admin/clients/{client_id}/tokens', { params: { path: { client_id: 'x' } }, body: { mode: 'sandbox' } });
  // The CSV is text, not a declaration.
  const csv = await client.GET('/api/v1/declarations/{id}.csv', { params: { path: { id: 'x' } }, parseAs: 'text' });
  const declaration: components['schemas']['DeclarationDto'] = csv.data!;
  void declaration;
}
`;

const TSCONFIG = {
  compilerOptions: {
    strict: true,
    noEmit: true,
    module: 'nodenext',
    moduleResolution: 'nodenext',
    target: 'ES2023',
    lib: ['ES2023', 'DOM'],
    types: [],
    skipLibCheck: false,
  },
  files: ['program.ts'],
};

async function typeCheck(program: string): Promise<{ ok: boolean; output: string }> {
  await writeFile(path.join(DIR, 'program.ts'), program);
  try {
    const { stdout } = await run(node, [path.join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', path.join(DIR, 'tsconfig.json')]);
    return { ok: true, output: stdout };
  } catch (error) {
    return { ok: false, output: String((error as { stdout?: string }).stdout ?? error) };
  }
}

beforeAll(async () => {
  await rm(DIR, { recursive: true, force: true });
  await mkdir(DIR, { recursive: true });
  // ESM, so that `./openapi.js` resolves to the generated declarations.
  await writeFile(path.join(DIR, 'package.json'), JSON.stringify({ type: 'module' }));
  await writeFile(path.join(DIR, 'tsconfig.json'), JSON.stringify(TSCONFIG, null, 2));
  await run(node, [
    path.join(REPO_ROOT, 'node_modules', 'openapi-typescript', 'bin', 'cli.js'),
    path.join(REPO_ROOT, 'dist', 'openapi.json'),
    '-o',
    path.join(DIR, 'openapi.d.ts'),
    '--redocly',
    path.join(REPO_ROOT, 'test', 'client', 'redocly.yaml'),
  ]);
}, 120_000);

describe('a client generated from dist/openapi.json', () => {
  it('is generated with TypeScript 6', async () => {
    const { version } = JSON.parse(await readFile(path.join(REPO_ROOT, 'node_modules', 'typescript', 'package.json'), 'utf8')) as { version: string };
    expect(version).toMatch(/^6\./);
    expect(await readFile(path.join(DIR, 'openapi.d.ts'), 'utf8')).toContain('"/api/v1/declarations/{id}.csv"');
  });

  it('type-checks a program of a whole sandbox journey under strict, with no cast', async () => {
    // No `x as T` and no `!` assertion in the code (comments aside).
    expect(PROGRAM.replace(/\/\/.*$/gm, '')).not.toMatch(/\bas\b|\w!/);
    const result = await typeCheck(PROGRAM);
    expect(result).toEqual({ ok: true, output: '' });
  }, 120_000);

  it('refuses a program that misuses it (so the check above can fail)', async () => {
    const result = await typeCheck(WRONG_PROGRAM);
    expect(result.ok).toBe(false);
    expect(result.output.match(/error TS\d+/g)?.length).toBeGreaterThanOrEqual(3);
  }, 120_000);
});
