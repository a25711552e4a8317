// Jest's test sequencer, with the slowest files first on a clean clone too. Jest runs first the files
// its cache says were slowest; a clean clone (CI) has no cache, and jest then orders by file size, which
// put the browser tests (short files, minutes each) last: one worker ran them alone at the end. Here a
// file with no cached time takes its time from `slow-tests.json` (seconds, measured on a CI run of this
// machine; refresh it when a file's time changes much: the CI log prints each file's time), else its size.
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import Sequencer from '@jest/test-sequencer';

const KNOWN = JSON.parse(readFileSync(new URL('./slow-tests.json', import.meta.url), 'utf8'));

export default class SlowestFirst extends Sequencer {
  sort(tests) {
    const estimate = (test) => {
      const cached = this.time(test);
      if (cached != null) return cached;
      const known = KNOWN[relative(test.context.config.rootDir, test.path)];
      // Unknown files are short: order them by size, after every known one.
      return known != null ? known * 1000 : test.context.hasteFS.getSize(test.path) / 1e6;
    };
    const failed = (test) => (this.hasFailed(test) ? 1 : 0);
    return [...tests].sort((a, b) => failed(b) - failed(a) || estimate(b) - estimate(a));
  }
}
