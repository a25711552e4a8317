// What jest.config.js and the light runner's setup files share.

/**
 * A ceiling for a test or hook that hangs, far above what any takes on a busy machine (four files at once on two
 * cores, each maybe with a child process): jest's `testTimeout`, which after-env.mjs applies on the light runner
 * (it has none of its own). A test may set its own, as jest's third argument.
 */
export const TEST_TIMEOUT = 120_000;

/**
 * SWC's options for the TypeScript of the sources and tests: types stripped (the type check is tsc's, in the
 * lint), legacy decorators with their metadata (NestJS's injection reads a constructor's parameter types; a
 * type-only name is `Object` at run time, as with tsc), class fields as tsconfig.json's target defines them.
 */
export const SWC_JSC = {
  parser: { syntax: 'typescript', decorators: true },
  target: 'es2023',
  keepClassNames: true,
  transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: true },
};
