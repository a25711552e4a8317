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
  maxWorkers: 2,
  // ESM test files (vm modules) leave their module graphs behind in the worker: a worker that ran many
  // files is replaced once it holds more than this, instead of running out of heap (seen in CI on the fuzzer).
  workerIdleMemoryLimit: '1GB',
};
