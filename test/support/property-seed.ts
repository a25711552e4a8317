// Every fast-check property of a test run draws from one fixed seed, so the suite checks the same
// inputs on every run and cannot fail by chance. `npm run fuzz` (test/fuzz.mjs) explores others
// by setting FUZZ_SEED, which also replays a failure it printed: `FUZZ_SEED=<n> npm run test:jest -- <file>`.
import fc from 'fast-check';

fc.configureGlobal({ ...fc.readConfigureGlobal(), seed: Number(process.env.FUZZ_SEED || 1_797_630_000) });
