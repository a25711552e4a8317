// jest's choice and order of spec files for Stryker's runs (stryker.config.mjs). Stryker runs a mutant
// with the tests that cover it, as a name pattern over the spec files related to the mutated file
// (`enableFindRelatedTests`); jest loads every one of those files to learn its test names, even when none
// matches, and a file's imports take seconds (half-year.ts has 20 related files). So the dry run, which
// runs every test, writes down each file's test names and duration; a mutant's run then drops the files
// none of whose names matches (jest would run no test of them) and runs the others quickest first, for
// test/support/stop-at-first-kill.js. A file whose names are not known is kept.
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Sequencer from '@jest/test-sequencer';

export default class CoveringFilesOnly extends Sequencer {
  constructor(options) {
    super(options);
    this.pattern = options.globalConfig.testNamePattern;
    this.dryRunFile = join(options.globalConfig.rootDir, '.stryker-dry-run.json');
  }

  sort(tests) {
    if (!this.pattern || !existsSync(this.dryRunFile)) return super.sort(tests);
    // jest-circus reads the pattern so (case-insensitive) and tests it against each test's full name.
    const pattern = new RegExp(this.pattern, 'i');
    const files = JSON.parse(readFileSync(this.dryRunFile, 'utf8'));
    const known = tests.filter((test) => test.path in files);
    return [
      ...known
        .filter((test) => files[test.path].names.some((name) => pattern.test(name)))
        .sort((a, b) => files[a.path].ms - files[b.path].ms),
      ...super.sort(tests.filter((test) => !(test.path in files))),
    ];
  }

  cacheResults(tests, results) {
    super.cacheResults(tests, results);
    if (this.pattern) return;
    const files = existsSync(this.dryRunFile) ? JSON.parse(readFileSync(this.dryRunFile, 'utf8')) : {};
    for (const file of results.testResults) {
      files[file.testFilePath] = { names: file.testResults.map((test) => test.fullName), ms: file.perfStats.end - file.perfStats.start };
    }
    // Written whole then renamed: the other test runner process may be reading it.
    writeFileSync(`${this.dryRunFile}.${process.pid}`, JSON.stringify(files));
    renameSync(`${this.dryRunFile}.${process.pid}`, this.dryRunFile);
  }
}
