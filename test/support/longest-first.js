// jest's order for a run: the longest files first, so that the workers finish together rather than one
// waiting out a browser file started last. jest orders by the durations of the previous run on the same
// checkout, and without them (a clean clone: CI) by file size, which puts the browser files, short files
// that drive Chromium for minutes, near the end. So the files measured as the longest start first, in this
// order, then any other browser file; every other file follows in jest's own order. A file missing here still
// runs, only later.
import Sequencer from '@jest/test-sequencer';

/** Slowest first: a full run on 2026-11-28 (both tiers, four workers; wall time of each file, most of it waiting for
 * an SMTP server, a child process or Chromium). A path of both tiers is both files. */
export const LONGEST = [
  'test/admin/mail-outbox.e2e-spec.ts',
  'test/embedded-database.e2e-spec.ts',
  'test/backup-restore.e2e-spec.ts',
  'test/browser/site.e2e-spec.ts',
  'test/browser/dashboard.e2e-spec.ts',
  'test/products-bounds.e2e-spec.ts',
  'test/admin/period-export-memory.e2e-spec.ts',
  'test/faults.e2e-spec.ts',
  'test/generated-client.e2e-spec.ts',
  'test/startup.e2e-spec.ts',
  'test/resource-bounds.e2e-spec.ts',
  'test/me-from-memory.e2e-spec.ts',
  'test/browser/operator-console.e2e-spec.ts',
  'test/admin/operator-refusals.e2e-spec.ts',
  'test/admin/period-export.e2e-spec.ts',
  'test/replicas.e2e-spec.ts',
  'test/dashboard/sessions.e2e-spec.ts',
  'test/admin/admin-scale.e2e-spec.ts',
  'test/fuzz.e2e-spec.ts',
  'test/auth.e2e-spec.ts',
];

export default class LongestFirst extends Sequencer {
  sort(tests) {
    const rank = (test) => {
      const i = LONGEST.findIndex((file) => test.path.endsWith(`/${file}`));
      if (i >= 0) return i;
      return test.path.includes('/test/browser/') ? LONGEST.length : LONGEST.length + 1;
    };
    const first = tests.filter((test) => rank(test) <= LONGEST.length).sort((a, b) => rank(a) - rank(b));
    return [...first, ...super.sort(tests.filter((test) => rank(test) > LONGEST.length))];
  }
}
