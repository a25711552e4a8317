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
};
