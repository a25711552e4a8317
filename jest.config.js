// ESM project: run through `node --experimental-vm-modules` (see package.json "test").
/** @type {import('jest').Config} */
export default {
  testEnvironment: 'node',
  rootDir: '.',
  testMatch: ['<rootDir>/src/**/*.spec.ts', '<rootDir>/test/**/*.e2e-spec.ts'],
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: { '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: 'tsconfig.json' }] },
  // Every supertest response is validated against the app's OpenAPI document.
  setupFilesAfterEnv: ['<rootDir>/test/support/preload-nest.ts', '<rootDir>/test/support/contract.ts'],
  testTimeout: 60000,
  // Stryker's sandboxes (npm run mutate) hold a copy of the project.
  modulePathIgnorePatterns: ['<rootDir>/.stryker-tmp/'],
  maxWorkers: 2,
  // A fresh worker for every test file. ESM test files (vm modules) leave their module graphs behind,
  // and the embedded database's files their in-process PostgreSQL (WASM memory, outside the heap that
  // jest's memory limit measures): a worker that had run ~25 files ran out of heap on the fuzzer, or ran
  // it 20 times slower than a fresh one (25 s alone on the embedded database).
  workerIdleMemoryLimit: 0,
};
