// ESM project: run through `node --experimental-vm-modules` (see package.json "test").
const project = {
  testEnvironment: 'node',
  rootDir: '.',
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: { '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: 'tsconfig.json' }] },
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
  testTimeout: 60000,
  maxWorkers: 2,
  // A fresh worker for every test file. ESM test files (vm modules) leave their module graphs behind,
  // and the embedded database's files their in-process PostgreSQL (WASM memory, outside the heap that
  // jest's memory limit measures): a worker that had run ~25 files ran out of heap on the fuzzer, or ran
  // it 20 times slower than a fresh one (25 s alone on the embedded database).
  workerIdleMemoryLimit: 0,
};
