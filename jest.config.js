// Test files run in plain Node.js workers (jest-light-runner): a worker loads the app's modules once and runs
// file after file on them, where jest's own runner loaded the whole module graph again for every file in a `vm`
// context of its own (about 1.5 s of CPU each before its first test, and code that never ran long enough to be
// optimised): the suite took about 40 % of the CPU it took there (docs/testing.md, "CI"). TypeScript is
// compiled by SWC as each module loads (test/support/runner/typescript-hooks.mjs); jest's `testTimeout` and the
// fake timers the runner lacks are in test/support/runner/after-env.mjs. What a file changes in its process stays
// for the next file of its worker: a test restores what it changes (a spy, fake timers, the environment).
import { SWC_JSC, TEST_TIMEOUT } from './test/support/runner/settings.mjs';

const lightRunner = {
  testEnvironment: 'node',
  rootDir: '.',
  // jest-light-runner, refusing a run in band over several projects (test/support/runner/light-runner.mjs).
  runner: '<rootDir>/test/support/runner/light-runner.mjs',
  setupFiles: ['<rootDir>/test/support/runner/typescript-hooks.mjs'],
  // Stryker's sandboxes (npm run mutate) hold a copy of the project.
  modulePathIgnorePatterns: ['<rootDir>/.stryker-tmp/'],
};
const AFTER_ENV = [
  '<rootDir>/test/support/runner/after-env.mjs',
  '<rootDir>/test/support/preload-nest.ts',
  '<rootDir>/test/support/property-seed.ts',
];

/**
 * Files that replace a module before importing it (`jest.unstable_mockModule`), which only jest's own runner
 * does: each in a `vm` context of its own (ES modules: `node --experimental-vm-modules`, package.json "test").
 */
const MOCKING_MODULES = ['<rootDir>/src/site/adding-a-language-and-a-stream.spec.ts'];

/** jest's own runner: each file in a `vm` context of its own, with SWC as jest's transform. */
const jestRunner = {
  testEnvironment: 'node',
  rootDir: '.',
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: { '^.+\\.ts$': ['@swc/jest', { jsc: SWC_JSC }] },
  setupFilesAfterEnv: ['<rootDir>/test/support/preload-nest.ts', '<rootDir>/test/support/property-seed.ts'],
  modulePathIgnorePatterns: ['<rootDir>/.stryker-tmp/'],
};

/** The files that replace a module, on jest's own runner. */
export const mocking = { ...jestRunner, displayName: 'unit', testMatch: MOCKING_MODULES };

/** Every unit spec on jest's own runner: Stryker's (stryker.config.mjs), whose per-test coverage needs jest's environment. */
export const unitOnJestRunner = { ...jestRunner, displayName: 'unit', testMatch: ['<rootDir>/src/**/*.spec.ts'] };

/** Unit specs, next to the code (`*.db.spec.ts`: on PostgreSQL in process, test/support/in-process-database.ts). */
export const unit = {
  ...lightRunner,
  displayName: 'unit',
  testMatch: ['<rootDir>/src/**/*.spec.ts'],
  testPathIgnorePatterns: ['/node_modules/', ...MOCKING_MODULES],
  setupFilesAfterEnv: AFTER_ENV,
};

/** End-to-end specs: the real app over HTTP; every supertest response is validated against the app's OpenAPI document. */
export const e2e = {
  ...lightRunner,
  displayName: 'e2e',
  testMatch: ['<rootDir>/test/**/*.e2e-spec.ts'],
  setupFilesAfterEnv: [...AFTER_ENV, '<rootDir>/test/support/contract.ts'],
};

/** @type {import('jest').Config} */
export default {
  projects: [unit, mocking, e2e],
  // A global option (ignored inside a project), which test/support/runner/after-env.mjs applies on the light runner.
  testTimeout: TEST_TIMEOUT,
  maxWorkers: 2,
  // The longest files first, so that the two workers finish together (test/support/longest-first.js).
  testSequencer: '<rootDir>/test/support/longest-first.js',
};
