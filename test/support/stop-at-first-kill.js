// jest's in-band runner for Stryker's mutant runs (stryker.config.mjs): the spec files run one after the
// other, and none after the first whose test fails: the mutant is killed, which is all Stryker asks
// (its other test runners bail the same way; it cannot ask jest to: jest's `bail` ends the process).
// The files come cheapest first (test/support/covering-files-only.js), so that a mutant the spec next to
// its file kills does not wait for the slow specs that also cover it. The dry run runs every file.
import TestRunner from 'jest-runner';

export default class StopAtFirstKill extends TestRunner {
  async runTests(tests, watcher, options) {
    if (!process.env.__STRYKER_ACTIVE_MUTANT__ || !options.serial) return super.runTests(tests, watcher, options);
    let killed = false;
    const unsubscribe = [
      this.on('test-file-success', ([, result]) => (killed ||= result.numFailingTests > 0 || Boolean(result.testExecError))),
      this.on('test-file-failure', () => (killed = true)),
    ];
    try {
      for (const test of tests) {
        if (killed) break;
        await super.runTests([test], watcher, options);
      }
    } finally {
      for (const off of unsubscribe) off();
    }
  }
}
