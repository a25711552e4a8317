import { execFile } from 'node:child_process';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from '../src/common/repo-root.js';
import { createClient } from './support/factories.js';
import { ADMIN_TOKEN, startTestApp, type TestApp } from './support/test-app.js';

// What an integrator generates from the published document is usable as it stands. The
// TypeScript types of dist/openapi.json (openapi-typescript, as `npm run openapi:types` makes them)
// and a small program using openapi-fetch type-check under `strict` with TypeScript 6 (the project's;
// openapi-typescript 7.13 fails with TypeScript 7): an optional body left out, a test token asked
// for, a declaration with both units, request headers, the CSV downloads (a declaration, a period's
// export, the annual filing) typed as text and the JSON operations beside them typed as their DTOs,
// without a cast; a listing and the sandbox's wipe. A program that misuses the types must fail, so
// the check can. The program then runs (Node strips its types) against the service and downloads.

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

  // The CSV file: an operation of its own, its answer typed as text; the JSON one is the declaration only.
  const csv = await client.GET('/api/v1/declarations/{id}.csv', { params: { path: { id: declaration.id } }, parseAs: 'text' });
  const file: string = csv.data ?? '';
  const one = await client.GET('/api/v1/declarations/{id}', { params: { path: { id: declaration.id } } });
  const read: Declaration | undefined = one.data;

  const page = await client.GET('/api/v1/declarations', { params: { query: { period: '2025-S1', status: 'current' } } });
  const receipts: string[] = page.data?.data.map((d) => d.receipt) ?? [];

  const wiped = await client.DELETE('/api/v1/test-data');

  // The operator's exports, of live data: each CSV an operation of its own, typed as text; the JSON ones as their DTOs.
  const production = createClient<paths>({ baseUrl, headers: { authorization: \`Bearer \${live.data.token}\` } });
  const filed = await production.POST('/api/v1/declarations', { body: { period: '2025-S1', lines: [{ stream: 'EMB', material: 'glass', unit: 'kg', quantity: 10 }, { stream: 'EMB', material: 'glass', unit: 'uvc', quantity: 40 }] } });
  if (filed.error) return \`\${filed.error.code}: \${filed.error.detail}\`;
  const periodCsv = await admin.GET('/api/v1/admin/periods/{period}/export.csv', { params: { path: { period: '2025-S1' } }, parseAs: 'text' });
  const periodFile: string = periodCsv.data ?? '';
  const periodJson = await admin.GET('/api/v1/admin/periods/{period}/export', { params: { path: { period: '2025-S1' } } });
  const periodClients: string[] = periodJson.data?.declarations.map((d) => d.client_id) ?? [];
  const yearCsv = await admin.GET('/api/v1/admin/years/{year}/export.csv', { params: { path: { year: '2025' }, query: { dialect: 'fr' } }, parseAs: 'text' });
  const yearFile: string = yearCsv.data ?? '';
  const yearJson = await admin.GET('/api/v1/admin/years/{year}/export', { params: { path: { year: '2025' } } });
  const yearClients: string[] = yearJson.data?.rows.map((r) => r.client_id) ?? [];

  return JSON.stringify({
    mode,
    declarationMode,
    receipts,
    file,
    read: read?.receipt ?? null,
    wiped: wiped.response.status,
    periodFile,
    periodClients,
    yearFile,
    yearClients,
  });
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
  // The JSON operation is the declaration, not text.
  const json = await client.GET('/api/v1/declarations/{id}', { params: { path: { id: 'x' } } });
  const text: string = json.data!;
  void text;
  // The annual CSV is text; the JSON export has rows, the CSV none.
  const year = await client.GET('/api/v1/admin/years/{year}/export.csv', { params: { path: { year: '2025' } }, parseAs: 'text' });
  void year.data!.rows;
  // A dialect that does not exist.
  await client.GET('/api/v1/admin/years/{year}/export.csv', { params: { path: { year: '2025' }, query: { dialect: 'de' } }, parseAs: 'text' });
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
    const { stdout } = await run(node, [
      path.join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc'),
      '-p',
      path.join(DIR, 'tsconfig.json'),
      // `file(line,col): error TS…` whatever the environment says of colours (FORCE_COLOR turns tsc's pretty output on).
      '--pretty',
      'false',
    ]);
    return { ok: true, output: stdout };
  } catch (error) {
    return { ok: false, output: String((error as { stdout?: string }).stdout ?? error) };
  }
}

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
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
}, 300_000);
afterAll(async () => {
  await t?.close();
});

describe('a client generated from dist/openapi.json', () => {
  it('is generated with TypeScript 6', async () => {
    const { version } = JSON.parse(await readFile(path.join(REPO_ROOT, 'node_modules', 'typescript', 'package.json'), 'utf8')) as {
      version: string;
    };
    expect(version).toMatch(/^6\./);
    expect(await readFile(path.join(DIR, 'openapi.d.ts'), 'utf8')).toContain('"/api/v1/declarations/{id}.csv"');
  });

  it('type-checks a program of a whole sandbox journey under strict, with no cast', async () => {
    // No `x as T` and no `!` assertion in the code (comments aside).
    expect(PROGRAM.replace(/\/\/.*$/gm, '')).not.toMatch(/\bas\b|\w!/);
    const result = await typeCheck(PROGRAM);
    expect(result).toEqual({ ok: true, output: '' });
  }, 300_000);

  it('refuses a program that misuses it (so the check above can fail)', async () => {
    const result = await typeCheck(WRONG_PROGRAM);
    expect(result.ok).toBe(false);
    // One error per misuse, each on its line.
    const lines = new Set([...result.output.matchAll(/program\.ts\((\d+),\d+\): error TS\d+/g)].map((m) => Number(m[1])));
    const expected = WRONG_PROGRAM.split('\n')
      .map((line, i) => (/^\s+(await client|const declaration|const text|void year)/.test(line) ? i + 1 : 0))
      .filter((n) => n > 0);
    expect(expected).toHaveLength(6);
    expect([...lines].sort((a, b) => a - b)).toEqual(expected);
  }, 300_000);

  it('runs: the program downloads the three CSV files and reads the JSON beside them, as typed', async () => {
    const { clientId } = await createClient(t);
    await writeFile(path.join(DIR, 'program.ts'), PROGRAM);
    await writeFile(
      path.join(DIR, 'run.mjs'),
      "import { journey } from './program.ts';\nconsole.log(await journey(...process.argv.slice(2)));\n",
    );
    const { stdout } = await run(node, ['--disable-warning=ExperimentalWarning', path.join(DIR, 'run.mjs'), t.url, ADMIN_TOKEN, clientId], {
      cwd: DIR,
    });
    const out = JSON.parse(stdout) as Record<string, unknown>;
    expect(out).toMatchObject({
      mode: 'test',
      declarationMode: 'test',
      wiped: 204,
      periodClients: [clientId],
      yearClients: [clientId, clientId],
    });
    // (fetch's text() drops a byte order mark.)
    expect(out.file).toBe('stream,material,unit,quantity\r\nEMB,glass,kg,1200.5\r\nEMB,glass,uvc,4800\r\n');
    expect(out.read).toBe((out.receipts as string[])[0]);
    expect(out.periodFile).toMatch(/^period,client_id,/);
    expect(out.periodFile).toContain(clientId);
    expect(out.yearFile).toMatch(/^type;année;éco-organisme;/);
    expect(out.yearFile).toContain(clientId);
  }, 300_000);
});
