// Mutation testing of the files that hold the rules (npm run mutate; not in CI: it takes a while).
// Run before resolving an issue that touches one of them; the score is in README "Tests and CI".
// It runs the unit specs only (no database): a mutant only e2e tests would kill counts as a
// survivor here, which is what the unit specs next to these files are for.
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'jest',
  testRunnerNodeArgs: ['--experimental-vm-modules', '--disable-warning=ExperimentalWarning'],
  jest: {
    projectType: 'custom',
    config: {
      testEnvironment: 'node',
      rootDir: '.',
      testMatch: ['<rootDir>/src/**/*.spec.ts'],
      extensionsToTreatAsEsm: ['.ts'],
      moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
      transform: { '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: 'tsconfig.json', isolatedModules: true }] },
      setupFilesAfterEnv: ['<rootDir>/test/support/preload-nest.ts'],
    },
    enableFindRelatedTests: true,
  },
  // No TypeScript checker: @stryker-mutator/typescript-checker 10.0 stopped on TypeScript 6's
  // diagnostics ("reported without a corresponding file"); ts-jest transpiles each mutant instead.
  mutate: [
    'src/declarations/declaration-validator.ts',
    'src/declarations/period.ts',
    'src/declarations/clock.ts',
    'src/declarations/declaration-cursor.ts',
    'src/declarations/idempotency-store.ts',
    'src/auth/token-format.ts',
    'src/auth/auth.guard.ts',
    'src/rate-limit/shared-counters.ts',
    'src/common/paging/keyset-cursor.ts',
  ],
  coverageAnalysis: 'perTest',
  // The idempotency store's spec starts PostgreSQL in process (PGlite) for each run: 5 s is too short for it on a busy machine.
  timeoutMS: 30_000,
  ignoreStatic: true,
  concurrency: 2,
  reporters: ['clear-text', 'progress', 'html'],
  htmlReporter: { fileName: 'reports/mutation/index.html' },
  thresholds: { high: 90, low: 80, break: null },
  tempDirName: '.stryker-tmp',
};
