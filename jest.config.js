// ESM project: run through `node --experimental-vm-modules` (see package.json "test").
const project = {
  testEnvironment: 'node',
  rootDir: '.',
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  // SWC strips each file's types (the type check is `tsc` in `npm run lint`): a cold transform several times
  // faster than ts-jest's, and no TypeScript to load in every worker. Decorator metadata for NestJS's injection
  // (a type-only name is `Object` at run time, as with tsc); class fields as tsconfig.json's target defines them.
  transform: {
    '^.+\\.ts$': [
      '@swc/jest',
      {
        jsc: {
          parser: { syntax: 'typescript', decorators: true },
          target: 'es2023',
          keepClassNames: true,
          transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: true },
        },
      },
    ],
  },
  // Stryker's sandboxes (npm run mutate) hold a copy of the project.
  modulePathIgnorePatterns: ['<rootDir>/.stryker-tmp/'],
};

/** Unit specs, next to the code (`*.db.spec.ts`: on PostgreSQL in process, test/support/in-process-database.ts). */
export const unit = {
  ...project,
  displayName: 'unit',
  testMatch: ['<rootDir>/src/**/*.spec.ts'],
  setupFilesAfterEnv: ['<rootDir>/test/support/preload-nest.ts', '<rootDir>/test/support/property-seed.ts'],
};

/** End-to-end specs: the real app over HTTP; every supertest response is validated against the app's OpenAPI document. */
export const e2e = {
  ...project,
  displayName: 'e2e',
  testMatch: ['<rootDir>/test/**/*.e2e-spec.ts'],
  setupFilesAfterEnv: [
    '<rootDir>/test/support/preload-nest.ts',
    '<rootDir>/test/support/property-seed.ts',
    '<rootDir>/test/support/contract.ts',
  ],
};

/** @type {import('jest').Config} */
export default {
  projects: [unit, e2e],
  // A global option (ignored inside a project).
  // A ceiling for a test that hangs, far above what any takes on a busy machine (four files at once on two cores, each maybe with a child process).
  testTimeout: 120_000,
  maxWorkers: 2,
  // The longest files first, so that the two workers finish together (test/support/longest-first.js).
  testSequencer: '<rootDir>/test/support/longest-first.js',
  // A worker runs test files until its heap holds more than this after one, then a fresh one starts: ESM test
  // files (vm modules) leave their module graphs behind, and a worker kept without a bound ran out of heap on the
  // fuzzer. (The embedded database's in-process PostgreSQL is WASM memory, outside the heap this reads: its files
  // close it.) Not 0, a fresh worker for every file: each file then paid a worker's start and a cold resolver and
  // transform cache (docs/testing.md, "CI").
  workerIdleMemoryLimit: '1GB',
};
